"""How the Rummy bots judge cards: what a hand can put down, what a card is worth keeping, how
dangerous it is to give away, and which draw and discard to make.

Everything here works on the bots' :class:`Situation` (built from one seat's view plus the
bot's memory), never on the engine state. The three difficulties share these functions and
differ in which terms they switch on (``level``: 0 Easy, 1 Medium, 2 Hard).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gameshack.bots.rummy.cards import VALUE
from gameshack.bots.rummy.plays import Plays, best_plays
from gameshack.rules.rummy.melds import (
    TableMeld,
    card_at,
    find_melds,
    layoff_cards,
    meld_partners,
    run_extensions,
    run_positions,
)

__all__ = [
    "EASY",
    "HARD",
    "MEDIUM",
    "DrawChoice",
    "Opponent",
    "Situation",
    "choose_discard",
    "choose_draw",
    "danger",
    "keep_value",
    "plan_plays",
]

EASY, MEDIUM, HARD = 0, 1, 2


@dataclass(slots=True)
class Opponent:
    """What one opponent has shown this hand (from the public log, kept in bot memory)."""

    seat: int
    hand_size: int
    total: int = 0
    held: set[int] = field(default_factory=set)  # picked up from the pile, not yet played
    picked: set[int] = field(default_factory=set)  # every card taken from the pile this hand
    declined: set[int] = field(default_factory=set)  # pile tops left for a stock draw
    discarded: set[int] = field(default_factory=set)
    melded_value: int = 0  # points this opponent has put down this hand


@dataclass(slots=True)
class Situation:
    """One seat's decision point, in the bots' terms."""

    seat: int
    hand: tuple[int, ...]
    table: tuple[TableMeld, ...]  # the engine's melds, incl. my turn in progress
    pile: tuple[int, ...]  # discard pile, bottom .. top
    stock: int
    opponents: tuple[Opponent, ...]
    total: int = 0  # my running match total
    target: int | None = None
    melded_value: int = 0  # points I have put down this hand (committed + this turn)
    must_use: int | None = None  # bottom card of this turn's deep pickup, still to be played
    no_discard: int | None = None  # the single pile top taken this turn
    played_this_turn: bool = False
    takes: frozenset[int] | None = None  # pile cards the rules allow taking now (None: all)

    def table_mask(self) -> int:
        m = 0
        for meld in self.table:
            for c in meld.cards:
                m |= 1 << c
        return m

    def opp_held_mask(self) -> int:
        m = 0
        for o in self.opponents:
            for c in o.held:
                m |= 1 << c
        return m

    def min_opp_hand(self) -> int:
        return min((o.hand_size for o in self.opponents), default=13)


# --------------------------------------------------------------------------- tunables

KEEP_PAIR = 4.0  # per live card that would turn a pair into a set
KEEP_RUN = 3.5  # per live card that would turn two suited neighbours into a run
KEEP_LAYOFF_NEAR = 1.0  # per card one step away from extending a table meld
PILE_OUT = 0.6  # a needed card sitting in the discard pile is only partly live
TEMPO = 2.0  # every card left in hand is one more turn to go out
STOCK_GAIN = 0.0  # what an unknown stock card is worth against a pickup (Medium's estimate)
STRAND_LAMBDA = 0.3  # weight of a stranded card's points (times the hand's risk)
STRAND_TEMPO = 2.0  # a stranded card is one more card to shed before going out
STRAND_KEEP = 0.5  # ... less what it promises with the rest of the hand
GO_OUT_BONUS = 15.0
MEDIUM_PILE_DEPTH = 3.0
LIKE_MULT = 2.0  # an opponent who picked up a card likely holds its rank / suit neighbours
COLD_MULT = 0.5  # ... and likely not those of what it threw away or declined
PILE_REACH = 0.8  # a pile card is within an opponent's reach by a deeper pickup
MEDIUM_MODEL = 1.0
EASY_STRAND = 0.5  # Easy's pickups: a picked-up card left in hand costs its points
MEDIUM_DANGER = 1.0
HARD_DANGER = (
    3.0  # weight of the Hard bot's expected-points danger  # a pickup that lets me go out this turn
)


def risk(sit: Situation, level: int) -> float:
    """How much a point left in hand weighs: the chance the hand ends before it is played."""
    n = sit.min_opp_hand()
    base = 1.25 - 0.07 * n
    base = max(0.35, min(1.15, base))
    if level >= HARD and sit.target:
        best_opp = max((o.total for o in sit.opponents), default=0)
        # Ahead near the target: shed points and get out. Behind while someone is near the
        # target: the hand may be the last one, so points put down matter more than safety.
        if sit.total >= best_opp and sit.total >= 0.6 * sit.target:
            base += 0.25
        elif best_opp >= 0.75 * sit.target and sit.total < best_opp:
            base -= 0.1
    return base


# --------------------------------------------------------------------------- card worth


def _liveness(sit: Situation, dead: int, pile: int) -> list[float]:
    live = [1.0] * 52
    for c in range(52):
        if dead >> c & 1:
            live[c] = 0.0
        elif pile >> c & 1:
            live[c] = PILE_OUT
    return live


def keep_value(c: int, left: Sequence[int], live: Sequence[float]) -> float:
    """What ``c`` is worth keeping among the unplayed cards ``left``: the live cards that
    would turn it and a neighbour into a meld."""
    suit, r = c // 13, c % 13
    have = set(left)
    v = 0.0
    pairs = sum(1 for s in range(4) if s != suit and s * 13 + r in have)
    if pairs:
        outs = sum(live[s * 13 + r] for s in range(4) if s * 13 + r not in have)
        v += KEEP_PAIR * outs * (1.0 if pairs == 1 else 1.5)
    for p in run_positions(c):
        for d in (1, 2):
            for sign in (-1, 1):
                q = p + sign * d
                if not 1 <= q <= 14 or card_at(suit, q) not in have or card_at(suit, q) == c:
                    continue
                lo, hi = min(p, q), max(p, q)
                if d == 1:
                    ends = [x for x in (lo - 1, hi + 1) if 1 <= x <= 14]
                    outs = sum(live[card_at(suit, x)] for x in ends)
                else:
                    outs = live[card_at(suit, lo + 1)]
                v += KEEP_RUN * outs
    return v


def _near_layoff(c: int, sit: Situation, live: Sequence[float]) -> float:
    """A card one step beyond a table run's end can follow once the gap card turns up."""
    v = 0.0
    for m in sit.table:
        down, up = run_extensions(m)
        if len(down) > 1 and down[1] == c:
            v += KEEP_LAYOFF_NEAR * live[down[0]]
        if len(up) > 1 and up[1] == c:
            v += KEEP_LAYOFF_NEAR * live[up[0]]
    return v


