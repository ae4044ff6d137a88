"""The match state and the one function that changes it, :func:`apply`.

A :class:`State` is an immutable NamedTuple (cheap to copy with ``_replace``, which keeps
random play fast). It holds the *current* position, including the active seat's turn in
progress, plus a snapshot of what is *public* (``pub_*``: what everyone saw at the last
commit). The active seat's draw, melds, lay-offs and pending discard live in the current fields
and in ``steps`` (for undo) and ``turn_events`` (the log entries that become public at commit).

Chance comes only from ``seed``: the first-deal deck, every hand's deal and every reshuffle use
:func:`gameshack.rules.common.derive_rng` with their own labels, so a match replays exactly from
``(seed, actions)``.
"""

from __future__ import annotations

import enum
import random
from typing import Final, NamedTuple

from gameshack.rules.common import IllegalAction, Outcome, Termination, derive_rng
from gameshack.rules.rummy.actions import (
    COMMIT,
    DISCARDS,
    DRAW,
    TAKES,
    UNDO,
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
    layoff_in_order,
    meld_in_order,
)
from gameshack.rules.rummy.cards import Card, card_str, card_value, cards_str
from gameshack.rules.rummy.config import Config
from gameshack.rules.rummy.melds import (
    TableMeld,
    can_use_card,
    hand_mask,
    layoff_result,
    layoffs_of_mask,
    meld_kind,
    melds_of_mask,
    need_of_mask,
    order_meld,
    pickups_of_mask,
    tuple_mask,
)

__all__ = [
    "DRAW_STAGE",
    "PENDING_STAGE",
    "PLAY_STAGE",
    "Event",
    "HandResult",
    "Phase",
    "State",
    "Step",
    "apply",
    "first_draw_key",
    "legal_actions",
    "match_outcome",
    "new_match",
    "outcome",
    "pending_discard",
    "to_act",
    "usable_pickup",
]


class Phase(enum.Enum):
    DEAL_DRAW = "deal_draw"  # the first-deal draw: every seat reveals one card
    PLAYING = "playing"
    HAND_OVER = "hand_over"  # a hand ended; ``next`` deals the next one
    MATCH_OVER = "match_over"  # the target was reached


# The active seat's progress through its turn.
DRAW_STAGE: Final = 0  # must draw (stock or discard pile)
PLAY_STAGE: Final = 1  # may meld / lay off, must discard
PENDING_STAGE: Final = 2  # discarded; ``commit`` ends the turn, ``undo`` takes the discard back
STAGE_NAMES: Final = ("draw", "play", "pending")


class Step(NamedTuple):
    """One undoable step of the turn in progress: ``take`` (cards bottom to top), ``meld``,
    ``layoff`` (onto ``meld_id``) or ``discard``."""

    kind: str
    cards: tuple[Card, ...]
    meld_id: int = -1


class Event(NamedTuple):
    """One public fact of the hand's log. ``kind`` is one of ``deal`` (hand dealt, ``seat``
    starts, ``cards`` = the turned-up discard), ``draw`` (from the stock; the card is private),
    ``take`` (cards taken from the discard pile, bottom to top), ``meld``, ``layoff``,
    ``discard``, ``reshuffle`` (``meld_id`` holds the new stock size), ``out`` (``seat`` went
    out), ``stock_exhausted`` (nothing left to draw) and ``blocked`` (a whole reshuffled draw
    pile went by without a meld or lay-off); the last two end the hand with no winner."""

    seat: int
    kind: str
    cards: tuple[Card, ...] = ()
    meld_id: int = -1

    def __str__(self) -> str:
        who = f"seat {self.seat}"
        k = self.kind
        if k == "deal":
            return f"{who} starts; {cards_str(self.cards)} turned up"
        if k == "draw":
            return f"{who} drew from stock"
        if k == "take":
            return f"{who} took {cards_str(self.cards)} from discard"
        if k == "meld":
            return f"{who} melded {cards_str(self.cards)} as #{self.meld_id}"
        if k == "layoff":
            return f"{who} laid off {cards_str(self.cards)} on #{self.meld_id}"
        if k == "discard":
            return f"{who} discarded {cards_str(self.cards)}"
        if k == "reshuffle":
            return f"discard pile reshuffled into a stock of {self.meld_id}"
        if k == "out":
            return f"{who} went out"
        if k == "blocked":
            return "no meld or lay-off through a whole draw pile: hand over, no winner"
        return "nothing left to draw: hand over, no winner"

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"seat": self.seat, "kind": self.kind, "text": str(self)}
        if self.cards:
            d["cards"] = [card_str(c) for c in self.cards]
        if self.kind in ("meld", "layoff"):
            d["meld"] = self.meld_id
        if self.kind == "reshuffle":
            d["stock"] = self.meld_id
        return d


