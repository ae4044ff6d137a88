"""Rummy (500-rum style) rules engine: pure, immutable, replayable from (seed, actions).

Rules and the error codes are documented in ``docs/rules-rummy.md``. Typical use::

    state = new_match(Config(seats=2, target=200), seed=42)
    state = apply(state, 0, parse_action("deal"))
    legal_actions(state, seat)      # the single source of truth
    view(state, seat).to_dict()     # the only thing a client may ever see
"""

from gameshack.rules.common import IllegalAction, MalformedAction, Outcome, Termination
from gameshack.rules.rummy.actions import (
    Action,
    Commit,
    Deal,
    Discard,
    Draw,
    LayOff,
    Meld,
    NextHand,
    Take,
    Undo,
    parse_action,
)
from gameshack.rules.rummy.cards import (
    ALL_CARDS,
    Card,
    card_str,
    card_value,
    cards_str,
    cards_value,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from gameshack.rules.rummy.config import TARGETS, Config
from gameshack.rules.rummy.melds import (
    TableMeld,
    can_use_card,
    find_layoffs,
    find_melds,
    layoff_result,
    meld_kind,
    order_meld,
)
from gameshack.rules.rummy.serial import state_from_dict, state_to_dict
from gameshack.rules.rummy.state import (
    Event,
    HandResult,
    Phase,
    State,
    apply,
    first_draw_key,
    legal_actions,
    match_outcome,
    new_match,
    outcome,
    pending_discard,
    to_act,
    usable_pickup,
)
from gameshack.rules.rummy.view import View, view

__all__ = [
    "ALL_CARDS",
    "TARGETS",
    "Action",
    "Card",
    "Commit",
    "Config",
    "Deal",
    "Discard",
    "Draw",
    "Event",
    "HandResult",
    "IllegalAction",
    "LayOff",
    "MalformedAction",
    "Meld",
    "NextHand",
    "Outcome",
    "Phase",
    "State",
    "TableMeld",
    "Take",
    "Termination",
    "Undo",
    "View",
    "apply",
    "can_use_card",
    "card_str",
    "card_value",
    "cards_str",
    "cards_value",
    "find_layoffs",
    "find_melds",
    "first_draw_key",
    "layoff_result",
    "legal_actions",
    "make_card",
    "match_outcome",
    "meld_kind",
    "new_match",
    "order_meld",
    "outcome",
    "parse_action",
    "parse_card",
    "parse_cards",
    "pending_discard",
    "rank_of",
    "state_from_dict",
    "state_to_dict",
    "suit_of",
    "to_act",
    "usable_pickup",
    "view",
]
