"""What a hand can put down now: the bots' search for the most points, over the engine's melds.

The rules come from :mod:`gameshack.rules.rummy.melds` (the melds a hand holds, the cards that
lay off on a table meld, the meld a lay-off makes); this module only chooses among them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gameshack.bots.rummy.cards import VALUE
from gameshack.rules.rummy.melds import TableMeld, find_melds, laid_off, layoff_cards

__all__ = ["Plays", "best_plays"]


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


def _layoff_chain(
    table: Sequence[TableMeld], cards: int, seat: int
) -> tuple[list[tuple[int, int]], int]:
    """Greedy chained lay-offs of the cards in bitmask ``cards``: [(card, meld index)], rest."""
    melds = list(table)
    laid: list[tuple[int, int]] = []
    progress = True
    while progress and cards:
        progress = False
        for i, m in enumerate(melds):
            for c in layoff_cards(m):
                if cards >> c & 1:
                    grown = laid_off(m, (c,), seat)
                    assert grown is not None, (m, c)
                    cards &= ~(1 << c)
                    laid.append((c, i))
                    melds[i] = grown
                    progress = True
                    break
    return laid, cards


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def best_plays(
    hand: Iterable[int],
    table: Sequence[TableMeld] = (),
    *,
    seat: int,
    must_use: int | None = None,
) -> Plays:
    """The melds and lay-offs putting down the most points (then the most cards).

    Exact over new melds (a search over disjoint melds of the hand); lay-offs, chained, onto the
    table are added for what is left. ``must_use``: a card that has to be put down (the bottom
    card of a discard-pile pickup); if it cannot be, the best plays without it are returned and
    the caller sees it in ``left``. ``seat`` is who would play them.
    """
    cards = sorted(set(hand))
    hand_mask = _mask(cards)
    # Each meld is indexed by its lowest card: the search branches on the lowest undecided one.
    melds = [(_mask(m), sum(VALUE[c] for c in m), m) for m in find_melds(cards)]
    by_low: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for x in melds:
        by_low.setdefault(min(x[2]), []).append(x)
    # What the table could take from the whole hand: an additive estimate used inside the
    # search (chains make it exact only at the end).
    chain, _ = _layoff_chain(table, hand_mask, seat)
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

    _, _, chosen = search(hand_mask)
    if must_bit and not any(must_use in m for m in chosen):
        # Force a meld containing the card if any exists (the first best in the engine's order
        # of melds); else rely on a lay-off.
        forced: tuple[int, tuple[tuple[int, ...], ...]] | None = None
        for mm, mv, m in melds:
            if not mm & must_bit:
                continue
            v, _n, rest_ms = search(hand_mask & ~mm)
            if forced is None or v + mv > forced[0]:
                forced = (v + mv, (m, *rest_ms))
        if forced is not None:
            chosen_value = sum(VALUE[c] for m in chosen for c in m)
            left_mask = hand_mask
            for m in chosen:
                left_mask &= ~_mask(m)
            laid, _ = _layoff_chain(table, left_mask, seat)
            if not any(c == must_use for c, _ in laid) or forced[0] > chosen_value:
                chosen = forced[1]
    left_mask = hand_mask
    for m in chosen:
        left_mask &= ~_mask(m)
    laid, left_mask = _layoff_chain(table, left_mask, seat)
    value = sum(VALUE[c] for m in chosen for c in m) + sum(VALUE[c] for c, _ in laid)
    left = tuple(c for c in cards if left_mask >> c & 1)
    return Plays(tuple(chosen), tuple(laid), left, value)
