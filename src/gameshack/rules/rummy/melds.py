"""Meld validity and the search helpers that hints, bots and the legal-action generator share.

A *set* is 3 or 4 cards of one rank. A *run* is 3+ consecutive cards of one suit; the ace is
low (``AH 2H 3H``) or high (``QH KH AH``), never both and never round the corner
(``KH AH 2H``). A run is reasoned about in *positions* 1..14 where the ace may sit at 1 (low)
or 14 (high): :func:`run_positions` and :func:`card_at` are that convention, stated once.

The bots plan over these functions too (what a hand can meld, what lays off where, which pairs
a card completes), so the rules they plan by are the rules the engine enforces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Final, NamedTuple

from gameshack.rules.rummy.cards import Card, cards_str

__all__ = [
    "RUN",
    "SET",
    "TableMeld",
    "can_use_card",
    "card_at",
    "find_layoffs",
    "find_melds",
    "hand_mask",
    "laid_off",
    "layoff_cards",
    "layoff_result",
    "layoffs_of_mask",
    "meld_kind",
    "meld_partners",
    "melds_of_mask",
    "need_of_mask",
    "order_meld",
    "pickups_of_mask",
    "run_extensions",
    "run_positions",
    "tuple_mask",
    "usable_pickups",
]

SET: Final = "set"
RUN: Final = "run"


class TableMeld(NamedTuple):
    """A meld on the table: ``cards`` in display order, ``owners[i]`` the seat that played
    ``cards[i]`` (a laid-off card scores for whoever laid it off)."""

    id: int
    kind: str
    cards: tuple[Card, ...]
    owners: tuple[int, ...]

    def __str__(self) -> str:
        return f"#{self.id} {cards_str(self.cards)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "cards": [cards_str((c,)) for c in self.cards],
            "owners": list(self.owners),
        }


def _run_order(cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """``cards`` in run order if they form a valid run, else None."""
    n = len(cards)
    if n < 3:
        return None
    suit = cards[0] // 13
    ranks = sorted(c % 13 for c in cards)  # 0 = ace .. 12 = king
    for c in cards:
        if c // 13 != suit:
            return None
    base = suit * 13
    if ranks[-1] - ranks[0] == n - 1 and len(set(ranks)) == n:
        return tuple(base + r for r in ranks)  # ace (if any) low
    if ranks[0] == 0:
        high = ranks[1:]
        # Ace high: the others must be consecutive and end at the king.
        if high[-1] == 12 and high[-1] - high[0] == n - 2 and len(set(high)) == n - 1:
            return (*(base + r for r in high), base)
    return None


def meld_kind(cards: Sequence[Card]) -> str | None:
    """``"set"``, ``"run"`` or None if ``cards`` (distinct) are not a valid meld."""
    n = len(cards)
    if n < 3 or len(set(cards)) != n:
        return None
    rank = cards[0] % 13
    if all(c % 13 == rank for c in cards):
        return SET if n <= 4 else None
    return RUN if _run_order(cards) is not None else None


def order_meld(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Display order: runs low to high (ace where it plays), sets by suit S H D C; other card
    groups (not a meld) sorted by id."""
    run = _run_order(cards) if len(set(cards)) == len(cards) else None
    return run if run is not None else tuple(sorted(cards))


