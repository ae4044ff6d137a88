"""A simple random Tile Rummy player for self-play tests.

Uniformly random legal actions would almost never confirm a valid play, so random rounds would
be nothing but draws. This player finds sets in its own rack (runs, groups, a joker completing a
pair) and, once melded, tiles that extend a table set at either end and rack pairs completed
with a tile taken off a table set that stays valid without it — enough for real plays, table
rearrangements, initial melds with jokers, and rounds won by going out as well as thrown in.
"""

from __future__ import annotations

import functools
import random
from collections import defaultdict

from gameshack.rules.tiles import (
    JOKER,
    Action,
    Arrange,
    Confirm,
    Draw,
    Move,
    MoveNew,
    MoveToRack,
    NextRound,
    Phase,
    SetCheck,
    State,
    apply,
    check_set,
    check_tiles,
    face_of,
    movable_tiles,
    working_table,
)


def rack_sets(rack: list[int], rng: random.Random) -> list[tuple[int, ...]]:
    """Disjoint valid sets (tile ids) from ``rack``, chosen greedily in random order."""
    by_face: list[list[int]] = [[] for _ in range(JOKER + 1)]
    for t in rack:
        by_face[t >> 1 if t < 104 else JOKER].append(t)
    free_jokers = by_face[JOKER]
    candidates: list[list[int]] = []
    for colour in range(4):
        base = colour * 13
        run = 0
        for n in range(13):
            run = run + 1 if by_face[base + n] else 0
            if run >= 2:
                candidates.append(list(range(base + n - min(run, 3) + 1, base + n + 1)))
                if run >= 4:
                    candidates.append(list(range(base + n - run + 1, base + n + 1)))
    for n in range(13):
        faces = [f for f in (n, 13 + n, 26 + n, 39 + n) if by_face[f]]
        if len(faces) >= 2:
            candidates.append(faces)
            if len(faces) == 4:
                candidates.append(faces[:3])
    rng.shuffle(candidates)
    used: set[int] = set()
    chosen: list[tuple[int, ...]] = []
    for faces in candidates:
        tiles: list[int] = []
        for f in faces:
            copies = by_face[f]
            if copies and copies[-1] not in used:
                tiles.append(copies[-1])
            elif len(copies) == 2 and copies[0] not in used:
                tiles.append(copies[0])
            else:
                break
        if len(tiles) != len(faces):
            continue
        if len(tiles) == 2:
            if not free_jokers:
                continue
            tiles.insert(rng.randrange(3), free_jokers.pop())
            if not check_tiles(tiles).valid:  # a joker below 1 or past 13: give it back
                free_jokers.extend(t for t in tiles if t >= 104)
                continue
        # Without a joker a candidate is valid by construction (consecutive run, distinct colours).
        used.update(tiles)
        chosen.append(tuple(tiles))
    return chosen


@functools.lru_cache(maxsize=65536)
def _check(faces: tuple[int, ...]) -> SetCheck:
    # Table sets change little from turn to turn: caching keeps 2,000 rounds fast.
    return check_set(faces)


def _wanted(check: SetCheck, size: int) -> dict[int, bool]:
    """Faces that extend a valid set at an end: face -> at the front (else the back)."""
    m = check.meanings
    if check.kind == "run":
        out = {}
        if m[-1] % 13 < 12:
            out[m[-1] + 1] = False
        if m[0] % 13 > 0:
            out[m[0] - 1] = True
        return out
    if check.kind == "group" and size < 4:
        return {c * 13 + m[0] % 13: False for c in range(4) if c * 13 + m[0] % 13 not in m}
    return {}


def extensions(
    table: list[list[int]], rack: list[int], rng: random.Random
) -> tuple[list[list[int]], list[int]]:
    """Add rack tiles (not jokers) to either end of table sets while the set stays valid."""
    table = [list(s) for s in table]
    wanted: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for i, s in enumerate(table):
        for face, front in _wanted(check_tiles(s), len(s)).items():
            wanted[face].append((i, front))
    played: list[int] = []
    order = [t for t in rack if face_of(t) != JOKER]
    rng.shuffle(order)
    grown: set[int] = set()
    for t in order:
        options = [(i, front) for i, front in wanted.get(face_of(t), ()) if i not in grown]
        if not options:
            continue
        i, front = rng.choice(options)
        # One tile per set per turn keeps the bookkeeping trivial: the set's ends moved.
        table[i] = [t, *table[i]] if front else [*table[i], t]
        grown.add(i)
        played.append(t)
    return table, played