class HandResult(NamedTuple):
    """How a hand ended and its score breakdown (per seat)."""

    hand_no: int
    reason: Termination
    winner: int  # -1: no winner
    scores: tuple[int, ...]  # this hand's points
    played: tuple[int, ...]  # value melded/laid off this hand
    in_hand: tuple[int, ...]  # value left in hand
    cards_left: tuple[int, ...]  # number of cards left in hand
    one_turn_out: bool  # the winner played everything in the final turn: doubled
    totals: tuple[int, ...]  # running totals after this hand

    def to_dict(self) -> dict[str, object]:
        return {
            "hand_no": self.hand_no,
            "reason": self.reason.value,
            "winner": None if self.winner < 0 else self.winner,
            "scores": list(self.scores),
            "played": list(self.played),
            "in_hand": list(self.in_hand),
            "cards_left": list(self.cards_left),
            "one_turn_out": self.one_turn_out,
            "totals": list(self.totals),
        }


class State(NamedTuple):
    config: Config
    seed: int
    phase: Phase
    hand_no: int  # 1-based; 0 during the first-deal draw
    first_draw: tuple[int, ...]  # card each seat drew for first deal, -1 = not yet
    first_winner: int  # -1 until everyone drew
    starter: int  # seat that started the current hand
    turn: int  # whose turn (PLAYING)
    hands: tuple[tuple[Card, ...], ...]  # current, sorted; includes the turn in progress
    stock: tuple[Card, ...]  # last element is the top
    discard: tuple[Card, ...]  # last element is the top
    melds: tuple[TableMeld, ...]  # current; a meld's id is its index
    reshuffles: int  # reshuffles so far this hand (labels the next one's RNG)
    table_mark: int  # cards on the table when the stock last ran out after progress, -1
    mark_turn: int  # turn_no at that moment
    turn_no: int  # turns committed this hand
    stage: int  # DRAW_STAGE / PLAY_STAGE / PENDING_STAGE
    steps: tuple[Step, ...]  # undo stack of the turn in progress
    drawn: Card  # card drawn blind from the stock this turn, -1
    taken_top: Card  # single top card taken from the discard pile (may not discard it), -1
    picked: Card  # bottom card of a multi-card pickup (must be played this turn), -1
    pending: Card  # the pending discard, -1
    turn_events: tuple[Event, ...]  # this turn's public facts, published at commit
    pub_discard: tuple[Card, ...]
    pub_melds: tuple[TableMeld, ...]
    pub_counts: tuple[int, ...]
    pub_stock: int
    totals: tuple[int, ...]  # running match totals (before the current hand)
    results: tuple[HandResult, ...]  # every finished hand of the match
    log: tuple[Event, ...]  # public events of the current hand, committed ones only


_INDEX: Final = {name: i for i, name in enumerate(State._fields)}


def _rep(state: State, **changes: object) -> State:
    """``state._replace(**changes)``, several times faster (it is on every action's path)."""
    values = list(state)
    index = _INDEX
    for name, value in changes.items():
        values[index[name]] = value
    return State._make(values)


_new: Final = tuple.__new__  # State(...) without the keyword handling: the hot paths build lists
# Field positions, for the hot paths that copy a state as a list (checked below). Literal and
# Final, so that compiled code uses them as constants.
_HANDS: Final = 8
_STOCK: Final = 9
_DISCARD: Final = 10
_MELDS: Final = 11
_TURN_NO: Final = 15
_STAGE: Final = 16
_STEPS: Final = 17
_DRAWN: Final = 18
_TAKEN_TOP: Final = 19
_PICKED: Final = 20
_PENDING: Final = 21
_TURN_EVENTS: Final = 22
_TURN: Final = 7
_LOG: Final = 29
_PUB_DISCARD: Final = 23
_PUB_MELDS: Final = 24
_PUB_COUNTS: Final = 25
_PUB_STOCK: Final = 26
assert [_INDEX[f] for f in ("hands", "stock", "discard", "melds", "turn_no", "stage", "steps")] == [
    _HANDS,
    _STOCK,
    _DISCARD,
    _MELDS,
    _TURN_NO,
    _STAGE,
    _STEPS,
]
assert [_INDEX[f] for f in ("drawn", "taken_top", "picked", "pending", "turn_events", "turn")] == [
    _DRAWN,
    _TAKEN_TOP,
    _PICKED,
    _PENDING,
    _TURN_EVENTS,
    _TURN,
]
assert [_INDEX[f] for f in ("log", "pub_discard", "pub_melds", "pub_counts", "pub_stock")] == [
    _LOG,
    _PUB_DISCARD,
    _PUB_MELDS,
    _PUB_COUNTS,
    _PUB_STOCK,
]
_PLAYING: Final = Phase.PLAYING
# Shared immutable values for the hottest steps and events.
_DRAW_EVENTS: Final = tuple(Event(s, "draw") for s in range(4))
_DISCARD_STEPS: Final = tuple(Step("discard", (c,)) for c in range(52))
_DISCARD_EVENTS: Final = tuple(
    tuple(Event(s, "discard", (c,)) for c in range(52)) for s in range(4)
)


