"""A simple, deterministic Rummy player working only from a seat's view (its legal list), so
the same choice can be simulated offline on the engine and played through the browser."""

from __future__ import annotations

from typing import Any

VALUES = {"A": 15, "K": 10, "Q": 10, "J": 10, "10": 10}


def value(card: str) -> int:
    return VALUES.get(card[:-1], 5)


def choose(view: dict[str, Any]) -> str | None:
    """The action this player takes now, or None when it has nothing to do."""
    legal: list[str] = view["legal"]
    if not legal:
        return None
    if "deal" in legal:
        return "deal"
    if "next" in legal:
        return "next"
    stage = view["stage"]
    if stage == "draw":
        top = view["discard"][-1] if view["discard"] else None
        multi = [a for a in legal if a.startswith("take ") and a.split()[1] != top]
        if multi:
            return multi[0]
        return "draw" if "draw" in legal else legal[0]
    if stage != "play":
        return None
    must = view["must_play"]
    plays = [a for a in legal if a.startswith(("meld ", "layoff "))]
    if must:
        plays = [a for a in plays if must in a.split()]
    theirs = {e["meld"] for e in view["log"] if e["kind"] == "meld" and e["seat"] != view["seat"]}
    others = [a for a in plays if a.startswith("layoff ") and int(a.split()[-1]) in theirs]
    if others:
        return others[0]
    if plays:
        # Biggest meld first: it empties the hand fastest.
        return max(plays, key=lambda a: (len(a.split()), -plays.index(a)))
    discards = [a for a in legal if a.startswith("discard ")]
    if discards:
        return max(discards, key=lambda a: (value(a.split()[1]), -discards.index(a)))
    return None


def simulate(
    seed: int, seats: int = 2, max_actions: int = 400, target: int | None = None
) -> dict[str, Any]:
    """Play a match's first hand offline with :func:`choose` for every seat; report what
    happened, so a test can pick a seed whose deal shows the moves it needs."""
    from gameshack.rules import rummy

    state = rummy.new_match(rummy.Config(seats=seats, target=target), seed=seed)
    facts: dict[str, Any] = {
        "seed": seed,
        "multi_take": False,
        "layoff_other": False,
        "turns": 0,
        "reason": None,
        "actions": [],
    }
    for _ in range(max_actions):
        if state.phase.value in ("hand_over", "match_over"):
            r = rummy.view(state, 0).to_dict()["result"]
            facts["reason"] = r["reason"] if r else None
            facts["phase"] = state.phase.value
            facts["winner"] = r["winner"] if r else None
            return facts
        acted = False
        for seat in sorted(rummy.to_act(state)):
            v = rummy.view(state, seat).to_dict()
            a = choose(v)
            if a is None:
                continue
            if a.startswith("take ") and v["discard"] and a.split()[1] != v["discard"][-1]:
                facts["multi_take"] = True
            if a.startswith("layoff "):
                facts["layoff_other"] = True
            state = rummy.apply(state, seat, rummy.parse_action(a))
            facts["actions"].append((seat, a))
            if a.startswith("discard "):
                state = rummy.apply(state, seat, rummy.parse_action("commit"))
                facts["turns"] += 1
            acted = True
            break
        if not acted:
            break
    return facts


# ---- Tile Rummy: find a seed whose deal gives the moves the browser test needs ----


def _tile_sets(rack: list[int]) -> list[tuple[int, ...]]:
    """Every valid group/run (no jokers) that can be made from ``rack`` (tile ids)."""
    from itertools import combinations

    from gameshack.rules.tiles.sets import check_set
    from gameshack.rules.tiles.tiles import face_of, is_joker

    plain = [t for t in rack if not is_joker(face_of(t))]
    by_face: dict[int, int] = {}
    for t in plain:
        by_face.setdefault(face_of(t), t)  # one copy of each face is enough
    out = []
    for n in (3, 4, 5):
        for combo in combinations(sorted(by_face.values(), key=face_of), n):
            if check_set([face_of(t) for t in combo]).valid:
                out.append(combo)
    return out


def initial_meld(rack: list[int]) -> list[tuple[int, ...]] | None:
    """Disjoint rack-only sets worth 30 or more (greedy by value), or None."""
    from gameshack.rules.tiles.sets import check_set
    from gameshack.rules.tiles.tiles import face_of

    sets = sorted(_tile_sets(rack), key=lambda s: -check_set([face_of(t) for t in s]).value)
    used: set[int] = set()
    chosen, total = [], 0
    for s in sets:
        if used.isdisjoint(s):
            chosen.append(s)
            used |= set(s)
            total += check_set([face_of(t) for t in s]).value
            if total >= 30:
                return chosen
    return None