def steals(
    table: list[list[int]], rack: list[int], rng: random.Random
) -> tuple[list[list[int]], list[tuple[int, ...]], list[int]]:
    """Complete rack pairs with a tile taken off a table set that stays valid without it (the
    end of a run of 4+, any tile of a group of 4): a real rearrangement of the table."""
    table = [list(s) for s in table]
    spare: dict[int, list[tuple[int, int]]] = defaultdict(list)  # face -> (set, tile)
    for i, s in enumerate(table):
        check = check_tiles(s)
        if check.kind == "run" and len(s) >= 4:
            spare[check.meanings[0]].append((i, s[0]))
            spare[check.meanings[-1]].append((i, s[-1]))
        elif check.kind == "group" and len(s) == 4:
            for t, m in zip(s, check.meanings, strict=True):
                spare[m].append((i, t))
    if not spare:
        return table, [], []
    by_face: dict[int, int] = {}
    for t in rack:
        if t < 104:
            by_face.setdefault(t >> 1, t)
    touched: set[int] = set()
    used: set[int] = set()
    new_sets: list[tuple[int, ...]] = []
    wanted = list(spare)
    rng.shuffle(wanted)
    for w in wanted:
        colour, n = divmod(w, 13)
        # Rack pairs that make a set with w: run neighbours of one colour, or two other colours.
        pairs = [
            (colour * 13 + a, colour * 13 + b)
            for a, b in ((n + 1, n + 2), (n - 2, n - 1), (n - 1, n + 1))
            if a >= 0 and b <= 12
        ]
        others = [c * 13 + n for c in range(4) if c != colour]
        pairs += [(a, b) for k, a in enumerate(others) for b in others[k + 1 :]]
        for a, b in pairs:
            ta, tb = by_face.get(a), by_face.get(b)
            if ta is None or tb is None or ta in used or tb in used:
                continue
            options = [(i, t) for i, t in spare[w] if i not in touched]
            if not options:
                break
            i, t = rng.choice(options)
            trio = sorted([ta, tb, t], key=lambda x: x if x < 104 else w * 2)
            if not check_tiles(trio).valid:
                continue
            table[i].remove(t)
            touched.add(i)
            used.update((ta, tb))
            new_sets.append(tuple(trio))
            break
    return table, new_sets, sorted(used)


def choose_play(state: State, seat: int, rng: random.Random) -> Arrange | None:
    """An arrangement that plays rack tiles and would be confirmed, or None."""
    rack = list(state.racks[seat])  # the arrangement replaces any work in progress
    new_sets = rack_sets(rack, rng)
    if not state.melded[seat]:
        value = sum(check_tiles(s).value for s in new_sets)
        if value < 30:
            return None
        return Arrange((*state.table, *new_sets))
    used = {t for s in new_sets for t in s}
    rest = [t for t in rack if t not in used]
    table, played = extensions([list(s) for s in state.table], rest, rng)
    rest = [t for t in rest if t not in played]
    table, stolen_sets, stolen = steals(table, rest, rng)
    if not new_sets and not played and not stolen:
        return None
    return Arrange((*(tuple(s) for s in table), *new_sets, *stolen_sets))


def random_turn(state: State, seat: int, rng: random.Random) -> list[Action]:
    """The actions of one turn: a play and confirm if one is found, else a draw."""
    if state.phase is Phase.ROUND_OVER:
        return [NextRound()]
    actions: list[Action] = []
    play = choose_play(state, seat, rng)
    if play is not None:
        actions += [play, Confirm()]
    else:
        actions.append(Draw())
    return actions


def fiddle_moves(state: State, seat: int, rng: random.Random, count: int) -> list[Action]:
    """Up to ``count`` random moves that the rules allow (any position inside a set, new set,
    back to rack), each checked by applying it. Cheaper than sampling ``legal_actions``."""
    out: list[Action] = []
    for _ in range(count):
        tiles = movable_tiles(state, seat)
        if not tiles:
            break
        tile = rng.choice(tiles)
        work = working_table(state)
        committed = {t for s in state.table for t in s}
        src = next((i for i, s in enumerate(work) if tile in s), None)
        options: list[Action] = [MoveNew(tile)]
        if src is not None and tile in state.racks[seat]:
            options.append(MoveToRack(tile))
        for i, s in enumerate(work):
            if state.melded[seat] or committed.isdisjoint(s):
                size = len(s) - (1 if i == src else 0)
                options.append(Move(tile, i, rng.randint(0, size)))
        action = rng.choice(options)
        state = apply(state, seat, action)
        out.append(action)
    return out
