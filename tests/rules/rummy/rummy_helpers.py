"""Build Rummy positions from card notation, so scenario tests read like the game."""

from __future__ import annotations

import random

from gameshack.rules.rummy import (
    Commit,
    Config,
    Deal,
    Phase,
    State,
    TableMeld,
    Undo,
    apply,
    legal_actions,
    meld_kind,
    new_match,
    order_meld,
    parse_action,
    parse_cards,
    to_act,
)


def position(
    hands: list[str],
    *,
    discard: str = "",
    stock: str | None = None,
    melds: list[tuple[str, int]] | None = None,
    turn: int = 0,
    target: int | None = None,
    seed: int = 7,
) -> State:
    """A hand in progress, at the start of ``turn``'s turn.

    ``discard`` and ``stock`` list cards bottom to top; ``stock`` defaults to every card not
    placed elsewhere (in a fixed order). ``melds`` are (cards, owner) pairs, ids in order.
    """
    config = Config(seats=len(hands), target=target)
    hand_cards = [tuple(sorted(parse_cards(h))) for h in hands]
    table = []
    for i, (cards, owner) in enumerate(melds or []):
        parsed = order_meld(parse_cards(cards))
        kind = meld_kind(parsed)
        assert kind is not None, cards
        table.append(TableMeld(i, kind, parsed, (owner,) * len(parsed)))
    pile = parse_cards(discard)
    used = {c for h in hand_cards for c in h} | set(pile) | {c for m in table for c in m.cards}
    stock_cards = (
        parse_cards(stock) if stock is not None else tuple(c for c in range(52) if c not in used)
    )
    state = new_match(config, seed)
    melds_t = tuple(table)
    return state._replace(
        phase=Phase.PLAYING,
        hand_no=1,
        first_winner=turn,
        starter=turn,
        turn=turn,
        hands=tuple(hand_cards),
        stock=stock_cards,
        discard=pile,
        melds=melds_t,
        pub_discard=pile,
        pub_melds=melds_t,
        pub_counts=tuple(len(h) for h in hand_cards),
        pub_stock=len(stock_cards),
    )


def play(state: State, *moves: str) -> State:
    """Apply moves written ``"0: take 7H"`` (seat: action) in order."""
    for move in moves:
        seat, _, text = move.partition(":")
        state = apply(state, int(seat), parse_action(text))
    return state


def hand_of(state: State, seat: int) -> str:
    from gameshack.rules.rummy import cards_str

    return cards_str(state.hands[seat])


def started(seats: int, seed: int, target: int | None = None) -> State:
    """A match just past its first-deal draw (seats draw in seat order)."""
    state = new_match(Config(seats=seats, target=target), seed)
    for seat in range(seats):
        state = apply(state, seat, Deal())
    return state


def random_step(state: State, rng: random.Random, undo_rate: float = 0.1) -> State:
    """One uniformly random legal action by a seat that may act (undo only sometimes, so that
    hands make progress; a pending discard is committed unless undo is drawn)."""
    seat = min(to_act(state))
    legal = legal_actions(state, seat)
    others = [a for a in legal if not isinstance(a, Undo)]
    if not others or (len(others) < len(legal) and rng.random() < undo_rate):
        action = Undo()
    elif isinstance(others[0], Commit):
        action = others[0]
    else:
        action = rng.choice(others)
    return apply(state, seat, action)