def rearrangement(
    table: list[list[int]], rack: list[int]
) -> tuple[int, int, tuple[int, int]] | None:
    """A table tile that can leave its set (which stays valid) to form a new set with two rack
    tiles: (tile, its set index, (rack1, rack2)), or None."""
    from itertools import combinations

    from gameshack.rules.tiles.sets import check_set
    from gameshack.rules.tiles.tiles import face_of

    for si, s in enumerate(table):
        for pos in (0, len(s) - 1):
            rest = s[:pos] + s[pos + 1 :]
            if len(rest) < 3 or not check_set([face_of(t) for t in rest]).valid:
                continue
            t = s[pos]
            for a, b in combinations(rack, 2):
                trio = sorted((t, a, b), key=face_of)
                if check_set([face_of(x) for x in trio]).valid:
                    return t, si, (a, b)
    return None


def tiles_seed_facts(seed: int) -> dict[str, Any] | None:
    """Offline: the starter melds at once, the other draws, then the starter can rearrange."""
    from gameshack.rules import tiles

    state = tiles.new_match(tiles.Config(seats=2), seed=seed)
    starter = state.turn
    rack = [r["tile"] for r in tiles.view(state, starter).to_dict()["rack"]]
    meld = initial_meld(rack)
    if not meld or not any(len(s) >= 4 for s in meld):
        return None
    arrange = "arrange " + " | ".join(" ".join(str(t) for t in s) for s in meld)
    state = tiles.apply(state, starter, tiles.parse_action(arrange))
    state = tiles.apply(state, starter, tiles.parse_action("confirm"))
    state = tiles.apply(state, 1 - starter, tiles.parse_action("draw"))
    v = tiles.view(state, starter).to_dict()
    move = rearrangement([s["tiles"] for s in v["table"]], [r["tile"] for r in v["rack"]])
    if move is None:
        return None
    return {"seed": seed, "starter": starter, "meld": meld, "move": move}


def tiles_practice(
    seed: int, difficulty: str, target: int, seats: int = 2, max_steps: int = 1000
) -> dict[str, Any]:
    """Offline, the way the server runs a practice Tile Rummy match (see
    ``service.runner._bot_step``): seat 0 is the human, who only draws and deals the next round;
    the other seats are bots seeded per (game seed, seat, version). Returns every round's
    result and how many times the human drew, so a test can pick a seed and a target."""
    import random

    from gameshack.bots import decide
    from gameshack.rules import tiles
    from gameshack.rules.common import derive_seed

    state = tiles.new_match(tiles.Config(seats=seats, target=target), seed=seed)
    version = 1  # the server's "start" action
    memory: dict[int, dict[str, Any] | None] = dict.fromkeys(range(1, seats))
    draws: list[int] = [0]  # per round
    for _ in range(max_steps):
        phase = state.phase.value
        if phase == "match_over":
            break
        if phase == "round_over":
            action: Any = tiles.parse_action("next")
            seat = 0
            draws.append(0)
        elif state.turn == 0:
            action, seat = tiles.parse_action("draw"), 0
            draws[-1] += 1
        else:
            seat = state.turn
            rng = random.Random(derive_seed(seed, "bot", seat, version))
            action, memory[seat] = decide(
                "tiles", difficulty, tiles.view(state, seat), memory[seat], rng
            )
            if isinstance(action, str):
                action = tiles.parse_action(action)
        state = tiles.apply(state, seat, action)
        version += 1
    return {
        "seed": seed,
        "phase": state.phase.value,
        "results": [r.to_dict() for r in state.results],
        "totals": list(state.totals),
        "draws": draws,
    }


def rummy_drag_hint_deal(seed: int) -> dict[str, Any] | None:
    """Offline, a two-player Rummy hand's first turns: both seats draw for first deal (seat 0
    first); the starter takes the discard pile's top card and discards its highest card; the
    other draws from the stock and then holds a meld. None when this seed's deal does not."""
    from gameshack.bots import hint
    from gameshack.rules import rummy

    state = rummy.new_match(rummy.Config(seats=2), seed=seed)
    for seat in (0, 1):
        state = rummy.apply(state, seat, rummy.parse_action("deal"))
    (starter,) = rummy.to_act(state)
    v = rummy.view(state, starter).to_dict()
    top = v["discard"][-1]
    if f"take {top}" not in v["legal"]:
        return None
    state = rummy.apply(state, starter, rummy.parse_action(f"take {top}"))
    v = rummy.view(state, starter).to_dict()
    if v["must_play"]:
        return None
    discards = [a for a in v["legal"] if a.startswith("discard ")]
    discard = max(discards, key=lambda a: (value(a.split()[1]), -discards.index(a))).split()[1]
    state = rummy.apply(state, starter, rummy.parse_action(f"discard {discard}"))
    state = rummy.apply(state, starter, rummy.parse_action("commit"))
    other = 1 - starter
    state = rummy.apply(state, other, rummy.parse_action("draw"))
    v = rummy.view(state, other).to_dict()
    suggestion = hint("rummy", rummy.view(state, other))
    if not any(a.startswith("meld ") for a in v["legal"]) or not suggestion.get("melds"):
        return None
    return {
        "seed": seed,
        "starter": starter,
        "take": top,
        "discard": discard,
        "hand": v["hand"],
        "highlight": suggestion["highlight"],
        "hint_discard": suggestion["discard"],
    }
