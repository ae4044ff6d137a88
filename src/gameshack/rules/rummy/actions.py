"""Actions: small immutable values with a text notation that round-trips.

======================  =====================================================================
``deal``                first-deal draw: this seat taps the deck and reveals one card
``draw``                take the top card of the draw pile (stock)
``take 7H``             take 7H from the discard pile with every card above it
``meld 7H 8H 9H``       put a new meld on the table
``layoff 10H JH 3``     lay off cards onto the table meld with id 3 (anyone's)
``discard 8C``          discard; it stays *pending* (undoable) until ``commit``
``undo``                take back the most recent undoable step of this turn
``commit``              finalize the pending discard (the grace window ended)
``next``                start the next hand after a hand is over
======================  =====================================================================

Card lists in ``meld``/``layoff`` are kept in display order, so ``parse_action("meld 9H 7H
8H")`` equals ``parse_action("meld 7H 8H 9H")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gameshack.rules.common import MalformedAction
from gameshack.rules.rummy.cards import Card, card_str, cards_str, parse_card, parse_cards
from gameshack.rules.rummy.melds import order_meld

__all__ = [
    "Action",
    "Commit",
    "Deal",
    "Discard",
    "Draw",
    "LayOff",
    "Meld",
    "NextHand",
    "Take",
    "Undo",
    "parse_action",
]


@dataclass(frozen=True, slots=True)
class Deal:
    def __str__(self) -> str:
        return "deal"


@dataclass(frozen=True, slots=True)
class Draw:
    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Take:
    """Take ``card`` from the discard pile with every card above it (the top card alone when
    ``card`` is the top)."""

    card: Card

    def __str__(self) -> str:
        return f"take {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class Meld:
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", order_meld(self.cards))

    def __str__(self) -> str:
        return f"meld {cards_str(self.cards)}"


@dataclass(frozen=True, slots=True)
class LayOff:
    cards: tuple[Card, ...]
    meld_id: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", order_meld(self.cards))

    def __str__(self) -> str:
        return f"layoff {cards_str(self.cards)} {self.meld_id}"


@dataclass(frozen=True, slots=True)
class Discard:
    card: Card

    def __str__(self) -> str:
        return f"discard {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class Undo:
    def __str__(self) -> str:
        return "undo"


@dataclass(frozen=True, slots=True)
class Commit:
    def __str__(self) -> str:
        return "commit"


@dataclass(frozen=True, slots=True)
class NextHand:
    def __str__(self) -> str:
        return "next"


Action = Deal | Draw | Take | Meld | LayOff | Discard | Undo | Commit | NextHand

# Shared instances for the legal-action generator (actions are immutable values, so sharing is
# safe and saves an allocation per listed action).
DRAW: Final = Draw()
COMMIT: Final = Commit()
UNDO: Final = Undo()
TAKES: Final[tuple[Take, ...]] = tuple(Take(c) for c in range(52))
DISCARDS: Final[tuple[Discard, ...]] = tuple(Discard(c) for c in range(52))


# The legal-action generator lists the same few hundred melds and lay-offs over and over: one
# shared instance each (plain constructors, so this works compiled too). Bounded: only valid
# melds and lay-offs come here, and the caches are cleared if they ever grow past that.
_MELD_ACTIONS: Final[dict[tuple[Card, ...], Meld]] = {}
_LAYOFF_ACTIONS: Final[dict[tuple[tuple[Card, ...], int], LayOff]] = {}


def meld_in_order(cards: tuple[Card, ...]) -> Meld:
    """The :class:`Meld` of ``cards`` (hot path: a shared instance)."""
    m = _MELD_ACTIONS.get(cards)
    if m is None:
        if len(_MELD_ACTIONS) >= 4096:
            _MELD_ACTIONS.clear()
        m = _MELD_ACTIONS[cards] = Meld(cards)
    return m


def layoff_in_order(cards: tuple[Card, ...], meld_id: int) -> LayOff:
    """The :class:`LayOff` of ``cards`` onto ``meld_id`` (hot path: a shared instance)."""
    key = (cards, meld_id)
    a = _LAYOFF_ACTIONS.get(key)
    if a is None:
        if len(_LAYOFF_ACTIONS) >= 4096:
            _LAYOFF_ACTIONS.clear()
        a = _LAYOFF_ACTIONS[key] = LayOff(cards, meld_id)
    return a


_BARE: dict[str, Action] = {
    "deal": Deal(),
    "draw": Draw(),
    "undo": Undo(),
    "commit": Commit(),
    "next": NextHand(),
}


def parse_action(text: str) -> Action:
    """Parse the notation above; raise :class:`MalformedAction` for anything else."""
    if not isinstance(text, str):
        raise MalformedAction(f"an action is text, not {type(text).__name__}")
    words = text.split()
    if not words:
        raise MalformedAction("empty action")
    verb, args = words[0].lower(), words[1:]
    if verb in _BARE:
        if args:
            raise MalformedAction(f"{verb!r} takes no arguments")
        return _BARE[verb]
    if verb in ("take", "discard"):
        if len(args) != 1:
            raise MalformedAction(f"{verb!r} takes exactly one card, like '{verb} 7H'")
        card = parse_card(args[0])
        return Take(card) if verb == "take" else Discard(card)
    if verb == "meld":
        if not args:
            raise MalformedAction("'meld' needs cards, like 'meld 7H 8H 9H'")
        return Meld(parse_cards(" ".join(args)))
    if verb == "layoff":
        if len(args) < 2 or not (args[-1].isascii() and args[-1].isdigit()) or len(args[-1]) > 6:
            raise MalformedAction("'layoff' needs cards then a meld id, like 'layoff 10H 3'")
        return LayOff(parse_cards(" ".join(args[:-1])), int(args[-1]))
    raise MalformedAction(f"unknown action {words[0]!r}")