def completes_with(c: int, cards: Iterable[int]) -> bool:
    """Whether ``c`` plus cards from ``cards`` form a meld."""
    pool = {*cards, c}
    if len(pool) < 3:
        return False
    return any(c in m for m in find_melds(pool))


def hold_probs(sit: Situation, o: Opponent, level: int = 2) -> list[float]:
    """Per card, how likely opponent ``o`` can use it in a meld now: 1 for cards it is known
    to hold, the pile's cards as reachable by a deeper pickup, and for unseen cards its share
    of the unknown cards, raised for ranks and suits it showed interest in (picked up) and
    lowered for those it gave away or declined (inference from discards)."""
    dead = sit.table_mask()
    for c in sit.hand:
        dead |= 1 << c
    for other in sit.opponents:
        if other is not o:
            for c in other.held:
                dead |= 1 << c
    pile = set(sit.pile)
    reach = pile if level >= HARD else set(sit.pile[-int(MEDIUM_PILE_DEPTH) :])
    unseen = [x for x in range(52) if not dead >> x & 1 and x not in pile and x not in o.held]
    unknown = max(0, o.hand_size - len(o.held))
    base = unknown / len(unseen) if unseen else 0.0
    liked_ranks = {x % 13 for x in o.picked}
    liked_runs = {(x // 13, x % 13) for x in o.picked}
    gone = o.discarded | o.declined
    cold_ranks = {x % 13 for x in gone}
    cold_runs = {(x // 13, x % 13) for x in gone}
    probs = [0.0] * 52
    for x in unseen:
        p = base
        suit, r = x // 13, x % 13
        if r in liked_ranks or any((suit, r + d) in liked_runs for d in (-2, -1, 1, 2)):
            p *= LIKE_MULT
        if r in cold_ranks or any((suit, r + d) in cold_runs for d in (-1, 1)):
            p *= COLD_MULT
        probs[x] = min(1.0, p)
    for x in o.held:
        probs[x] = 1.0
    for x in reach:
        probs[x] = PILE_REACH
    return probs


def likely_danger(c: int, probs: Sequence[float], weight: float) -> float:
    """Expected points handed over by discarding ``c`` to a player with these probabilities:
    the chance it completes a meld with two of their cards, times what that meld is worth."""
    none = 1.0
    worth = 0.0
    for a, b in meld_partners(c):
        pab = probs[a] * probs[b]
        if pab > 0.0:
            none *= 1.0 - pab
            worth = max(worth, VALUE[a] + VALUE[b])
    return (1.0 - none) * (VALUE[c] + worth) * weight


def danger(c: int, sit: Situation, level: int, probs: Sequence[Sequence[float]] = ()) -> float:
    """Expected points the discard of ``c`` hands an opponent."""
    if any(c in layoff_cards(m) for m in sit.table):
        return 20.0 + VALUE[c]  # the most obvious mistake: anyone can lay it off
    d = 0.0
    suit, r = c // 13, c % 13
    for i, o in enumerate(sit.opponents):
        if o.held and completes_with(c, o.held):
            return 25.0 + 2 * VALUE[c]  # completes cards this opponent is known to hold
        if level < MEDIUM:
            continue
        if level >= HARD and probs:
            d += likely_danger(c, probs[i], HARD_DANGER)
            continue
        if MEDIUM_MODEL and probs:
            d += likely_danger(c, probs[i], MEDIUM_DANGER)
            continue
        # Interest shown: cards of this rank or suited neighbours picked up earlier.
        for x in o.held:
            if x % 13 == r or (x // 13 == suit and abs(x % 13 - r) <= 2):
                d += 4.0
        if any(x % 13 == r for x in o.picked - o.held):
            d += 1.5
        # Disinterest shown: the same rank discarded or declined.
        if any(x % 13 == r for x in o.discarded | o.declined):
            d -= 2.5
        if any(x // 13 == suit and abs(x % 13 - r) == 1 for x in o.discarded | o.declined):
            d -= 1.0
        if level >= HARD:
            d += _pile_danger(c, sit, o, len(sit.pile))
        elif MEDIUM_PILE_DEPTH:
            d += _pile_danger(c, sit, o, int(MEDIUM_PILE_DEPTH))
    return d


def _pile_danger(c: int, sit: Situation, o: Opponent, depth: int) -> float:
    """A discard that makes a meld with cards already in the pile (the top ``depth`` of it)
    and what the opponent is known to hold hands out a free meld by a deeper pickup."""
    if not sit.pile:
        return 0.0
    pool = set(sit.pile[-depth:]) | o.held
    if completes_with(c, pool):
        # Worth the meld's points to them and the cards they pick up besides.
        return 6.0 + VALUE[c]
    return 0.0


# --------------------------------------------------------------------------- plays


def plan_plays(sit: Situation, hand: Sequence[int] | None = None) -> tuple[Plays, int | None]:
    """The plays to make now and the card to keep for the discard.

    A hand that could put everything down still keeps one card to discard (the rules refuse a
    play that leaves nothing discardable): the card whose holding back costs least.
    """
    cards = tuple(sit.hand if hand is None else hand)
    plays = best_plays(cards, sit.table, seat=sit.seat, must_use=sit.must_use)
    discardable = [c for c in plays.left if c != sit.no_discard]
    if discardable:
        return plays, None
    best: tuple[tuple[bool, int, int], Plays, int] | None = None
    for x in cards:
        if x == sit.no_discard or x == sit.must_use:
            continue
        rest = tuple(c for c in cards if c != x)
        p = best_plays(rest, sit.table, seat=sit.seat, must_use=sit.must_use)
        must_ok = sit.must_use is None or sit.must_use not in p.left
        key = (must_ok, p.value, -VALUE[x])
        if best is None or key > best[0]:
            best = (key, p, x)
    if best is None:  # only the forbidden card: play nothing
        return Plays((), (), cards, 0), None
    return best[1], best[2]


@dataclass(frozen=True, slots=True)
class DrawChoice:
    """``take`` None: draw from the stock; else the pile card to take (with all above it)."""

    take: int | None
    score: float
    stock_score: float


def _dead_and_pile(sit: Situation) -> tuple[int, int]:
    dead = sit.table_mask() | sit.opp_held_mask()
    pile = 0
    for c in sit.pile:
        pile |= 1 << c
    return dead, pile


def choose_draw(sit: Situation, level: int) -> DrawChoice:
    """Stock or pile, and how deep into the pile."""
    dead, pile_mask = _dead_and_pile(sit)
    hand = sit.hand
    if not sit.pile:
        return DrawChoice(None, 0.0, 0.0)
    if level == EASY:
        # Straightforward: the pickup that puts down the most points at once, net of the
        # picked-up cards it would leave in hand; else the stock.
        base_value = best_plays(hand, sit.table, seat=sit.seat).value
        choice = DrawChoice(None, 0.0, 0.0)
        for k in range(1, len(sit.pile) + 1):
            bottom = sit.pile[-k]
            if k > 1 and sit.takes is not None and bottom not in sit.takes:
                continue
            taken = sit.pile[-k:]
            p = best_plays(
                (*hand, *taken), sit.table, seat=sit.seat, must_use=bottom if k > 1 else None
            )
            if bottom in p.left:
                continue
            gain = p.value - base_value - EASY_STRAND * sum(VALUE[c] for c in taken if c in p.left)
            if gain > choice.score:
                choice = DrawChoice(bottom, float(gain), 0.0)
        return choice
    live = _liveness(sit, dead, pile_mask)
    base = best_plays(hand, sit.table, seat=sit.seat)
    base_left = set(base.left)
    rk = risk(sit, level)
    best = DrawChoice(None, STOCK_GAIN, STOCK_GAIN)
    for k in range(1, len(sit.pile) + 1):
        bottom = sit.pile[-k]
        if k > 1 and sit.takes is not None and bottom not in sit.takes:
            continue
        taken = sit.pile[-k:]
        new_hand = (*hand, *taken)
        p = best_plays(new_hand, sit.table, seat=sit.seat, must_use=bottom if k > 1 else None)
        if k > 1 and bottom in p.left:
            continue
        s = pickup_gain(sit, base, base_left, p, live, rk)
        if s > best.score:
            best = DrawChoice(bottom, s, STOCK_GAIN)
    return best


def pickup_gain(
    sit: Situation,
    base: Plays,
    base_left: set[int],
    p: Plays,
    live: Sequence[float],
    rk: float,
) -> float:
    """What a pickup is worth against keeping the hand as it is: the points it lets me put
    down now, minus what the cards it strands in my hand cost (their points at risk and the
    turns it takes to shed them), less what they promise as parts of future melds."""
    gain = float(p.value - base.value)
    left = p.left
    for c in left:
        if c in base_left:
            continue
        gain -= (
            STRAND_LAMBDA * rk * VALUE[c] + STRAND_TEMPO - STRAND_KEEP * keep_value(c, left, live)
        )
    if len(left) <= 1 < len(base.left):
        gain += GO_OUT_BONUS
    return gain


def choose_discard(sit: Situation, left: Sequence[int], level: int) -> int:
    """The card to discard among ``left`` (what stays after this turn's plays)."""
    options = [c for c in left if c != sit.no_discard and c != sit.must_use]
    if not options:
        options = [c for c in left if c != sit.no_discard] or list(left)
    if len(options) == 1:
        return options[0]
    dead, pile_mask = _dead_and_pile(sit)
    live = _liveness(sit, dead, pile_mask)
    rk = risk(sit, level)
    use_model = level >= HARD or (level == MEDIUM and MEDIUM_MODEL)
    probs = [hold_probs(sit, o, level) for o in sit.opponents] if use_model else []
    best_c = options[0]
    best_cost = float("inf")
    for c in options:
        cost = keep_value(c, left, live) - rk * VALUE[c] + danger(c, sit, level, probs)
        if level >= MEDIUM:
            cost += _near_layoff(c, sit, live)
        if cost < best_cost or (cost == best_cost and c > best_c):
            best_c, best_cost = c, cost
    return best_c
