"""The match state and the one function that changes it, :func:`apply`.

A :class:`State` holds the *current* position, including the active seat's turn in progress,
plus a snapshot of what is *public* (``pub_*``: what everyone saw at the last commit). The
active seat's draw, melds, lay-offs and pending discard live in the current fields and in
``steps`` (for undo) and ``turn_events`` (the log entries that become public at commit).

Chance comes only from ``seed``: the first-deal deck, every hand's deal and every reshuffle use
:func:`gameshack.rules.common.derive_rng` with their own labels, so a match replays exactly from
``(seed, actions)``.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from dataclasses import dataclass
from typing import Any, Final, Literal

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
    laid_off,
    layoffs_of_mask,
    meld_kind,
    melds_of_mask,
    need_of_mask,
    order_meld,
    pickups_of_mask,
    tuple_mask,
)

__all__ = [
    "Event",
    "HandResult",
    "Phase",
    "Stage",
    "State",
    "Step",
    "apply",
    "first_draw_key",
    "hand_outcome",
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


class Stage(enum.Enum):
    """The active seat's progress through its turn."""

    DRAW = "draw"  # must draw (stock or discard pile)
    PLAY = "play"  # may meld / lay off, must discard
    PENDING = "pending"  # discarded; ``commit`` ends the turn, ``undo`` takes the discard back


# The names the test position builders import (from before Stage was an enum).
DRAW_STAGE: Final = Stage.DRAW
PLAY_STAGE: Final = Stage.PLAY


@dataclass(frozen=True, slots=True)
class Step:
    """One undoable step of the turn in progress: ``take`` (cards bottom to top), ``meld`` or
    ``layoff`` (made or grown meld ``meld_id``) or ``discard``."""

    kind: str
    cards: tuple[Card, ...]
    meld_id: int | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One public fact of the hand's log. ``kind`` is one of ``deal`` (hand dealt, ``seat``
    starts, ``cards`` = the turned-up discard), ``draw`` (from the stock; the card is private),
    ``take`` (cards taken from the discard pile, bottom to top), ``meld`` and ``layoff`` (onto
    meld ``meld_id``), ``discard``, ``reshuffle`` (the discard pile became a ``stock`` of that
    many cards, ``cards`` = the top card that stayed), ``out`` (``seat`` went out), ``stock_exhausted`` (nothing left to draw) and
    ``blocked`` (a whole reshuffled draw pile went by without a meld or lay-off); the last two
    end the hand with no winner and belong to no seat."""

    seat: int | None
    kind: str
    cards: tuple[Card, ...] = ()
    meld_id: int | None = None
    stock: int | None = None

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
            text = f"discard pile reshuffled into a stock of {self.stock}"
            # Saved games' older reshuffle events do not name the card that stayed.
            return f"{text}; {cards_str(self.cards)} stays on top" if self.cards else text
        if k == "out":
            return f"{who} went out"
        if k == "blocked":
            return "no meld or lay-off through a whole draw pile: hand over, no winner"
        return "nothing left to draw: hand over, no winner"

    def to_dict(self) -> dict[str, object]:
        # No words: the client words each kind itself, with the players' names (``str(self)``
        # is for logs and tests); they were a third of a view's bytes and a fifth of its CPU.
        d: dict[str, object] = {"seat": self.seat, "kind": self.kind}
        if self.cards:
            d["cards"] = [card_str(c) for c in self.cards]
        if self.meld_id is not None:
            d["meld"] = self.meld_id
        if self.stock is not None:
            d["stock"] = self.stock
        return d


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and its score breakdown (per seat)."""

    hand_no: int
    reason: Termination
    winner: int | None  # None: no winner
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
            "winner": self.winner,
            "scores": list(self.scores),
            "played": list(self.played),
            "in_hand": list(self.in_hand),
            "cards_left": list(self.cards_left),
            "one_turn_out": self.one_turn_out,
            "totals": list(self.totals),
        }


class _Keep(enum.Enum):
    """The default of :meth:`State.replace`'s arguments: keep that field as it is."""

    KEEP = "keep"


