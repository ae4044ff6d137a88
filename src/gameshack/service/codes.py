"""Room codes: five letters a player can read out loud and type without a second look.

The Tile Rummy seed says "the 5-letter room code"; Rummy rooms use the same codes (one rule
for both games, docs/decisions.md). Letters only, none that are easily confused (I L O Q U V:
I/L/1, O/Q/0, U/V), and a code that contains a word on a small block list is drawn again.
Lookups stay case-insensitive and also accept the digits of earlier codes (``CODE_ALPHABET``
in ``room.py``), so games created before keep their codes.
"""

from __future__ import annotations

import secrets
from typing import Final, Protocol

__all__ = ["BLOCKED", "CODE_LEN", "CODE_LETTERS", "draw_code", "is_blocked"]

CODE_LEN: Final = 5
CODE_LETTERS: Final = "ABCDEFGHJKMNPRSTWXYZ"  # 20 letters: 20**5 = 3.2 million codes
# Substrings a code may not contain: rude, hateful or mocking words (and their usual
# vowel-less spellings) that these letters can spell. Small on purpose; a match is redrawn.
BLOCKED: Final = (
    "ASS",
    "CNT",
    "CRAP",
    "DAMN",
    "DCK",
    "DYKE",
    "FAG",
    "FCK",
    "FKN",
    "GAY",
    "JEW",
    "KKK",
    "KYS",
    "NAZ",
    "NGA",
    "NGR",
    "NEGR",
    "PNS",
    "PRCK",
    "RAPE",
    "SEX",
    "SHAT",
    "SHT",
    "SPAZ",
    "TWAT",
    "WANK",
    "WTF",
    "XXX",
)


class _Chooser(Protocol):
    def choice(self, seq: str, /) -> str: ...


class _Secrets:
    def choice(self, seq: str, /) -> str:
        return secrets.choice(seq)


def is_blocked(code: str) -> bool:
    """The code contains a word of the block list (any case)."""
    up = code.upper()
    return any(word in up for word in BLOCKED)


def draw_code(rng: _Chooser | None = None) -> str:
    """A fresh code: CODE_LEN letters of CODE_LETTERS, none on the block list. ``rng`` (with a
    ``choice`` method, e.g. ``random.Random``) is for tests; the default is ``secrets``."""
    chooser = rng if rng is not None else _Secrets()
    while True:
        code = "".join(chooser.choice(CODE_LETTERS) for _ in range(CODE_LEN))
        if not is_blocked(code):
            return code