def layoff_result(meld: TableMeld, cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The meld's cards after laying off ``cards`` (display order), or None if that is not a
    valid meld of the same kind."""
    if not cards or len(set(cards)) != len(cards) or set(cards) & set(meld.cards):
        return None
    union = (*meld.cards, *cards)
    if meld.kind == SET:
        rank = meld.cards[0] % 13
        if len(union) > 4 or any(c % 13 != rank for c in cards):
            return None
        return tuple(sorted(union))
    return _run_order(union)


def run_positions(card: Card) -> tuple[int, ...]:
    """Where ``card`` can sit in a run of its suit: its rank 1..13, and 14 too for the ace."""
    rank = card % 13 + 1
    return (1, 14) if rank == 1 else (rank,)


def card_at(suit: int, position: int) -> Card:
    """The card of ``suit`` at run ``position`` 1..14 (both 1 and 14 are the ace)."""
    return suit * 13 + (0 if position == 14 else position - 1)


def laid_off(meld: TableMeld, cards: Sequence[Card], seat: int) -> TableMeld | None:
    """``meld`` after ``seat`` lays ``cards`` off on it, every card still scoring for whoever
    played it; None if that is not a valid lay-off."""
    result = layoff_result(meld, cards)
    if result is None:
        return None
    owner = dict(zip(meld.cards, meld.owners, strict=True))
    return TableMeld(meld.id, meld.kind, result, tuple([owner.get(c, seat) for c in result]))


def _suit_runs(suit: int, mask: int) -> tuple[tuple[Card, ...], ...]:
    """Every run in ``suit`` given a 13-bit mask of the ranks held (bit 0 = ace)."""
    present = [False] * 16
    for r in range(13):
        if mask >> r & 1:
            present[r + 1] = True
    present[14] = present[1]
    out: list[tuple[Card, ...]] = []
    for start in range(1, 13):
        if not present[start]:
            continue
        end = start
        while end < 14 and present[end + 1]:
            end += 1
            if end - start < 2:
                continue
            if start == 1 and end == 14:
                break  # the ace cannot be both low and high
            if start == 2 and end == 14 and present[1]:
                continue  # 2..K + ace high is the same cards as A..K, already listed
            out.append(tuple(card_at(suit, p) for p in range(start, end + 1)))
    return tuple(out)


def _rank_sets(rank: int, mask: int) -> tuple[tuple[Card, ...], ...]:
    """Every set of ``rank`` given a 4-bit mask of the suits held."""
    group = [s * 13 + rank for s in range(4) if mask >> s & 1]
    if len(group) < 3:
        return ()
    out: list[tuple[Card, ...]] = list(combinations(group, 3))
    if len(group) == 4:
        out.append(tuple(group))
    return tuple(out)


# Hands are searched as 52-bit masks (bit ``c`` = card ``c`` held): a suit's ranks are then one
# shift and mask away, and "does the hand hold these cards" is one AND.
_RANK0: Final[tuple[int, ...]] = tuple(c % 13 for c in range(52))
# The four suits' bits of rank 0 (shift left by the rank for another rank).
_SUITS_OF_RANK: Final = 1 | 1 << 13 | 1 << 26 | 1 << 39
# The bits where three in a row of one suit may start (ace .. jack of each suit).
_RUN_STARTS: Final = 0x7FF | 0x7FF << 13 | 0x7FF << 26 | 0x7FF << 39


def _three_card_runs(card: Card) -> list[tuple[Card, ...]]:
    """The 3-card runs containing ``card``, lowest first (the ace low, then high)."""
    suit = card // 13
    return [
        tuple(card_at(suit, q) for q in range(start, start + 3))
        for p in run_positions(card)
        for start in (p - 2, p - 1, p)
        if 1 <= start <= 12
    ]


def meld_partners(card: Card) -> tuple[tuple[Card, Card], ...]:
    """The pairs of cards that make a 3-card meld with ``card``: the sets first (the other
    suits in order), then the runs, lowest first."""
    suit, rank = divmod(card, 13)
    same = [s * 13 + rank for s in range(4) if s != suit]
    out = [(same[0], same[1]), (same[0], same[2]), (same[1], same[2])]
    for run in _three_card_runs(card):
        a, b = (c for c in run if c != card)
        out.append((a, b))
    return tuple(out)


# Every set of each rank by its suit mask (only masks of 3-4 suits hold one), and the runs of a
# suit memoised by its 13-bit rank mask: find_melds is on the path of every legal-action query.
_SETS: Final[tuple[tuple[tuple[tuple[Card, ...], ...], ...], ...]] = tuple(
    tuple(_rank_sets(r, m) for m in range(16)) for r in range(13)
)
_RUNS: Final[tuple[dict[int, tuple[tuple[Card, ...], ...]], ...]] = ({}, {}, {}, {})


def hand_mask(cards: Iterable[Card]) -> int:
    """The 52-bit mask of ``cards`` (duplicates allowed)."""
    h = 0
    for c in cards:
        h |= 1 << c
    return h


def tuple_mask(cards: tuple[Card, ...]) -> int:
    """:func:`hand_mask` of a tuple (the engine's hands; a faster loop when compiled)."""
    h = 0
    for c in cards:
        h |= 1 << c
    return h


# The 3-card runs containing each card, as card masks.
_WINDOWS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(hand_mask(run) for run in _three_card_runs(c)) for c in range(52)
)


def _held_in_suits(h: int, rank: int) -> int:
    """How many suits of ``rank`` (0 = ace) mask ``h`` holds."""
    x = h >> rank & _SUITS_OF_RANK
    return (x & 1) + (x >> 13 & 1) + (x >> 26 & 1) + (x >> 39)


def melds_of_mask(h: int) -> list[tuple[Card, ...]]:
    """:func:`find_melds` of the cards in mask ``h``."""
    m0 = h & 8191
    m1 = h >> 13 & 8191
    m2 = h >> 26 & 8191
    m3 = h >> 39 & 8191
    out: list[tuple[Card, ...]] = []
    # Ranks held in at least three suits.
    ge3 = (m0 & m1 & (m2 | m3)) | ((m0 | m1) & m2 & m3)
    while ge3:
        low = ge3 & -ge3
        r = low.bit_length() - 1
        out.extend(
            _SETS[r][(m0 >> r & 1) | (m1 >> r & 1) << 1 | (m2 >> r & 1) << 2 | (m3 >> r & 1) << 3]
        )
        ge3 ^= low
    # Suits with three in a row somewhere, or Q K A (marked at the ace).
    runs = (h & (h >> 1) & (h >> 2) & _RUN_STARTS) | (h & (h >> 11) & (h >> 12) & _SUITS_OF_RANK)
    if not runs:
        return out
    for s in range(4):
        if runs >> (13 * s) & 8191:
            m = h >> (13 * s) & 8191
            cache = _RUNS[s]
            found = cache.get(m)
            if found is None:
                found = cache[m] = _suit_runs(s, m)
            out.extend(found)
    return out


def find_melds(cards: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every meld that can be made from ``cards``, each in display order; deterministic order:
    sets by rank (3-card ones before the 4-card one), then runs by suit, start and length."""
    return melds_of_mask(hand_mask(cards))


def _run_span(meld: TableMeld) -> tuple[int, int, int]:
    """(suit, low position, high position) of a run on the table."""
    first, last = meld.cards[0], meld.cards[-1]
    lo = first % 13 + 1
    hi = 14 if last % 13 == 0 and len(meld.cards) > 1 and lo != 1 else last % 13 + 1
    return first // 13, lo, hi


def run_extensions(meld: TableMeld) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The cards that would extend run ``meld`` downward and upward, nearest first; ``((),
    ())`` for a set. A lay-off on a run is a prefix of one or both (the ace once: on a 2..K run
    it heads both)."""
    if meld.kind != RUN:
        return (), ()
    suit, lo, hi = _run_span(meld)
    down = tuple(card_at(suit, p) for p in range(lo - 1, 1 if hi == 14 else 0, -1))
    up = tuple(card_at(suit, p) for p in range(hi + 1, 14 if lo == 1 else 15))
    return down, up


def layoff_cards(meld: TableMeld) -> tuple[Card, ...]:
    """The cards that lay off on ``meld`` one at a time: a set's missing suits (while it has
    three), a run's next card down then its next card up."""
    if meld.kind == SET:
        if len(meld.cards) >= 4:
            return ()
        rank = meld.cards[0] % 13
        return tuple(s * 13 + rank for s in range(4) if s * 13 + rank not in meld.cards)
    down, up = run_extensions(meld)
    ends = down[:1] + up[:1]
    return ends[:1] if len(ends) == 2 and ends[0] == ends[1] else ends


LayoffList = list[tuple[tuple[Card, ...], int]]


class _MeldInfo:
    """What a table meld accepts: the cards that lay off on it (``adj``: at least one of these
    must be held), and the lay-offs listed per number of cards held down and up its chains."""

    __slots__ = ("adj", "by_held", "down", "id", "open_bit", "singles", "span", "suit", "up")

    def __init__(self, meld: TableMeld) -> None:
        self.id = meld.id
        self.by_held: dict[int, LayoffList] = {}  # key: kd * 16 + ku (see layoffs)
        self.singles: tuple[tuple[Card, ...], ...] = ()
        self.down: tuple[Card, ...] = ()
        self.up: tuple[Card, ...] = ()
        # For the pickup check: the rank bit of a set of three; a run's suit and span.
        self.open_bit = 0
        self.suit: int | None = None
        self.span = (0, 0)
        self.adj = hand_mask(layoff_cards(meld))
        if meld.kind == SET:
            self.singles = tuple((c,) for c in layoff_cards(meld))
            if self.singles:
                self.open_bit = 1 << meld.cards[0] % 13
            return
        suit, lo, hi = _run_span(meld)
        self.suit = suit
        self.span = (lo, hi)
        self.down, self.up = run_extensions(meld)

    def layoffs(self, h: int) -> LayoffList:
        if self.singles:
            return [(c, self.id) for c in self.singles if h >> c[0] & 1]
        down, up = self.down, self.up
        kd = 0
        while kd < len(down) and h >> down[kd] & 1:
            kd += 1
        ku = 0
        while ku < len(up) and h >> up[ku] & 1:
            ku += 1
        found = self.by_held.get(kd * 16 + ku)
        if found is None:
            # When the cards held reach the ace at both ends it may go low or high, never both:
            # skip groups holding it twice, and list once the groups that differ only in which
            # end it takes (on the 2..K run that is the lone ace itself).
            found = []
            seen: set[frozenset[Card]] = set()
            for total in range(1, kd + ku + 1):
                for k in range(max(0, total - ku), min(kd, total) + 1):
                    group = (*down[:k], *up[: total - k])
                    key = frozenset(group)
                    if len(key) < len(group) or key in seen:
                        continue
                    seen.add(key)
                    found.append((group if total == 1 else order_meld(group), self.id))
            self.by_held[kd * 16 + ku] = found
        return found


class _Table:
    """Everything the searches need to know about a table, computed once per table."""

    __slots__ = ("adj", "ext", "melds", "open_sets", "runs")

    def __init__(self, melds: Sequence[TableMeld]) -> None:
        # melds: only those that accept some card (not a set of four, not a whole suit).
        # open_sets: ranks with a set of 3 on the table; runs: per suit, (low, high) positions.
        self.melds: list[_MeldInfo] = []
        self.adj = self.open_sets = 0
        self.runs: tuple[list[tuple[int, int]], ...] = ([], [], [], [])
        for meld in melds:
            info = _meld_info(meld)
            if info.adj:
                self.melds.append(info)
                self.adj |= info.adj
            if info.suit is not None:
                self.runs[info.suit].append(info.span)
            else:
                self.open_sets |= info.open_bit
        self.ext: dict[Card, tuple[tuple[int, int], ...]] = {}

    def extensions(self, card: Card) -> tuple[tuple[int, int], ...]:
        """The ways to lay ``card`` off on a run: (the cards needed, ``card`` included, as a
        mask; how many). Computed on first use."""
        found = self.ext.get(card)
        if found is not None:
            return found
        suit, rank = divmod(card, 13)
        base = suit * 13
        out: list[tuple[int, int]] = []
        for lo, hi in self.runs[suit]:
            for p in (1, 14) if rank == 0 else (rank + 1,):
                if p < lo:
                    mask = sum(1 << (base + q - 1) for q in range(p, lo))
                    out.append((mask, lo - p))
                elif p > hi:
                    mask = sum(
                        1 << (base if q == 14 else base + q - 1) for q in range(hi + 1, p + 1)
                    )
                    out.append((mask, p - hi))
        found = self.ext[card] = tuple(out)
        return found


# Melds and tables by identity: both are immutable, and a state's melds tuple is reused by every
# state until the next meld or lay-off (which changes one meld). Each entry keeps its object
# alive, so an id is never reused while cached.
_MELDS: Final[dict[int, tuple[TableMeld, _MeldInfo]]] = {}


def _meld_info(meld: TableMeld) -> _MeldInfo:
    hit = _MELDS.get(id(meld))
    if hit is not None and hit[0] is meld:
        return hit[1]
    if len(_MELDS) >= 256:
        _MELDS.clear()
    info = _MeldInfo(meld)
    _MELDS[id(meld)] = (meld, info)
    return info


_TABLES: Final[dict[int, tuple[tuple[TableMeld, ...], _Table]]] = {}


def _table(melds: Iterable[TableMeld]) -> _Table:
    if type(melds) is not tuple:
        return _Table(list(melds))
    hit = _TABLES.get(id(melds))
    if hit is not None and hit[0] is melds:
        return hit[1]
    if len(_TABLES) >= 32:
        _TABLES.clear()
    table = _Table(melds)
    _TABLES[id(melds)] = (melds, table)
    return table


def layoffs_of_mask(h: int, melds: Iterable[TableMeld]) -> LayoffList:
    """:func:`find_layoffs` of the cards in mask ``h``."""
    table = _table(melds)
    if not h & table.adj:
        return []
    out: LayoffList = []
    for info in table.melds:
        if h & info.adj:
            out += info.layoffs(h)
    return out


def find_layoffs(
    cards: Iterable[Card], melds: Iterable[TableMeld]
) -> list[tuple[tuple[Card, ...], int]]:
    """Every (cards, meld id) lay-off that ``cards`` allow onto ``melds``; the cards of a lay-off
    in :func:`order_meld` order. Deterministic: by meld in table order, then fewer cards first.
    """
    return layoffs_of_mask(hand_mask(cards), melds)


def need_of_mask(card: Card, h: int, melds: Iterable[TableMeld]) -> int:
    """:func:`can_use_card` with the cards held as mask ``h`` (``card`` included)."""
    suit = card // 13
    rank = card % 13
    runs: list[TableMeld] = []
    for meld in melds:
        if meld.kind == SET:
            if len(meld.cards) < 4 and meld.cards[0] % 13 == rank:
                return 1
        else:
            runs.append(meld)
    best = 0
    if _held_in_suits(h, rank) >= 3:
        best = 3
    else:
        for w in _WINDOWS[card]:
            if h & w == w:
                best = 3
                break
    if not runs:
        return best
    m = h >> (13 * suit) & 8191
    m = m << 1 | (m & 1) << 14  # bit p = position p held, the ace at 1 and 14
    positions = (1, 14) if rank == 0 else (rank + 1,)
    for meld in runs:
        s, lo, hi = _run_span(meld)
        if s != suit:
            continue
        for p in positions:
            if p < lo:
                need = lo - p
                bits = (1 << need) - 1
                if (m >> p) & bits != bits:
                    continue
            elif p > hi:
                need = p - hi
                bits = (1 << need) - 1
                if (m >> (hi + 1)) & bits != bits:
                    continue
            else:
                continue
            if not best or need < best:
                best = need
    return best


def can_use_card(card: Card, cards: Iterable[Card], melds: Iterable[TableMeld]) -> int:
    """The fewest cards (``card`` included) that must be played to meld or lay off ``card``
    using ``cards`` (``card`` is added if missing) and the table ``melds``; 0 if impossible.

    This is the check behind a deeper discard-pile pickup: the picked card must be playable
    this turn, leaving at least one card to discard.
    """
    return need_of_mask(card, hand_mask(cards) | 1 << card, melds)


def usable_pickups(
    hand: Sequence[Card], discard: Sequence[Card], melds: Iterable[TableMeld]
) -> list[int]:
    """Indices ``i`` (top first, the top itself excluded) of the discard pile where taking
    ``discard[i:]`` is allowed: the picked card ``discard[i]`` can be melded or laid off with
    the hand and the cards above it, leaving at least one card to discard."""
    return pickups_of_mask(hand_mask(hand), len(hand), tuple(discard), melds)


def pickups_of_mask(
    h: int, n: int, discard: tuple[Card, ...], melds: Iterable[TableMeld]
) -> list[int]:
    """:func:`usable_pickups` of a hand of ``n`` cards given as mask ``h``."""
    if len(discard) < 2:
        return []
    table = _table(melds)
    open_sets = table.open_sets
    runs = table.runs
    rank_of, windows = _RANK0, _WINDOWS
    h |= 1 << discard[-1]
    out: list[int] = []
    total = n + 1
    for i in range(len(discard) - 2, -1, -1):
        c = discard[i]
        h |= 1 << c
        total += 1
        # Usable iff some way to play c needs at most total - 1 cards (one is discarded).
        r = rank_of[c]
        if open_sets >> r & 1:  # needs 1 card, and total >= 3
            out.append(i)
            continue
        if total >= 4:
            x = h >> r & _SUITS_OF_RANK  # the rank held in three suits or more: a set
            if (x & 1) + (x >> 13 & 1) + (x >> 26 & 1) + (x >> 39) >= 3:
                out.append(i)
                continue
            for w in windows[c]:
                if h & w == w:
                    break
            else:
                w = 0
            if w:
                out.append(i)
                continue
        if runs[c // 13]:
            for mask, need in table.extensions(c):
                if need < total and h & mask == mask:
                    out.append(i)
                    break
    return out