_KEEP: Final = _Keep.KEEP
_Kept = Literal[_Keep.KEEP]
Hands = tuple[tuple[Card, ...], ...]


@dataclass(init=False, slots=True)
class State:
    """A match, immutable: every field is Final (the compiled class refuses assignment).

    ``__init__`` and :meth:`replace` are written out rather than generated: a generated
    ``__init__`` (and ``dataclasses.replace``) runs as interpreted code even in the compiled
    build, and a state is made on every action."""

    config: Final[Config]
    seed: Final[int]
    phase: Final[Phase]
    hand_no: Final[int]  # 1-based; 0 during the first-deal draw
    first_draw: Final[tuple[Card | None, ...]]  # card each seat drew for first deal
    first_winner: Final[int | None]  # None until everyone drew
    starter: Final[int | None]  # seat that started the current hand
    turn: Final[int | None]  # whose turn (None before the first deal)
    hands: Final[Hands]  # current, sorted; includes the turn in progress
    stock: Final[tuple[Card, ...]]  # last element is the top
    discard: Final[tuple[Card, ...]]  # last element is the top
    melds: Final[tuple[TableMeld, ...]]  # current; a meld's id is its index
    reshuffles: Final[int]  # reshuffles so far this hand (labels the next one's RNG)
    table_mark: Final[int | None]  # cards on the table when the stock last ran out after progress
    mark_turn: Final[int]  # turn_no at that moment
    turn_no: Final[int]  # turns committed this hand
    stage: Final[Stage]
    steps: Final[tuple[Step, ...]]  # undo stack of the turn in progress
    drawn: Final[Card | None]  # card drawn blind from the stock this turn
    taken_top: Final[Card | None]  # single top card taken from the discard pile: not discardable
    picked: Final[Card | None]  # bottom card of a multi-card pickup: must be played this turn
    pending: Final[Card | None]  # the pending discard
    turn_events: Final[tuple[Event, ...]]  # this turn's public facts, published at commit
    pub_discard: Final[tuple[Card, ...]]
    pub_melds: Final[tuple[TableMeld, ...]]
    pub_counts: Final[tuple[int, ...]]
    pub_stock: Final[int]
    totals: Final[tuple[int, ...]]  # running match totals (before the current hand)
    results: Final[tuple[HandResult, ...]]  # every finished hand of the match
    log: Final[tuple[Event, ...]]  # public events of the current hand, committed ones only

    def __init__(
        self,
        *,
        config: Config,
        seed: int,
        phase: Phase,
        hand_no: int,
        first_draw: tuple[Card | None, ...],
        first_winner: int | None,
        starter: int | None,
        turn: int | None,
        hands: Hands,
        stock: tuple[Card, ...],
        discard: tuple[Card, ...],
        melds: tuple[TableMeld, ...],
        reshuffles: int,
        table_mark: int | None,
        mark_turn: int,
        turn_no: int,
        stage: Stage,
        steps: tuple[Step, ...],
        drawn: Card | None,
        taken_top: Card | None,
        picked: Card | None,
        pending: Card | None,
        turn_events: tuple[Event, ...],
        pub_discard: tuple[Card, ...],
        pub_melds: tuple[TableMeld, ...],
        pub_counts: tuple[int, ...],
        pub_stock: int,
        totals: tuple[int, ...],
        results: tuple[HandResult, ...],
        log: tuple[Event, ...],
    ) -> None:
        self.config = config
        self.seed = seed
        self.phase = phase
        self.hand_no = hand_no
        self.first_draw = first_draw
        self.first_winner = first_winner
        self.starter = starter
        self.turn = turn
        self.hands = hands
        self.stock = stock
        self.discard = discard
        self.melds = melds
        self.reshuffles = reshuffles
        self.table_mark = table_mark
        self.mark_turn = mark_turn
        self.turn_no = turn_no
        self.stage = stage
        self.steps = steps
        self.drawn = drawn
        self.taken_top = taken_top
        self.picked = picked
        self.pending = pending
        self.turn_events = turn_events
        self.pub_discard = pub_discard
        self.pub_melds = pub_melds
        self.pub_counts = pub_counts
        self.pub_stock = pub_stock
        self.totals = totals
        self.results = results
        self.log = log

    def replace(
        self,
        *,
        phase: Phase | _Kept = _KEEP,
        hand_no: int | _Kept = _KEEP,
        first_draw: tuple[Card | None, ...] | _Kept = _KEEP,
        first_winner: int | _Kept | None = _KEEP,
        starter: int | _Kept | None = _KEEP,
        turn: int | _Kept | None = _KEEP,
        hands: Hands | _Kept = _KEEP,
        stock: tuple[Card, ...] | _Kept = _KEEP,
        discard: tuple[Card, ...] | _Kept = _KEEP,
        melds: tuple[TableMeld, ...] | _Kept = _KEEP,
        reshuffles: int | _Kept = _KEEP,
        table_mark: int | _Kept | None = _KEEP,
        mark_turn: int | _Kept = _KEEP,
        turn_no: int | _Kept = _KEEP,
        stage: Stage | _Kept = _KEEP,
        steps: tuple[Step, ...] | _Kept = _KEEP,
        drawn: Card | _Kept | None = _KEEP,
        taken_top: Card | _Kept | None = _KEEP,
        picked: Card | _Kept | None = _KEEP,
        pending: Card | _Kept | None = _KEEP,
        turn_events: tuple[Event, ...] | _Kept = _KEEP,
        pub_discard: tuple[Card, ...] | _Kept = _KEEP,
        pub_melds: tuple[TableMeld, ...] | _Kept = _KEEP,
        pub_counts: tuple[int, ...] | _Kept = _KEEP,
        pub_stock: int | _Kept = _KEEP,
        totals: tuple[int, ...] | _Kept = _KEEP,
        results: tuple[HandResult, ...] | _Kept = _KEEP,
        log: tuple[Event, ...] | _Kept = _KEEP,
    ) -> State:
        """This state with the given fields changed (``config`` and ``seed`` never change)."""
        return State(
            config=self.config,
            seed=self.seed,
            phase=self.phase if phase is _KEEP else phase,
            hand_no=self.hand_no if hand_no is _KEEP else hand_no,
            first_draw=self.first_draw if first_draw is _KEEP else first_draw,
            first_winner=self.first_winner if first_winner is _KEEP else first_winner,
            starter=self.starter if starter is _KEEP else starter,
            turn=self.turn if turn is _KEEP else turn,
            hands=self.hands if hands is _KEEP else hands,
            stock=self.stock if stock is _KEEP else stock,
            discard=self.discard if discard is _KEEP else discard,
            melds=self.melds if melds is _KEEP else melds,
            reshuffles=self.reshuffles if reshuffles is _KEEP else reshuffles,
            table_mark=self.table_mark if table_mark is _KEEP else table_mark,
            mark_turn=self.mark_turn if mark_turn is _KEEP else mark_turn,
            turn_no=self.turn_no if turn_no is _KEEP else turn_no,
            stage=self.stage if stage is _KEEP else stage,
            steps=self.steps if steps is _KEEP else steps,
            drawn=self.drawn if drawn is _KEEP else drawn,
            taken_top=self.taken_top if taken_top is _KEEP else taken_top,
            picked=self.picked if picked is _KEEP else picked,
            pending=self.pending if pending is _KEEP else pending,
            turn_events=self.turn_events if turn_events is _KEEP else turn_events,
            pub_discard=self.pub_discard if pub_discard is _KEEP else pub_discard,
            pub_melds=self.pub_melds if pub_melds is _KEEP else pub_melds,
            pub_counts=self.pub_counts if pub_counts is _KEEP else pub_counts,
            pub_stock=self.pub_stock if pub_stock is _KEEP else pub_stock,
            totals=self.totals if totals is _KEEP else totals,
            results=self.results if results is _KEEP else results,
            log=self.log if log is _KEEP else log,
        )

    def _replace(self, **changes: Any) -> State:
        """``dataclasses.replace``: the name the test position builders use (from when the
        state was a NamedTuple)."""
        return dataclasses.replace(self, **changes)


