"""Melds over the bots' int cards: validity, candidates in a hand, lay-off targets, best plays.

A *run position* numbers a suit's cards 0 (ace low) .. 12 (king) and 13 (ace high), so that
A-2-3 and Q-K-A are both windows of consecutive positions and K-A-2 is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from gameshack.bots.rummy.cards import VALUE

__all__ = [
    "TableMeld",
    "best_plays",
    "candidate_melds",
    "is_meld",
    "layoff_targets",
    "meld_of",
    "melds_containing",
]


def _pos_card(suit: int, pos: int) -> int:
    return suit * 13 + (0 if pos == 13 else pos)


def is_meld(cards: Sequence[int]) -> bool:
    """3-4 cards of one rank, or 3+ consecutive cards of one suit (ace low or high, no wrap)."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    ranks = {c % 13 for c in cards}
    if len(ranks) == 1:
        return len(cards) <= 4
    suits = {c // 13 for c in cards}
    if len(suits) != 1:
        return False
    positions = sorted(c % 13 for c in cards)
    if positions[0] == 0 and positions[1] != 1:  # the ace can only sit high: Q-K-A
        positions = [*positions[1:], 13]
    return positions[-1] - positions[0] == len(positions) - 1


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table, reduced to what lay-offs need.

    ``kind`` "set": ``key`` is the rank index (0..12) and ``suits`` a bitmask of suits present.
    ``kind`` "run": ``key`` is the suit and ``lo``/``hi`` the run positions it covers.
    """

    kind: str
    key: int
    suits: int = 0
    lo: int = 0
    hi: int = 0

    def extensions(self) -> tuple[int, ...]:
        """The cards that could be laid off on this meld now."""
        if self.kind == "set":
            return tuple(s * 13 + self.key for s in range(4) if not self.suits >> s & 1)
        out: list[int] = []
        if self.lo > 0 and not (self.lo == 1 and self.hi == 13):
            out.append(_pos_card(self.key, self.lo - 1))
        if self.hi < 13 and not (self.hi == 12 and self.lo == 0):
            out.append(_pos_card(self.key, self.hi + 1))
        return tuple(out)

    def extended(self, c: int) -> TableMeld:
        if self.kind == "set":
            return TableMeld("set", self.key, self.suits | 1 << (c // 13))
        pos = c % 13
        if pos == 0:
            pos = 0 if self.lo == 1 else 13
        if pos < self.lo:
            return TableMeld("run", self.key, lo=pos, hi=self.hi)
        return TableMeld("run", self.key, lo=self.lo, hi=pos)


def meld_of(cards: Sequence[int]) -> TableMeld:
    """The lay-off descriptor of a valid meld."""
    ranks = {c % 13 for c in cards}
    if len(ranks) == 1:
        suits = 0
        for c in cards:
            suits |= 1 << (c // 13)
        return TableMeld("set", next(iter(ranks)), suits)
    suit = cards[0] // 13
    positions = sorted(c % 13 for c in cards)
    if positions[0] == 0 and positions[1] != 1:
        positions = [*positions[1:], 13]
    return TableMeld("run", suit, lo=positions[0], hi=positions[-1])


def layoff_targets(table: Iterable[TableMeld]) -> dict[int, int]:
    """card -> index of a table meld it can be laid off on right now (first such meld)."""
    out: dict[int, int] = {}
    for i, m in enumerate(table):
        for c in m.extensions():
            out.setdefault(c, i)
    return out


def candidate_melds(hand: Iterable[int]) -> list[tuple[int, ...]]:
    """Every meld that can be formed from cards in ``hand`` (sets of 3/4, every run window)."""
    cards = sorted(set(hand))
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, set[int]] = {}
    for c in cards:
        by_rank.setdefault(c % 13, []).append(c)
        by_suit.setdefault(c // 13, set()).add(c % 13)
    out: list[tuple[int, ...]] = []
    for same in by_rank.values():
        if len(same) >= 3:
            out.extend(combinations(same, 3))
            if len(same) == 4:
                out.append(tuple(same))
    for suit, ranks in by_suit.items():
        present = [p in ranks for p in range(13)]
        present.append(0 in ranks)  # ace high
        p = 0
        while p < 14:
            if not present[p]:
                p += 1
                continue
            q = p
            while q + 1 < 14 and present[q + 1]:
                q += 1
            for a in range(p, q - 1):
                for b in range(a + 2, q + 1):
                    if a == 0 and b == 13:
                        continue
                    out.append(tuple(sorted(_pos_card(suit, x) for x in range(a, b + 1))))
            p = q + 1
    return out


def melds_containing(c: int, hand: Iterable[int]) -> list[tuple[int, ...]]:
    return [m for m in candidate_melds(hand) if c in m]


@dataclass(frozen=True, slots=True)
class Plays:
    """What a hand can put down now: new melds, lay-offs (card, table index), what is left."""

    melds: tuple[tuple[int, ...], ...]
    layoffs: tuple[tuple[int, int], ...]
    left: tuple[int, ...]
    value: int  # points put down

    @property
    def count(self) -> int:
        return sum(len(m) for m in self.melds) + len(self.layoffs)


def _layoff_chain(table: Sequence[TableMeld], cards: int) -> tuple[list[tuple[int, int]], int]:
    """Greedy chained lay-offs of the cards in bitmask ``cards``: [(card, meld index)], rest."""
    melds = list(table)
    laid: list[tuple[int, int]] = []
    progress = True
    while progress and cards:
        progress = False
        for i, m in enumerate(melds):
            for c in m.extensions():
                if cards >> c & 1:
                    cards &= ~(1 << c)
                    laid.append((c, i))
                    melds[i] = m.extended(c)
                    progress = True
                    break
    return laid, cards


def best_plays(
    hand: Iterable[int],
    table: Sequence[TableMeld] = (),
    *,
    must_use: int | None = None,
) -> Plays:
    """The melds and lay-offs putting down the most points (then the most cards).

    Exact over new melds (a search over disjoint candidate melds); lay-offs, chained, onto the
    table are added for what is left. ``must_use``: a card that has to be put down (the bottom
    card of a discard-pile pickup); if it cannot be, the best plays without it are returned and
    the caller sees it in ``left``.
    """
    cards = sorted(set(hand))
    hand_mask = 0
    for c in cards:
        hand_mask |= 1 << c
    melds = candidate_melds(cards)
    by_low: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for m in melds:
        mm = 0
        for c in m:
            mm |= 1 << c
        by_low.setdefault(m[0], []).append((mm, sum(VALUE[c] for c in m), m))
    # What the table could take from the whole hand: an additive estimate used inside the
    # search (chains make it exact only at the end).
    chain, _ = _layoff_chain(table, hand_mask)
    lay_val = {c: VALUE[c] for c, _ in chain}
    memo: dict[int, tuple[int, int, tuple[tuple[int, ...], ...]]] = {}
    must_bit = 0 if must_use is None else 1 << must_use

    def search(rest: int) -> tuple[int, int, tuple[tuple[int, ...], ...]]:
        if rest == 0:
            return (0, 0, ())
        hit = memo.get(rest)
        if hit is not None:
            return hit
        low = (rest & -rest).bit_length() - 1
        v, n, ms = search(rest & ~(1 << low))
        lv = lay_val.get(low, 0)
        best = (v + lv, n + (1 if lv else 0), ms)
        for mm, mv, m in by_low.get(low, ()):
            if mm & rest == mm:
                v, n, ms = search(rest & ~mm)
                cand = (v + mv, n + len(m), (m, *ms))
                if cand[:2] > best[:2]:
                    best = cand
        memo[rest] = best
        return best

    # Cards whose own melds cannot start with them are still reached: a meld is indexed by its
    # lowest card, and the search always branches on the lowest undecided card.
    _, _, chosen = search(hand_mask)
    if must_bit and not any(must_use in m for m in chosen):
        # Force a meld containing the card if any exists; else rely on a lay-off.
        forced: tuple[int, tuple[tuple[int, ...], ...]] | None = None
        for mm, mv, m in (x for ms in by_low.values() for x in ms):
            if not mm & must_bit:
                continue
            v, _n, rest_ms = search(hand_mask & ~mm)
            if forced is None or v + mv > forced[0]:
                forced = (v + mv, (m, *rest_ms))
        if forced is not None:
            chosen_value = sum(VALUE[c] for m in chosen for c in m)
            left_mask = hand_mask
            for m in chosen:
                for c in m:
                    left_mask &= ~(1 << c)
            laid, _ = _layoff_chain(table, left_mask)
            if not any(c == must_use for c, _ in laid) or forced[0] > chosen_value:
                chosen = forced[1]
    left_mask = hand_mask
    for m in chosen:
        for c in m:
            left_mask &= ~(1 << c)
    laid, left_mask = _layoff_chain(table, left_mask)
    value = sum(VALUE[c] for m in chosen for c in m) + sum(VALUE[c] for c, _ in laid)
    left = tuple(c for c in cards if left_mask >> c & 1)
    return Plays(tuple(chosen), tuple(laid), left, value)
