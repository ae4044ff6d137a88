"""The bots use the engine's card ints (``suit * 13 + rank - 1``); this adds the hot tables."""

from __future__ import annotations

from gameshack.rules.rummy.cards import card_str, card_value, make_card, parse_card, parse_cards

__all__ = ["VALUE", "card_str", "make_card", "parse_card", "parse_cards"]

VALUE: tuple[int, ...] = tuple(card_value(c) for c in range(52))
"""Points per card id: A = 15; K, Q, J, 10 = 10; 2-9 = 5."""