def new_match(config: Config, seed: int) -> State:
    """A new match, in the first-deal draw."""
    n = config.seats
    return State(
        config=config,
        seed=seed,
        phase=Phase.DEAL_DRAW,
        hand_no=0,
        first_draw=(None,) * n,
        first_winner=None,
        starter=None,
        turn=None,
        hands=((),) * n,
        stock=(),
        discard=(),
        melds=(),
        reshuffles=0,
        table_mark=None,
        mark_turn=0,
        turn_no=0,
        stage=Stage.DRAW,
        steps=(),
        drawn=None,
        taken_top=None,
        picked=None,
        pending=None,
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
    hands = tuple(tuple(sorted(deck[((i - starter) % n) :: n][:k])) for i in range(n))
    up = deck[n * k]
    stock = tuple(deck[n * k + 1 :])
    return state.replace(
        phase=Phase.PLAYING,
        hand_no=hand_no,
        starter=starter,
        turn=starter,
        hands=hands,
        stock=stock,
        discard=(up,),
        melds=(),
        reshuffles=0,
        table_mark=None,
        mark_turn=0,
        turn_no=0,
        stage=Stage.DRAW,
        steps=(),
        drawn=None,
        taken_top=None,
        picked=None,
        pending=None,
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
    if phase is Phase.PLAYING and state.turn is not None:
        return frozenset((state.turn,))
    if phase is Phase.DEAL_DRAW:
        return frozenset(s for s, c in enumerate(state.first_draw) if c is None)
    if phase is Phase.HAND_OVER:
        return frozenset(range(state.config.seats))
    return frozenset()


def pending_discard(state: State) -> bool:
    """A discard is waiting for ``commit`` (the grace window)."""
    return state.phase is Phase.PLAYING and state.stage is Stage.PENDING


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
    if state.turn is None or card not in d:
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
    if phase is Phase.PLAYING:
        if seat != state.turn:
            return []
        stage = state.stage
        if stage is Stage.DRAW:
            out: list[Action] = [DRAW] if state.stock else []
            d = state.discard
            if d:
                out.append(TAKES[d[-1]])
                if len(d) > 1:
                    hand = state.hands[seat]
                    h = tuple_mask(hand)
                    out += [TAKES[d[i]] for i in pickups_of_mask(h, len(hand), d, state.melds)]
            return out
        if stage is Stage.PENDING:
            return [COMMIT, UNDO]
        return _play_actions(state, seat)
    if phase is Phase.DEAL_DRAW:
        drew = not 0 <= seat < len(state.first_draw) or state.first_draw[seat] is not None
        return [] if drew else [Deal()]
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
    top_held = taken_top is not None and h >> taken_top & 1
    picked_held = picked is not None and h >> picked & 1
    if not top_held and not picked_held:
        # The common case (a draw from the stock): any meld or lay-off that keeps a card.
        out: list[Action] = [meld_in_order(c) for c in melds_of_mask(h) if len(c) < n]
        if melds:
            out += [layoff_in_order(c, mid) for c, mid in layoffs_of_mask(h, melds) if len(c) < n]
        out += [DISCARDS[c] for c in hand]
        if state.steps:
            out.append(UNDO)
        return out
    if taken_top is not None and not (top_held and picked_held):
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
        out += [DISCARDS[c] for c in hand if c != taken_top]
        if state.steps:
            out.append(UNDO)
        return out
    blockers = [c for c in (taken_top, picked) if c is not None and h >> c & 1]
    owed = picked if picked is not None and picked in hand else None
    out = []
    # While the picked card is owed, a play that does not use it must leave it playable (with
    # one card to spare for the discard): the checks of _check_picked, on masks.
    for cards in melds_of_mask(h):
        k = len(cards)
        if n - k <= sum(1 for b in blockers if b not in cards):
            continue
        if owed is not None and owed not in cards:
            new = TableMeld(len(melds), meld_kind(cards) or "", cards, ())
            need = need_of_mask(owed, h & ~hand_mask(cards), (*melds, new))
            if not need or n - k - need < 1:
                continue
        out.append(meld_in_order(cards))
    if melds:
        for cards, mid in layoffs_of_mask(h, melds):
            k = len(cards)
            if n - k <= sum(1 for b in blockers if b not in cards):
                continue
            if owed is not None and owed not in cards:
                grown = laid_off(melds[mid], cards, seat)
                assert grown is not None  # listed lay-offs are valid
                table = (*melds[:mid], grown, *melds[mid + 1 :])
                need = need_of_mask(owed, h & ~hand_mask(cards), table)
                if not need or n - k - need < 1:
                    continue
            out.append(layoff_in_order(cards, mid))
    if owed is None:
        out += [DISCARDS[c] for c in hand if c != taken_top]
    if state.steps:
        out.append(UNDO)
    return out


def _table_count(melds: tuple[TableMeld, ...]) -> int:
    return sum(len(m.cards) for m in melds)


def _with_hand(hands: Hands, seat: int, hand: tuple[Card, ...]) -> Hands:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _add_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """``hand`` (sorted) with ``card`` inserted in order."""
    cards = list(hand)
    cards.append(card)
    cards.sort()
    return tuple(cards)


def _remove(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple([c for c in hand if c not in cards])


def apply(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` plays ``action``, or raise :class:`IllegalAction`."""
    n = state.config.seats
    if not isinstance(seat, int) or not 0 <= seat < n:
        raise IllegalAction("no_such_seat", f"there is no seat {seat!r} in a {n}-seat game")
    phase = state.phase
    if phase is Phase.PLAYING:
        return _apply_in_hand(state, seat, action)
    if phase is Phase.DEAL_DRAW:
        if not isinstance(action, Deal):
            raise IllegalAction("wrong_phase", "everyone first draws a card for the first deal")
        if state.first_draw[seat] is not None:
            raise IllegalAction("already_drew_for_deal", "you have already drawn for first deal")
        return _first_draw(state, seat)
    if phase is Phase.HAND_OVER:
        if not isinstance(action, NextHand):
            raise IllegalAction("hand_over", "the hand is over: 'next' deals the next one")
        assert state.starter is not None  # a hand was played
        return _deal(state, state.hand_no + 1, (state.starter + 1) % n)
    raise IllegalAction("match_over", "the match is over")


def _apply_in_hand(state: State, seat: int, action: Action) -> State:
    """An action while a hand is played: what the seat may do depends on its turn's stage."""
    if isinstance(action, (Deal, NextHand)):
        raise IllegalAction("wrong_phase", f"'{action}' is not possible while a hand is played")
    if seat != state.turn:
        raise IllegalAction("not_your_turn", f"it is seat {state.turn}'s turn")
    stage = state.stage
    if isinstance(action, Commit):
        if stage is not Stage.PENDING:
            raise IllegalAction("no_pending_discard", "there is no discard to commit")
        return _commit(state, seat)
    if isinstance(action, Undo):
        return _undo(state, seat)
    if stage is Stage.PENDING:
        raise IllegalAction(
            "discard_pending", "you have discarded: undo it or wait for the turn to end"
        )
    if isinstance(action, (Draw, Take)):
        if stage is not Stage.DRAW:
            raise IllegalAction("already_drew", "you have already drawn this turn")
        if isinstance(action, Draw):
            return _draw(state, seat)
        return _take(state, seat, action.card)
    if stage is Stage.DRAW:
        raise IllegalAction("must_draw_first", "draw a card first")
    if isinstance(action, Meld):
        return _meld(state, seat, action.cards)
    if isinstance(action, LayOff):
        return _layoff(state, seat, action.cards, action.meld_id)
    if isinstance(action, Discard):
        return _discard(state, seat, action.card)
    raise IllegalAction("malformed", f"not a Rummy action: {action!r}")


def _first_draw(state: State, seat: int) -> State:
    drew = [c for c in state.first_draw if c is not None]
    card = _first_draw_deck(state.seed)[len(drew)]
    first = (*state.first_draw[:seat], card, *state.first_draw[seat + 1 :])
    state = state.replace(first_draw=first)
    cards = [c for c in first if c is not None]
    if len(cards) < len(first):
        return state
    winner = max(range(len(cards)), key=lambda s: first_draw_key(cards[s]))
    return _deal(state.replace(first_winner=winner), 1, winner)


def _draw(state: State, seat: int) -> State:
    if not state.stock:
        raise IllegalAction("stock_empty", "the draw pile is empty")
    card = state.stock[-1]
    state = state.replace(
        hands=_with_hand(state.hands, seat, _add_card(state.hands[seat], card)),
        stock=state.stock[:-1],
        stage=Stage.PLAY,
        drawn=card,
        steps=(),  # a blind draw can never be undone, so neither can the reshuffle below
        turn_events=(*state.turn_events, Event(seat, "draw")),
    )
    if not state.stock and len(state.discard) >= 2:
        # The last card is drawn: the pile is reshuffled at once, its top card of this moment
        # staying put. The draw is the turn's first action, so that top is the committed one;
        # the reshuffle is a turn event, public when the turn commits.
        state = _reshuffle(state, seat, public=False)
    return state


def _take(state: State, seat: int, card: Card) -> State:
    d = state.discard
    if card not in d:
        raise IllegalAction("card_not_in_discard", f"{card_str(card)} is not in the discard pile")
    i = d.index(card)
    taken = d[i:]
    hand = state.hands[seat]
    if len(taken) == 1:
        return state.replace(
            hands=_with_hand(state.hands, seat, _add_card(hand, card)),
            discard=d[:i],
            stage=Stage.PLAY,
            steps=(Step("take", taken),),
            taken_top=card,
            picked=None,
            turn_events=(*state.turn_events, Event(seat, "take", taken)),
        )
    need = can_use_card(card, hand + taken, state.melds)
    if not need or len(hand) + len(taken) - need < 1:
        raise IllegalAction(
            "cannot_use_picked_card",
            f"you could not meld or lay off {card_str(card)} this turn, so you may not "
            "pick it up from under other cards",
        )
    return state.replace(
        hands=_with_hand(state.hands, seat, tuple(sorted(hand + taken))),
        discard=d[:i],
        stage=Stage.PLAY,
        steps=(Step("take", taken),),
        taken_top=None,
        picked=card,
        turn_events=(*state.turn_events, Event(seat, "take", taken)),
    )


def _check_in_hand(hand: tuple[Card, ...], cards: tuple[Card, ...]) -> None:
    if len(set(cards)) != len(cards):
        raise IllegalAction("duplicate_card", "a card is listed twice")
    for c in cards:
        if c not in hand:
            raise IllegalAction("card_not_in_hand", f"{card_str(c)} is not in your hand")


def _check_leaves_discard(state: State, rest: tuple[Card, ...]) -> None:
    """Some card of ``rest`` is neither the taken top card nor the picked card."""
    keep = {state.taken_top, state.picked}
    if all(c in keep for c in rest):
        raise IllegalAction(
            "no_discard_left",
            "that would leave you no card you may discard (you go out by discarding)",
        )


def _check_picked(state: State, rest: tuple[Card, ...], melds: tuple[TableMeld, ...]) -> None:
    """While the picked card of a multi-card pickup is unplayed, no other play may make it
    unplayable: the player could otherwise never discard."""
    p = state.picked
    if p is not None and p in rest and not _picked_still_playable(p, rest, melds):
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
    melds = (*state.melds, TableMeld(mid, kind, ordered, (seat,) * len(ordered)))
    _check_picked(state, rest, melds)
    return state.replace(
        hands=_with_hand(state.hands, seat, rest),
        melds=melds,
        steps=(*state.steps, Step("meld", ordered, mid)),
        turn_events=(*state.turn_events, Event(seat, "meld", ordered, mid)),
    )


def _layoff(state: State, seat: int, cards: tuple[Card, ...], mid: int) -> State:
    if not 0 <= mid < len(state.melds):
        raise IllegalAction("no_such_meld", f"there is no meld #{mid} on the table")
    hand = state.hands[seat]
    _check_in_hand(hand, cards)
    meld = state.melds[mid]
    grown = laid_off(meld, cards, seat)
    if grown is None:
        raise IllegalAction(
            "invalid_layoff", f"{cards_str(cards)} does not extend meld #{mid} ({meld})"
        )
    rest = _remove(hand, cards)
    _check_leaves_discard(state, rest)
    melds = (*state.melds[:mid], grown, *state.melds[mid + 1 :])
    _check_picked(state, rest, melds)
    ordered = order_meld(cards)
    return state.replace(
        hands=_with_hand(state.hands, seat, rest),
        melds=melds,
        steps=(*state.steps, Step("layoff", ordered, mid)),
        turn_events=(*state.turn_events, Event(seat, "layoff", ordered, mid)),
    )


def _discard(state: State, seat: int, card: Card) -> State:
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction("card_not_in_hand", f"{card_str(card)} is not in your hand")
    if card == state.taken_top:
        raise IllegalAction(
            "cannot_discard_taken_card",
            f"you took {card_str(card)} from the discard pile this turn: discard another card",
        )
    if state.picked is not None and state.picked in hand:
        raise IllegalAction(
            "must_play_picked_card",
            f"meld or lay off {card_str(state.picked)} (the card you picked up) before discarding",
        )
    return state.replace(
        hands=_with_hand(state.hands, seat, _remove(hand, (card,))),
        stage=Stage.PENDING,
        pending=card,
        steps=(*state.steps, Step("discard", (card,))),
    )


def _undo(state: State, seat: int) -> State:
    if not state.steps:
        if state.stage is Stage.PLAY:
            raise IllegalAction("cannot_undo_draw", "a card drawn from the stock cannot be undone")
        raise IllegalAction("nothing_to_undo", "there is nothing to undo")
    step = state.steps[-1]
    steps = state.steps[:-1]
    hand = state.hands[seat]
    if step.kind == "discard":
        return state.replace(
            hands=_with_hand(state.hands, seat, tuple(sorted(hand + step.cards))),
            stage=Stage.PLAY,
            pending=None,
            steps=steps,
        )
    events = state.turn_events[:-1]
    back = _with_hand(state.hands, seat, tuple(sorted(hand + step.cards)))
    if step.kind == "meld":
        return state.replace(hands=back, melds=state.melds[:-1], steps=steps, turn_events=events)
    if step.kind == "layoff":
        mid = step.meld_id
        assert mid is not None  # a lay-off step names its meld
        meld = state.melds[mid]
        owner = dict(zip(meld.cards, meld.owners, strict=True))
        cards = order_meld([c for c in meld.cards if c not in step.cards])
        old = TableMeld(mid, meld.kind, cards, tuple(owner[c] for c in cards))
        melds = (*state.melds[:mid], old, *state.melds[mid + 1 :])
        return state.replace(hands=back, melds=melds, steps=steps, turn_events=events)
    # take: the cards go back on the discard pile in their order; the seat draws again.
    return state.replace(
        hands=_with_hand(state.hands, seat, _remove(hand, step.cards)),
        discard=state.discard + step.cards,
        stage=Stage.DRAW,
        steps=steps,
        taken_top=None,
        picked=None,
        turn_events=events,
    )


def _commit(state: State, seat: int) -> State:
    """The end of the turn: the discard lands on the pile and what the turn did becomes public.
    The hand ends if the seat went out; an empty stock is replenished from the discard pile, or
    the hand ends with no winner."""
    card = state.pending
    assert card is not None  # the stage is PENDING
    ran_out = not state.stock or any(e.kind == "reshuffle" for e in state.turn_events)
    state = state.replace(
        discard=(*state.discard, card),
        pending=None,
        turn_events=(),
        log=(*state.log, *state.turn_events, Event(seat, "discard", (card,))),
    )
    if not state.hands[seat]:
        return _end_hand(state, seat, Termination.WENT_OUT)
    state = state.replace(turn_no=state.turn_no + 1)
    if ran_out:
        # This turn drew the last stock card.
        table = _table_count(state.melds)
        if table != state.table_mark:
            # Progress since the stock last ran out (or the first time): remember this moment.
            state = state.replace(table_mark=table, mark_turn=state.turn_no)
        elif state.turn_no - state.mark_turn >= state.config.seats:
            # The stock ran out again, a full round of turns later, with no meld or lay-off.
            return _end_hand(state, None, Termination.BLOCKED)
    if not state.stock:
        # The stock ran out with nothing beneath the discard top to reshuffle (the draw left
        # it empty): this discard is the first card that can stay on top, if any lies beneath.
        if len(state.discard) < 2:
            return _end_hand(state, None, Termination.STOCK_EXHAUSTED)
        state = _reshuffle(state, seat, public=True)
    return state.replace(
        turn=(seat + 1) % state.config.seats,
        stage=Stage.DRAW,
        steps=(),
        drawn=None,
        taken_top=None,
        picked=None,
        pub_discard=state.discard,
        pub_melds=state.melds,
        pub_counts=tuple([len(h) for h in state.hands]),
        pub_stock=len(state.stock),
    )


def _reshuffle(state: State, seat: int, *, public: bool) -> State:
    """The discard pile except its top becomes the new, shuffled stock. The event names the
    top card that stays; it goes to the log (``public``) or to the turn's events."""
    cards = list(state.discard[:-1])
    _shuffle(derive_rng(state.seed, "reshuffle", state.hand_no, state.reshuffles), cards)
    event = Event(seat, "reshuffle", state.discard[-1:], stock=len(cards))
    state = state.replace(
        stock=tuple(cards), discard=state.discard[-1:], reshuffles=state.reshuffles + 1
    )
    if public:
        return state.replace(log=(*state.log, event))
    return state.replace(turn_events=(*state.turn_events, event))


def _end_hand(state: State, winner: int | None, reason: Termination) -> State:
    n = state.config.seats
    played = [0] * n
    for meld in state.melds:
        for c, o in zip(meld.cards, meld.owners, strict=True):
            played[o] += card_value(c)
    in_hand = [sum(card_value(c) for c in h) for h in state.hands]
    scores = [played[s] - in_hand[s] for s in range(n)]
    one_turn = False
    if winner is not None:
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
    last = Event(winner, "out") if winner is not None else Event(None, reason.value)
    return state.replace(
        phase=Phase.MATCH_OVER if over else Phase.HAND_OVER,
        stage=Stage.DRAW,
        steps=(),
        drawn=None,
        taken_top=None,
        picked=None,
        pending=None,
        turn_events=(),
        pub_discard=state.discard,
        pub_melds=state.melds,
        pub_counts=tuple(len(h) for h in state.hands),
        pub_stock=len(state.stock),
        totals=totals,
        results=(*state.results, result),
        log=(*state.log, *state.turn_events, last),
    )


def hand_outcome(state: State) -> Outcome | None:
    """The last hand's result while it is over (HAND_OVER, and MATCH_OVER too), else None."""
    if state.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER) or not state.results:
        return None
    r = state.results[-1]
    return Outcome(r.reason, () if r.winner is None else (r.winner,), r.scores)


def outcome(state: State) -> Outcome | None:
    """What has just ended: None during the first-deal draw and while a hand is played; the
    hand's result at HAND_OVER; the match's (:func:`match_outcome`) at MATCH_OVER — the same
    meaning as every engine's ``outcome`` (``rules.common.GameEngine``)."""
    return match_outcome(state) or hand_outcome(state)


def match_outcome(state: State) -> Outcome | None:
    """The match result once the target is reached: the highest total wins (several seats on a
    tie, not necessarily who reached the target); ``scores`` are the final totals."""
    if state.phase is not Phase.MATCH_OVER:
        return None
    best = max(state.totals)
    winners = tuple(s for s, t in enumerate(state.totals) if t == best)
    return Outcome(Termination.TARGET_REACHED, winners, state.totals)
