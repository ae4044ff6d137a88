"""Cards and their notation.

A card is a small int 0..51: ``card = suit * 13 + (rank - 1)`` with suits in the order
Spades, Hearts, Diamonds, Clubs (``S H D C``) and ranks 1 (ace) .. 13 (king). Ints keep the
engine fast and make cards trivially JSON-ready. Notation is rank then suit: ``AS 2H 10D JC
QS KH``.
"""

from __future__ import annotations

from collections.abc import Iterable

from gameshack.rules.common import MalformedAction

__all__ = [
    "ALL_CARDS",
    "RANKS",
    "SUITS",
    "SUIT_NAMES",
    "Card",
    "card_str",
    "card_value",
    "cards_str",
    "cards_value",
    "make_card",
    "parse_card",
    "parse_cards",
    "rank_of",
    "sort_cards",
    "suit_of",
]

Card = int
"""A card id 0..51 (see the module docstring)."""

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ALL_CARDS: tuple[Card, ...] = tuple(range(52))


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1 = ace .. 13 = king) and ``suit`` (0..3 = S H D C)."""
    return suit * 13 + rank - 1


def rank_of(card: Card) -> int:
    """1 (ace) .. 13 (king)."""
    return card % 13 + 1


def suit_of(card: Card) -> int:
    """0..3 for S H D C."""
    return card // 13


# Precomputed: these are on the hot path of scoring and random play.
_VALUES: tuple[int, ...] = tuple(
    15 if r == 1 else 10 if r >= 10 else 5 for r in (c % 13 + 1 for c in range(52))
)
_STRS: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_PARSE: dict[str, Card] = {s: c for c, s in enumerate(_STRS)}
_PARSE.update({s.replace("10", "T"): c for c, s in enumerate(_STRS) if s.startswith("10")})


def card_value(card: Card) -> int:
    """Points: A = 15; K, Q, J, 10 = 10; 2-9 = 5."""
    return _VALUES[card]


def cards_value(cards: Iterable[Card]) -> int:
    v = _VALUES
    return sum(v[c] for c in cards)


def card_str(card: Card) -> str:
    """``10D`` for the ten of diamonds."""
    return _STRS[card]


def cards_str(cards: Iterable[Card]) -> str:
    return " ".join(_STRS[c] for c in cards)


def parse_card(text: str) -> Card:
    """Parse ``"10D"`` / ``"qs"`` / ``"TD"``; raise :class:`MalformedAction` on anything else."""
    card = _PARSE.get(text.strip().upper())
    if card is None:
        raise MalformedAction(f"{text!r} is not a card (expected rank then suit, like 10D or QS)")
    return card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse whitespace-separated cards: ``"AS 2H 10D"``."""
    return tuple(parse_card(t) for t in text.split())


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Suit (S H D C) then rank, ace low: the engine's canonical hand order."""
    return tuple(sorted(cards))
