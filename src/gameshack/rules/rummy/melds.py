"""Meld validity and the search helpers that hints, bots and the legal-action generator share.

A *set* is 3 or 4 cards of one rank. A *run* is 3+ consecutive cards of one suit; the ace is
low (``AH 2H 3H``) or high (``QH KH AH``), never both and never round the corner
(``KH AH 2H``). Internally a run is reasoned about in *positions* 1..14 where the ace may sit
at 1 (low) or 14 (high).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import NamedTuple

from gameshack.rules.rummy.cards import Card, cards_str

__all__ = [
    "RUN",
    "SET",
    "TableMeld",
    "can_use_card",
    "find_layoffs",
    "find_melds",
    "layoff_result",
    "meld_kind",
    "order_meld",
    "usable_pickups",
]

SET = "set"
RUN = "run"


class TableMeld(NamedTuple):
    """A meld on the table: ``cards`` in display order, ``owners[i]`` the seat that played
    ``cards[i]`` (a laid-off card scores for whoever laid it off)."""

    id: int
    kind: str
    cards: tuple[Card, ...]
    owners: tuple[int, ...]

    def __str__(self) -> str:
        return f"#{self.id} {cards_str(self.cards)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "cards": [cards_str((c,)) for c in self.cards],
            "owners": list(self.owners),
        }


def _run_order(cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """``cards`` in run order if they form a valid run, else None."""
    n = len(cards)
    if n < 3:
        return None
    suit = cards[0] // 13
    ranks = sorted(c % 13 for c in cards)  # 0 = ace .. 12 = king
    for c in cards:
        if c // 13 != suit:
            return None
    base = suit * 13
    if ranks[-1] - ranks[0] == n - 1 and len(set(ranks)) == n:
        return tuple(base + r for r in ranks)  # ace (if any) low
    if ranks[0] == 0:
        high = ranks[1:]
        # Ace high: the others must be consecutive and end at the king.
        if high[-1] == 12 and high[-1] - high[0] == n - 2 and len(set(high)) == n - 1:
            return (*(base + r for r in high), base)
    return None


def meld_kind(cards: Sequence[Card]) -> str | None:
    """``"set"``, ``"run"`` or None if ``cards`` (distinct) are not a valid meld."""
    n = len(cards)
    if n < 3 or len(set(cards)) != n:
        return None
    rank = cards[0] % 13
    if all(c % 13 == rank for c in cards):
        return SET if n <= 4 else None
    return RUN if _run_order(cards) is not None else None


def order_meld(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Display order: runs low to high (ace where it plays), sets by suit S H D C; other card
    groups (not a meld) sorted by id."""
    run = _run_order(cards) if len(set(cards)) == len(cards) else None
    return run if run is not None else tuple(sorted(cards))