def new_match(config: Config, seed: int) -> State:
    """A new match, in the first-deal draw."""
    n = config.seats
    return State(
        config=config,
        seed=seed,
        phase=Phase.DEAL_DRAW,
        hand_no=0,
        first_draw=(-1,) * n,
        first_winner=-1,
        starter=-1,
        turn=-1,
        hands=((),) * n,
        stock=(),
        discard=(),
        melds=(),
        reshuffles=0,
        table_mark=-1,
        mark_turn=0,
        turn_no=0,
        stage=DRAW_STAGE,
        steps=(),
        drawn=-1,
        taken_top=-1,
        picked=-1,
        pending=-1,
        turn_events=(),
        pub_discard=(),
        pub_melds=(),
        pub_counts=(0,) * n,
        pub_stock=0,
        totals=(0,) * n,
        results=(),
        log=(),
    )


def first_draw_key(card: Card) -> tuple[int, int]:
    """Higher wins the first-deal draw: rank with the ace high, then suit S > H > D > C."""
    rank = card % 13
    return (13 if rank == 0 else rank, 3 - card // 13)


def _shuffle(rng: random.Random, cards: list[Card]) -> None:
    """``rng.shuffle(cards)``: the same permutation from the same calls to ``getrandbits``
    (CPython's Fisher-Yates with rejection sampling), without a Python-level call per card, so
    that it runs as fast as the rest of the engine when compiled. A test compares the two."""
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _first_draw_deck(seed: int) -> list[Card]:
    deck = list(range(52))
    _shuffle(derive_rng(seed, "first_draw"), deck)
    return deck


def _deal(state: State, hand_no: int, starter: int) -> State:
    n = state.config.seats
    k = state.config.hand_size
    deck = list(range(52))
    _shuffle(derive_rng(state.seed, "deal", hand_no), deck)
    # Dealt one at a time from the starter round the table; the next card is turned up.
    hands = [deck[((i - starter) % n) :: n][:k] for i in range(n)]
    hands_t = tuple(tuple(sorted(h)) for h in hands)
    up = deck[n * k]
    stock = tuple(deck[n * k + 1 :])
    return _rep(
        state,
        phase=Phase.PLAYING,
        hand_no=hand_no,
        starter=starter,
        turn=starter,
        hands=hands_t,
        stock=stock,
        discard=(up,),
        melds=(),
        reshuffles=0,
        table_mark=-1,
        mark_turn=0,
        turn_no=0,
        stage=DRAW_STAGE,
        steps=(),
        drawn=-1,
        taken_top=-1,
        picked=-1,
        pending=-1,
        turn_events=(),
        pub_discard=(up,),
        pub_melds=(),
        pub_counts=(k,) * n,
        pub_stock=len(stock),
        log=(Event(starter, "deal", (up,)),),
    )


def to_act(state: State) -> frozenset[int]:
    """The seats that may act now."""
    phase = state.phase
    if phase is Phase.PLAYING:
        return frozenset((state.turn,))
    if phase is Phase.DEAL_DRAW:
        return frozenset(s for s, c in enumerate(state.first_draw) if c < 0)
    if phase is Phase.HAND_OVER:
        return frozenset(range(state.config.seats))
    return frozenset()


def pending_discard(state: State) -> bool:
    """A discard is waiting for ``commit`` (the grace window)."""
    return state.phase is Phase.PLAYING and state.stage == PENDING_STAGE


def _picked_still_playable(
    picked: Card, rest: tuple[Card, ...], melds: tuple[TableMeld, ...]
) -> bool:
    """After a play that did not use it, the picked card can still be melded or laid off and
    leave a card to discard."""
    need = can_use_card(picked, rest, melds)
    return need > 0 and len(rest) - need >= 1


def usable_pickup(state: State, card: Card) -> bool:
    """Whether the active seat may take ``card`` from below the top of the discard pile: with the
    cards above it and its hand, it can meld or lay off ``card`` and still keep one card to
    discard."""
    d = state.discard
    if card not in d:
        return False
    taken = d[d.index(card) :]
    hand = state.hands[state.turn]
    need = can_use_card(card, hand + taken, state.melds)
    return need > 0 and len(hand) + len(taken) - need >= 1


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a deterministic order. The single source of
    truth: :func:`apply` accepts exactly these (up to card order within a meld/lay-off).

    Order: ``draw``, ``take`` (top first, then deeper cards top-down); ``meld``s (sets by rank,
    then runs), ``layoff``s (by meld id, fewer cards first), ``discard``s (hand order),
    ``undo``; when a discard is pending, ``commit`` then ``undo``.
    """
    phase = state.phase
    if phase is _PLAYING:
        if seat != state.turn:
            return []
        stage = state.stage
        if stage == DRAW_STAGE:
            out: list[Action] = [DRAW] if state.stock else []
            d = state.discard
            if d:
                out.append(TAKES[d[-1]])
                if len(d) > 1:
                    hand = state.hands[seat]
                    takes = TAKES
                    out += [
                        takes[d[i]]
                        for i in pickups_of_mask(tuple_mask(hand), len(hand), d, state.melds)
                    ]
            return out
        if stage == PENDING_STAGE:
            return [COMMIT, UNDO]
        return _play_actions(state, seat)
    if phase is Phase.DEAL_DRAW:
        return [Deal()] if 0 <= seat < len(state.first_draw) and state.first_draw[seat] < 0 else []
    if phase is Phase.HAND_OVER:
        return [NextHand()] if 0 <= seat < state.config.seats else []
    return []


def _play_actions(state: State, seat: int) -> list[Action]:
    hand = state.hands[seat]
    taken_top, picked = state.taken_top, state.picked
    h = tuple_mask(hand)
    n = len(hand)
    melds = state.melds
    # A play leaves a discardable card iff more cards remain than non-discardable ones.
    top_held = taken_top >= 0 and h >> taken_top & 1
    picked_held = picked >= 0 and h >> picked & 1
    if not top_held and not picked_held:
        # The common case (a draw from the stock): any meld or lay-off that keeps a card.
        out: list[Action] = [meld_in_order(c) for c in melds_of_mask(h) if len(c) < n]
        if melds:
            out += [layoff_in_order(c, mid) for c, mid in layoffs_of_mask(h, melds) if len(c) < n]
        discards = DISCARDS
        out += [discards[c] for c in hand]
        if state.steps:
            out.append(UNDO)
        return out
    if taken_top >= 0 and not (top_held and picked_held):
        # The top card of the discard pile was taken: it may be played but not discarded, so a
        # play must keep one more card when it does not use it.
        out = [
            meld_in_order(c) for c in melds_of_mask(h) if len(c) < (n if taken_top in c else n - 1)
        ]
        if melds:
            out += [
                layoff_in_order(c, mid)
                for c, mid in layoffs_of_mask(h, melds)
                if len(c) < (n if taken_top in c else n - 1)
            ]
        discards = DISCARDS
        out += [discards[c] for c in hand if c != taken_top]
        if state.steps:
            out.append(UNDO)
        return out
    blockers = [c for c in (taken_top, picked) if c >= 0 and h >> c & 1]
    owed = picked >= 0 and picked in hand
    out = []
    # While the picked card is owed, a play that does not use it must leave it playable (with
    # one card to spare for the discard): the checks of _check_picked, on masks.
    for cards in melds_of_mask(h):
        k = len(cards)
        if n - k <= sum(1 for b in blockers if b not in cards):
            continue
        if owed and picked not in cards:
            new = TableMeld(len(melds), meld_kind(cards) or "", cards, ())
            need = need_of_mask(picked, h & ~hand_mask(cards), (*melds, new))
            if not need or n - k - need < 1:
                continue
        out.append(meld_in_order(cards))
    if melds:
        for cards, mid in layoffs_of_mask(h, melds):
            k = len(cards)
            if n - k <= sum(1 for b in blockers if b not in cards):
                continue
            if owed and picked not in cards:
                old = melds[mid]
                grown = old._replace(cards=layoff_result(old, cards) or old.cards)
                table = (*melds[:mid], grown, *melds[mid + 1 :])
                need = need_of_mask(picked, h & ~hand_mask(cards), table)
                if not need or n - k - need < 1:
                    continue
            out.append(layoff_in_order(cards, mid))
    if not owed:
        discards = DISCARDS
        out += [discards[c] for c in hand if c != taken_top]
    if state.steps:
        out.append(UNDO)
    return out


def _table_count(melds: tuple[TableMeld, ...]) -> int:
    return sum(len(m.cards) for m in melds)


def _with_hand(
    hands: tuple[tuple[Card, ...], ...], seat: int, hand: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _add_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """``hand`` (sorted) with ``card`` inserted in order."""
    cards = list(hand)
    cards.append(card)
    cards.sort()
    return tuple(cards)


def _remove(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    if len(cards) == 1:
        c = cards[0]
        if c in hand:
            i = hand.index(c)
            return hand[:i] + hand[i + 1 :]
        return hand
    return tuple([c for c in hand if c not in cards])


def apply(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` plays ``action``, or raise :class:`IllegalAction`."""
    if state.phase is _PLAYING and type(seat) is int and seat == state.turn:
        # The usual actions of the seat to play, in the stage they belong to: every check of
        # :func:`_apply` before its dispatch passes, so go straight there.
        stage = state.stage
        if stage == PLAY_STAGE:
            if type(action) is Discard:
                return _discard(state, seat, action.card)
            if type(action) is Meld:
                return _meld(state, seat, action.cards)
            if type(action) is LayOff:
                return _layoff(state, seat, action.cards, action.meld_id)
        elif stage == PENDING_STAGE:
            if type(action) is Commit:
                return _commit(state, seat)
        elif type(action) is Draw:
            return _draw(state, seat)
        elif type(action) is Take:
            return _take(state, seat, action.card)
    return _apply(state, seat, action)


def _apply(state: State, seat: int, action: Action) -> State:
    n = state.config.seats
    if not isinstance(seat, int) or not 0 <= seat < n:
        raise IllegalAction("no_such_seat", f"there is no seat {seat!r} in a {n}-seat game")
    phase = state.phase
    kind = type(action)
    if phase is Phase.PLAYING:
        if kind in (Deal, NextHand):
            raise IllegalAction("wrong_phase", f"'{action}' is not possible while a hand is played")
        if seat != state.turn:
            raise IllegalAction("not_your_turn", f"it is seat {state.turn}'s turn")
        stage = state.stage
        if kind is Commit:
            if stage != PENDING_STAGE:
                raise IllegalAction("no_pending_discard", "there is no discard to commit")
            return _commit(state, seat)
        if kind is Undo:
            return _undo(state, seat)
        if stage == PENDING_STAGE:
            raise IllegalAction(
                "discard_pending", "you have discarded: undo it or wait for the turn to end"
            )
        if kind is Draw or kind is Take:
            if stage != DRAW_STAGE:
                raise IllegalAction("already_drew", "you have already drawn this turn")
            if kind is Draw:
                return _draw(state, seat)
            assert isinstance(action, Take)
            return _take(state, seat, action.card)
        if stage == DRAW_STAGE:
            raise IllegalAction("must_draw_first", "draw a card first")
        if isinstance(action, Meld):
            return _meld(state, seat, action.cards)
        if isinstance(action, LayOff):
            return _layoff(state, seat, action.cards, action.meld_id)
        if isinstance(action, Discard):
            return _discard(state, seat, action.card)
        raise IllegalAction("malformed", f"not a Rummy action: {action!r}")
    if phase is Phase.DEAL_DRAW:
        if kind is not Deal:
            raise IllegalAction("wrong_phase", "everyone first draws a card for the first deal")
        if state.first_draw[seat] >= 0:
            raise IllegalAction("already_drew_for_deal", "you have already drawn for first deal")
        return _first_draw(state, seat)
    if phase is Phase.HAND_OVER:
        if kind is not NextHand:
            raise IllegalAction("hand_over", "the hand is over: 'next' deals the next one")
        return _deal(state, state.hand_no + 1, (state.starter + 1) % n)
    raise IllegalAction("match_over", "the match is over")


def _first_draw(state: State, seat: int) -> State:
    k = sum(1 for c in state.first_draw if c >= 0)
    card = _first_draw_deck(state.seed)[k]
    first = (*state.first_draw[:seat], card, *state.first_draw[seat + 1 :])
    state = _rep(state, first_draw=first)
    if k + 1 < len(first):
        return state
    winner = max(range(len(first)), key=lambda s: first_draw_key(first[s]))
    return _deal(_rep(state, first_winner=winner), 1, winner)


def _draw(state: State, seat: int) -> State:
    if not state.stock:
        raise IllegalAction("stock_empty", "the draw pile is empty")
    stock = state.stock
    card = stock[-1]
    values = list(state)
    values[_HANDS] = _with_hand(state.hands, seat, _add_card(state.hands[seat], card))
    values[_STOCK] = stock[:-1]
    values[_STAGE] = PLAY_STAGE
    values[_DRAWN] = card
    values[_STEPS] = ()  # a blind draw can never be undone
    values[_TURN_EVENTS] = (*state.turn_events, _DRAW_EVENTS[seat])
    # An empty stock is replenished when this turn is committed: nobody else can draw before
    # then, and the drawer cannot draw twice, so this is the same as "at once" to every player.
    return _new(State, values)


def _take(state: State, seat: int, card: Card) -> State:
    d = state.discard
    if d and d[-1] == card:
        i = len(d) - 1
    elif card in d:
        i = d.index(card)
    else:
        raise IllegalAction("card_not_in_discard", f"{card_str(card)} is not in the discard pile")
    taken = d[i:]
    hand = state.hands[seat]
    if len(taken) > 1:
        need = can_use_card(card, hand + taken, state.melds)
        if not need or len(hand) + len(taken) - need < 1:
            raise IllegalAction(
                "cannot_use_picked_card",
                f"you could not meld or lay off {card_str(card)} this turn, so you may not "
                "pick it up from under other cards",
            )
    values = list(state)
    if len(taken) == 1:
        values[_HANDS] = _with_hand(state.hands, seat, _add_card(hand, card))
    else:
        values[_HANDS] = _with_hand(state.hands, seat, tuple(sorted(hand + taken)))
    values[_DISCARD] = d[:i]
    values[_STAGE] = PLAY_STAGE
    values[_STEPS] = (_new(Step, ("take", taken, -1)),)
    if len(taken) == 1:
        values[_TAKEN_TOP] = card
        values[_PICKED] = -1
    else:
        values[_TAKEN_TOP] = -1
        values[_PICKED] = card
    values[_TURN_EVENTS] = (*state.turn_events, _new(Event, (seat, "take", taken, -1)))
    return _new(State, values)


def _check_in_hand(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> None:
    if len(set(cards)) != len(cards):
        raise IllegalAction("duplicate_card", "a card is listed twice")
    for c in cards:
        if c not in hand:
            raise IllegalAction("card_not_in_hand", f"{card_str(c)} is not in your hand")


def _check_leaves_discard(state: State, rest: tuple[Card, ...]) -> None:
    # Some card of ``rest`` is neither the taken top card nor the picked card (cards are
    # distinct, so counting them is enough).
    left = len(rest)
    taken_top, picked = state.taken_top, state.picked
    if taken_top >= 0 and taken_top in rest:
        left -= 1
    if picked >= 0 and picked != taken_top and picked in rest:
        left -= 1
    if left <= 0:
        raise IllegalAction(
            "no_discard_left",
            "that would leave you no card you may discard (you go out by discarding)",
        )


def _check_picked(state: State, rest: tuple[Card, ...], melds: tuple[TableMeld, ...]) -> None:
    """While the picked card of a multi-card pickup is unplayed, no other play may make it
    unplayable: the player could otherwise never discard."""
    p = state.picked
    if p >= 0 and p in rest and not _picked_still_playable(p, rest, melds):
        raise IllegalAction(
            "picked_card_unplayable",
            f"that would leave no way to meld or lay off {card_str(p)}, the card you picked up",
        )


def _meld(state: State, seat: int, cards: tuple[Card, ...]) -> State:
    hand = state.hands[seat]
    _check_in_hand(hand, cards)
    kind = meld_kind(cards)
    if kind is None:
        raise IllegalAction(
            "invalid_meld",
            f"{cards_str(cards)} is not a meld (3-4 of a rank, or 3+ in suit sequence)",
        )
    rest = _remove(hand, cards)
    _check_leaves_discard(state, rest)
    ordered = order_meld(cards)
    mid = len(state.melds)
    meld = _new(TableMeld, (mid, kind, ordered, (seat,) * len(ordered)))
    melds = (*state.melds, meld)
    _check_picked(state, rest, melds)
    values = list(state)
    values[_HANDS] = _with_hand(state.hands, seat, rest)
    values[_MELDS] = melds
    values[_STEPS] = (*state.steps, _new(Step, ("meld", ordered, mid)))
    values[_TURN_EVENTS] = (*state.turn_events, _new(Event, (seat, "meld", ordered, mid)))
    return _new(State, values)


def _layoff(state: State, seat: int, cards: tuple[Card, ...], mid: int) -> State:
    if not 0 <= mid < len(state.melds):
        raise IllegalAction("no_such_meld", f"there is no meld #{mid} on the table")
    hand = state.hands[seat]
    _check_in_hand(hand, cards)
    meld = state.melds[mid]
    result = layoff_result(meld, cards)
    if result is None:
        raise IllegalAction(
            "invalid_layoff", f"{cards_str(cards)} does not extend meld #{mid} ({meld})"
        )
    rest = _remove(hand, cards)
    _check_leaves_discard(state, rest)
    owner = dict(zip(meld.cards, meld.owners, strict=True))
    owners = tuple([owner.get(c, seat) for c in result])
    new = _new(TableMeld, (meld.id, meld.kind, result, owners))
    melds = (*state.melds[:mid], new, *state.melds[mid + 1 :])
    _check_picked(state, rest, melds)
    ordered = cards if len(cards) == 1 else order_meld(cards)
    values = list(state)
    values[_HANDS] = _with_hand(state.hands, seat, rest)
    values[_MELDS] = melds
    values[_STEPS] = (*state.steps, _new(Step, ("layoff", ordered, mid)))
    values[_TURN_EVENTS] = (*state.turn_events, _new(Event, (seat, "layoff", ordered, mid)))
    return _new(State, values)


def _discard(state: State, seat: int, card: Card) -> State:
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction("card_not_in_hand", f"{card_str(card)} is not in your hand")
    if card == state.taken_top:
        raise IllegalAction(
            "cannot_discard_taken_card",
            f"you took {card_str(card)} from the discard pile this turn: discard another card",
        )
    if state.picked >= 0 and state.picked in hand:
        raise IllegalAction(
            "must_play_picked_card",
            f"meld or lay off {card_str(state.picked)} (the card you picked up) before discarding",
        )
    i = hand.index(card)
    values = list(state)
    values[_HANDS] = _with_hand(state.hands, seat, hand[:i] + hand[i + 1 :])
    values[_STAGE] = PENDING_STAGE
    values[_PENDING] = card
    values[_STEPS] = (*state.steps, _DISCARD_STEPS[card])
    return _new(State, values)


def _undo(state: State, seat: int) -> State:
    if not state.steps:
        if state.stage == PLAY_STAGE:
            raise IllegalAction("cannot_undo_draw", "a card drawn from the stock cannot be undone")
        raise IllegalAction("nothing_to_undo", "there is nothing to undo")
    step = state.steps[-1]
    steps = state.steps[:-1]
    hand = state.hands[seat]
    if step.kind == "discard":
        return _rep(
            state,
            hands=_with_hand(state.hands, seat, tuple(sorted((*hand, step.cards[0])))),
            stage=PLAY_STAGE,
            pending=-1,
            steps=steps,
        )
    events = state.turn_events[:-1]
    back = tuple(sorted(hand + step.cards))
    if step.kind == "meld":
        return _rep(
            state,
            hands=_with_hand(state.hands, seat, back),
            melds=state.melds[:-1],
            steps=steps,
            turn_events=events,
        )
    if step.kind == "layoff":
        mid = step.meld_id
        meld = state.melds[mid]
        keep = [i for i, c in enumerate(meld.cards) if c not in step.cards]
        old = meld._replace(
            cards=order_meld([meld.cards[i] for i in keep]),
            owners=(),
        )
        owner = dict(zip(meld.cards, meld.owners, strict=True))
        old = old._replace(owners=tuple(owner[c] for c in old.cards))
        return _rep(
            state,
            hands=_with_hand(state.hands, seat, back),
            melds=(*state.melds[:mid], old, *state.melds[mid + 1 :]),
            steps=steps,
            turn_events=events,
        )
    # take: the cards go back on the discard pile in their order; the seat draws again.
    return _rep(
        state,
        hands=_with_hand(state.hands, seat, _remove(hand, step.cards)),
        discard=state.discard + step.cards,
        stage=DRAW_STAGE,
        steps=steps,
        taken_top=-1,
        picked=-1,
        turn_events=events,
    )


def _commit(state: State, seat: int) -> State:
    hands = state.hands
    if not hands[seat] or not state.stock:
        return _commit_and_end_or_reshuffle(state, seat)
    # The common case: the turn is over and what it did becomes public, in one copy.
    card = state.pending
    discard = (*state.discard, card)
    values = list(state)
    values[_DISCARD] = values[_PUB_DISCARD] = discard
    values[_PENDING] = -1
    values[_TURN_EVENTS] = ()
    values[_LOG] = state.log + state.turn_events + (_DISCARD_EVENTS[seat][card],)
    values[_TURN_NO] = state.turn_no + 1
    values[_TURN] = (seat + 1) % state.config.seats
    values[_STAGE] = DRAW_STAGE
    values[_STEPS] = ()
    values[_DRAWN] = values[_TAKEN_TOP] = values[_PICKED] = -1
    values[_PUB_MELDS] = state.melds
    values[_PUB_COUNTS] = tuple([len(h) for h in hands])
    values[_PUB_STOCK] = len(state.stock)
    return _new(State, values)


def _commit_and_end_or_reshuffle(state: State, seat: int) -> State:
    """Commit when the hand ends (went out) or the stock is empty (reshuffle or no winner)."""
    n = state.config.seats
    card = state.pending
    log = (*state.log, *state.turn_events, Event(seat, "discard", (card,)))
    state = _rep(state, discard=(*state.discard, card), pending=-1, turn_events=(), log=log)
    if not state.hands[seat]:
        return _end_hand(state, seat, Termination.WENT_OUT)
    turn_no = state.turn_no + 1
    if not state.stock:
        state = _rep(state, turn_no=turn_no)
        table = _table_count(state.melds)
        if table != state.table_mark:
            # Progress since the stock last ran out (or the first time): remember this moment.
            state = _rep(state, table_mark=table, mark_turn=turn_no)
        elif turn_no - state.mark_turn >= n:
            # The stock ran out again, a full round of turns later, with no meld or lay-off.
            return _end_hand(state, -1, Termination.BLOCKED)
        if len(state.discard) < 2:
            # Nothing left to draw and nothing beneath the discard top to reshuffle.
            return _end_hand(state, -1, Termination.STOCK_EXHAUSTED)
        # Draw pile empty: the discard pile except its top becomes the new (shuffled) stock.
        cards = list(state.discard[:-1])
        _shuffle(derive_rng(state.seed, "reshuffle", state.hand_no, state.reshuffles), cards)
        state = _rep(
            state,
            stock=tuple(cards),
            discard=state.discard[-1:],
            reshuffles=state.reshuffles + 1,
            log=(*state.log, Event(seat, "reshuffle", (), len(cards))),
        )
    # The turn is over: what it did becomes public (one copy: this is the hottest path).
    values = list(state)
    values[_TURN_NO] = turn_no
    values[_TURN] = (seat + 1) % n
    values[_STAGE] = DRAW_STAGE
    values[_STEPS] = ()
    values[_DRAWN] = values[_TAKEN_TOP] = values[_PICKED] = -1
    values[_PUB_DISCARD] = state.discard
    values[_PUB_MELDS] = state.melds
    values[_PUB_COUNTS] = tuple([len(h) for h in state.hands])
    values[_PUB_STOCK] = len(state.stock)
    return _new(State, values)


def _end_hand(state: State, winner: int, reason: Termination) -> State:
    n = state.config.seats
    played = [0] * n
    for meld in state.melds:
        for c, o in zip(meld.cards, meld.owners, strict=True):
            played[o] += card_value(c)
    in_hand = [sum(card_value(c) for c in h) for h in state.hands]
    scores = [played[s] - in_hand[s] for s in range(n)]
    one_turn = False
    if winner >= 0:
        # pub_melds is still the table as it stood before the winner's final turn.
        one_turn = not any(o == winner for m in state.pub_melds for o in m.owners)
        scores[winner] = played[winner] * (2 if one_turn else 1)
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    result = HandResult(
        hand_no=state.hand_no,
        reason=reason,
        winner=winner,
        scores=tuple(scores),
        played=tuple(played),
        in_hand=tuple(in_hand),
        cards_left=tuple(len(h) for h in state.hands),
        one_turn_out=one_turn,
        totals=totals,
    )
    target = state.config.target
    over = target is not None and max(totals) >= target
    last = Event(winner, "out") if winner >= 0 else Event(-1, reason.value)
    return _rep(
        state,
        phase=Phase.MATCH_OVER if over else Phase.HAND_OVER,
        stage=DRAW_STAGE,
        steps=(),
        drawn=-1,
        taken_top=-1,
        picked=-1,
        pending=-1,
        turn_events=(),
        pub_discard=state.discard,
        pub_melds=state.melds,
        pub_counts=tuple(len(h) for h in state.hands),
        pub_stock=len(state.stock),
        totals=totals,
        results=(*state.results, result),
        log=(*state.log, *state.turn_events, last),
    )


def outcome(state: State) -> Outcome | None:
    """The current hand's result once it is over (HAND_OVER / MATCH_OVER), else None."""
    if state.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER) or not state.results:
        return None
    r = state.results[-1]
    return Outcome(r.reason, (r.winner,) if r.winner >= 0 else (), r.scores)


def match_outcome(state: State) -> Outcome | None:
    """The match result once the target is reached: the highest total wins (several seats on a
    tie, not necessarily who reached the target); ``scores`` are the final totals."""
    if state.phase is not Phase.MATCH_OVER:
        return None
    best = max(state.totals)
    winners = tuple(s for s, t in enumerate(state.totals) if t == best)
    return Outcome(Termination.TARGET_REACHED, winners, state.totals)
