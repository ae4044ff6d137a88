"""The set rules the solver searches by, stated once, and the tables derived from them.

A set is a run (one colour, consecutive numbers, at least :data:`RUN_MIN` tiles, no wrapping
past :data:`NUMBERS`) or a group (one number, :data:`GROUP_MIN` to :data:`GROUP_MAX` tiles of
distinct colours); the game holds :data:`COPIES` of every face and :data:`JOKERS` jokers. The
engine's :func:`gameshack.rules.tiles.check_set` is the judge of a set; a test checks that it
agrees with these constants.

The search sweeps the numbers in order and needs, per colour, only how many runs are open and
how long they are so far: 1, 2, or complete (``RUN_MIN`` or more). That is a *run code*:
``n1 + B * n2 + B * B * n3`` with ``B = MAX_OPEN + 1``. The tables below say how a code moves
on when some tiles of the next number go to that colour's runs (:data:`TRANS_CAP`), how many
jokers its unfinished runs need at least (:data:`DEFICIT`), and how many tiles it must take
(:data:`MUST`). The C node function receives them from here (:mod:`._dp_engine`).
"""

from __future__ import annotations

from itertools import product
from typing import Final

from gameshack.rules.tiles.tiles import COLORS, JOKER

__all__ = [
    "COLOURS",
    "COPIES",
    "DEFICIT",
    "GROUP_MAX",
    "GROUP_MIN",
    "JOKER",
    "JOKERS",
    "MAX_OPEN",
    "MUST",
    "NUMBERS",
    "RUN_MIN",
    "SPREAD",
    "TRANS",
    "TRANS_CAP",
]

NUMBERS: Final = 13  # tiles are numbered 1..NUMBERS
COLOURS: Final = len(COLORS)
RUN_MIN: Final = 3
GROUP_MIN: Final = 3
GROUP_MAX: Final = 4  # distinct colours, so at most COLOURS
COPIES: Final = 2  # of every face
JOKERS: Final = 2

# most runs of one colour open at once: each copy and each joker may start one
MAX_OPEN: Final = COPIES + JOKERS
_B: Final = MAX_OPEN + 1
CODES: Final = _B**3
# most tiles of one number going to one colour's runs: every open run continued
_MAX_TO_RUNS: Final = 6


def encode(n1: int, n2: int, n3: int) -> int:
    """The run code of a colour with ``n1`` runs of one tile, ``n2`` of two, ``n3`` complete."""
    return n1 + _B * n2 + _B * _B * n3


def decode(code: int) -> tuple[int, int, int]:
    return code % _B, code // _B % _B, code // (_B * _B)


def _build_trans() -> list[list[int]]:
    """``TRANS[code][t]``: the colour's code after ``t`` tiles of the next number go to its
    runs (-1: impossible). Every unfinished run must take one; complete runs go on next;
    the rest start new runs."""
    table: list[list[int]] = []
    for code in range(CODES):
        n1, n2, n3 = decode(code)
        row = []
        for t in range(_MAX_TO_RUNS + 1):
            must = n1 + n2
            if t < must:
                row.append(-1)
                continue
            k3 = min(n3, t - must)
            new = t - must - k3
            n3n = n2 + k3  # the runs of two are complete now (RUN_MIN = 3)
            row.append(-1 if new > MAX_OPEN or n3n > MAX_OPEN else encode(new, n1, n3n))
        table.append(row)
    return table


TRANS: Final = _build_trans()


def _build_trans_capped() -> list[list[list[int]]]:
    """``TRANS_CAP[cap]``: :data:`TRANS` with complete runs beyond ``cap`` dropped. A
    complete run may always end, so when at most ``cap`` tiles of the colour can follow at
    the next number, runs beyond that many are as good as closed — merging states."""
    out = []
    for cap in range(MAX_OPEN + 1):
        rows = []
        for row in TRANS:
            new = []
            for code in row:
                if code >= 0:
                    n1, n2, n3 = decode(code)
                    code = encode(n1, n2, min(n3, cap))
                new.append(code)
            rows.append(new)
        out.append(rows)
    return out


TRANS_CAP: Final = _build_trans_capped()

# tiles of the next number a code's unfinished runs must take
MUST: Final = [decode(code)[0] + decode(code)[1] for code in range(CODES)]
# copies of a face per colour and number, plus one value for "past NUMBERS": no tile at all
PAST: Final = COPIES + 1


def _build_deficits() -> list[list[list[int]]]:
    """``DEFICIT[a1][a2][code]``: jokers a colour's runs need at least when the next number
    has ``a1`` real tiles of that colour and the one after ``a2`` (:data:`PAST`: that number
    is past 13). Each unfinished run needs a tile at the next number; a run of one also the
    one after. 99: no number of jokers will do."""
    out = []
    for a1 in range(PAST + 1):
        rows = []
        for a2 in range(PAST + 1):
            row = []
            for code in range(CODES):
                n1, n2, _ = decode(code)
                if (n1 + n2 and a1 == PAST) or (n1 and a2 == PAST):
                    row.append(99)
                else:
                    row.append(max(0, n1 + n2 - a1) + max(0, n1 - a2))
            rows.append(row)
        out.append(rows)
    return out


DEFICIT: Final = _build_deficits()


def _build_spread() -> list[tuple[tuple[int, int, int, int], ...]]:
    """``SPREAD[spare]``: ways to put up to ``spare`` jokers on the colours' runs, fewest
    first."""
    out = []
    for spare in range(JOKERS + 1):
        ways = [(y[0], y[1], y[2], y[3]) for y in product(range(spare + 1), repeat=COLOURS)]
        out.append(tuple(sorted((w for w in ways if sum(w) <= spare), key=sum)))
    return out


SPREAD: Final = _build_spread()