def layoff_result(meld: TableMeld, cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The meld's cards after laying off ``cards`` (display order), or None if that is not a
    valid meld of the same kind."""
    if not cards or len(set(cards)) != len(cards) or set(cards) & set(meld.cards):
        return None
    union = (*meld.cards, *cards)
    if meld.kind == SET:
        rank = meld.cards[0] % 13
        if len(union) > 4 or any(c % 13 != rank for c in cards):
            return None
        return tuple(sorted(union))
    return _run_order(union)


def _pos_card(suit: int, pos: int) -> Card:
    return suit * 13 + (0 if pos == 14 else pos - 1)


def _suit_runs(suit: int, mask: int) -> tuple[tuple[Card, ...], ...]:
    """Every run in ``suit`` given a 13-bit mask of the ranks held (bit 0 = ace)."""
    present = [False] * 16
    for r in range(13):
        if mask >> r & 1:
            present[r + 1] = True
    present[14] = present[1]
    out: list[tuple[Card, ...]] = []
    for start in range(1, 13):
        if not present[start]:
            continue
        end = start
        while end < 14 and present[end + 1]:
            end += 1
            if end - start < 2:
                continue
            if start == 1 and end == 14:
                break  # the ace cannot be both low and high
            if start == 2 and end == 14 and present[1]:
                continue  # 2..K + ace high is the same cards as A..K, already listed
            out.append(tuple(_pos_card(suit, p) for p in range(start, end + 1)))
    return tuple(out)


def _rank_sets(rank: int, mask: int) -> tuple[tuple[Card, ...], ...]:
    """Every set of ``rank`` given a 4-bit mask of the suits held."""
    group = [s * 13 + rank for s in range(4) if mask >> s & 1]
    if len(group) < 3:
        return ()
    out: list[tuple[Card, ...]] = list(combinations(group, 3))
    if len(group) == 4:
        out.append(tuple(group))
    return tuple(out)


_SUIT = tuple(c // 13 for c in range(52))
_RANK = tuple(c % 13 for c in range(52))
_RANK_BIT = tuple(1 << (c % 13) for c in range(52))
_SUIT_BIT = tuple(1 << (c // 13) for c in range(52))

# Both searches depend only on a small mask, so their answers are memoised: find_melds is on
# the hot path of every legal-action query.
_RUNS: dict[tuple[int, int], tuple[tuple[Card, ...], ...]] = {}
_SETS: dict[tuple[int, int], tuple[tuple[Card, ...], ...]] = {}


def find_melds(cards: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every meld that can be made from ``cards``, each in display order; deterministic order:
    sets by rank (3-card ones before the 4-card one), then runs by suit, start and length."""
    suit_masks = [0, 0, 0, 0]
    rank_masks = [0] * 13
    suit_of, rank_of, rank_bit, suit_bit = _SUIT, _RANK, _RANK_BIT, _SUIT_BIT
    for c in cards:
        suit_masks[suit_of[c]] |= rank_bit[c]
        rank_masks[rank_of[c]] |= suit_bit[c]
    out: list[tuple[Card, ...]] = []
    for r in range(13):
        m = rank_masks[r]
        if m in (7, 11, 13, 14, 15):  # three or four suits
            key = (r, m)
            found = _SETS.get(key)
            if found is None:
                found = _SETS[key] = _rank_sets(r, m)
            out.extend(found)
    for s in range(4):
        m = suit_masks[s]
        if m.bit_count() < 3:
            continue
        key = (s, m)
        found = _RUNS.get(key)
        if found is None:
            found = _RUNS[key] = _suit_runs(s, m)
        out.extend(found)
    return out


def _run_span(meld: TableMeld) -> tuple[int, int, int]:
    """(suit, low position, high position) of a run on the table."""
    first, last = meld.cards[0], meld.cards[-1]
    lo = first % 13 + 1
    hi = 14 if last % 13 == 0 and len(meld.cards) > 1 and lo != 1 else last % 13 + 1
    return first // 13, lo, hi


def find_layoffs(
    cards: Iterable[Card], melds: Iterable[TableMeld]
) -> list[tuple[tuple[Card, ...], int]]:
    """Every (cards, meld id) lay-off that ``cards`` allow onto ``melds``; the cards of a lay-off
    in :func:`order_meld` order. Deterministic: by meld in table order, then fewer cards first.
    """
    held = 0
    for c in cards:
        held |= 1 << c
    out: list[tuple[tuple[Card, ...], int]] = []
    for meld in melds:
        mc = meld.cards
        if meld.kind == SET:
            if len(mc) < 4:
                r = mc[0] % 13
                for c in (r, r + 13, r + 26, r + 39):
                    if held >> c & 1:
                        out.append(((c,), meld.id))
            continue
        first = mc[0]
        base = first - first % 13
        lo = first - base + 1
        last = mc[-1]
        hi = 14 if last == base and lo != 1 else last - base + 1
        down: list[Card] = []
        p = lo - 1
        while p >= 1 and held >> (base + p - 1) & 1:
            down.append(base + p - 1)
            p -= 1
        up: list[Card] = []
        p = hi + 1
        while p <= 14:
            c = base if p == 14 else base + p - 1
            if not held >> c & 1:
                break
            up.append(c)
            p += 1
        if not down and not up:
            continue
        if down and up and down[-1] == base and up[-1] == base:
            up = []  # the 2..K run: the ace fits at either end, the same lay-off
        kd, ku = len(down), len(up)
        for total in range(1, kd + ku + 1):
            for k in range(max(0, total - ku), min(kd, total) + 1):
                group = (*down[:k], *up[: total - k])
                if total == 1:
                    out.append((group, meld.id))
                else:
                    out.append((order_meld(group), meld.id))
    return out


def _table_info(melds: Iterable[TableMeld]) -> tuple[int, list[list[tuple[int, int]]]]:
    """(bitmask of ranks with an open set, per suit the (low, high) positions of its runs)."""
    open_sets = 0
    runs: list[list[tuple[int, int]]] = [[], [], [], []]
    for meld in melds:
        if meld.kind == SET:
            if len(meld.cards) < 4:
                open_sets |= 1 << (meld.cards[0] % 13)
        else:
            suit, lo, hi = _run_span(meld)
            runs[suit].append((lo, hi))
    return open_sets, runs


def _need(
    card: Card,
    pos_masks: list[int],
    rank_count: list[int],
    open_sets: int,
    runs: list[list[tuple[int, int]]],
) -> int:
    """Fewest cards to play ``card`` given position masks (bit p = position p held, the ace at
    bits 1 and 14) and rank counts of the cards at hand (``card`` included); 0 = impossible."""
    suit, rank = divmod(card, 13)
    if open_sets >> rank & 1:
        return 1
    best = 3 if rank_count[rank] >= 3 else 0
    m = pos_masks[suit]
    positions = (1, 14) if rank == 0 else (rank + 1,)
    if not best:
        for p in positions:
            for start in (p - 2, p - 1, p):
                if 1 <= start <= 12 and (m >> start) & 7 == 7:
                    best = 3
                    break
    for lo, hi in runs[suit]:
        for p in positions:
            if p < lo:
                need = lo - p
                bits = (1 << need) - 1
                if (m >> p) & bits != bits:
                    continue
            elif p > hi:
                need = p - hi
                bits = (1 << need) - 1
                if (m >> (hi + 1)) & bits != bits:
                    continue
            else:
                continue
            if not best or need < best:
                best = need
    return best


def _masks(cards: Iterable[Card]) -> tuple[list[int], list[int]]:
    pos_masks = [0, 0, 0, 0]
    rank_count = [0] * 13
    for c in cards:
        s, r = divmod(c, 13)
        pos_masks[s] |= (1 << 1 | 1 << 14) if r == 0 else 1 << (r + 1)
        rank_count[r] += 1
    return pos_masks, rank_count


def can_use_card(card: Card, cards: Iterable[Card], melds: Iterable[TableMeld]) -> int:
    """The fewest cards (``card`` included) that must be played to meld or lay off ``card``
    using ``cards`` (``card`` is added if missing) and the table ``melds``; 0 if impossible.

    This is the check behind a deeper discard-pile pickup: the picked card must be playable
    this turn, leaving at least one card to discard.
    """
    held = set(cards)
    held.add(card)
    pos_masks, rank_count = _masks(held)
    open_sets, runs = _table_info(melds)
    return _need(card, pos_masks, rank_count, open_sets, runs)


def usable_pickups(
    hand: Sequence[Card], discard: Sequence[Card], melds: Iterable[TableMeld]
) -> list[int]:
    """Indices ``i`` (top first, the top itself excluded) of the discard pile where taking
    ``discard[i:]`` is allowed: the picked card ``discard[i]`` can be melded or laid off with
    the hand and the cards above it, leaving at least one card to discard."""
    if len(discard) < 2:
        return []
    pos_masks, rank_count = _masks((*hand, discard[-1]))
    open_sets, runs = _table_info(melds)
    out: list[int] = []
    total = len(hand) + 1
    for i in range(len(discard) - 2, -1, -1):
        c = discard[i]
        s, r = divmod(c, 13)
        pos_masks[s] |= (1 << 1 | 1 << 14) if r == 0 else 1 << (r + 1)
        rank_count[r] += 1
        total += 1
        need = _need(c, pos_masks, rank_count, open_sets, runs)
        if need and total - need >= 1:
            out.append(i)
    return out
