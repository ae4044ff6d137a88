"""Prints, as JSON, what the rules answer on a fixed workload: solver plays, random hands/rounds.

Run as a script by ``test_compiled.py``, once with the compiled rules and once with
``GAMESHACK_PURE_PYTHON=1``; the two outputs must be identical.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "rules" / "tiles"))

import tile_solver_ref
from tiles_random_player import random_turn

import gameshack.rules
from gameshack.rules import rummy, tiles
from gameshack.rules.tiles_solver import solve


def solver_answers(count: int) -> list[Any]:
    out = []
    for kind in ("normal", "dense", "initial"):
        for table, rack in tile_solver_ref.instances(kind, count, seed=11):
            s = solve(table, rack, initial_meld=kind == "initial")
            out.append([kind, s.table, s.placed, s.value, s.moved, s.found])
    # with other budgets of work (the same count compiled or not)
    for table, rack in tile_solver_ref.instances("dense", 12, seed=11):
        for budget in (0, 400):
            s = solve(table, rack, moved_budget=budget)
            out.append(["budget", budget, s.table, s.moved])
    return out


def rummy_hands(count: int) -> list[Any]:
    out = []
    for n in range(count):
        rng = random.Random(n)
        seats = 2 + n % 3
        state = rummy.new_match(rummy.Config(seats=seats), seed=n)
        for seat in range(seats):
            state = rummy.apply(state, seat, rummy.Deal())
        while state.phase is rummy.Phase.PLAYING:
            legal = rummy.legal_actions(state, state.turn)
            playable = [a for a in legal if not isinstance(a, rummy.Undo)] or legal
            state = rummy.apply(state, state.turn, rng.choice(playable))
        out.append(rummy.state_to_dict(state))
    return out


def tile_rounds(count: int) -> list[Any]:
    out = []
    for n in range(count):
        rng = random.Random(n)
        state = tiles.new_match(tiles.Config(seats=2 + n % 3), seed=n)
        while state.phase is tiles.Phase.PLAYING:
            seat = state.turn
            for action in random_turn(state, seat, rng):
                state = tiles.apply(state, seat, action)
        out.append(tiles.state_to_dict(state))
    return out


if __name__ == "__main__":
    answers = {
        "solver": solver_answers(int(sys.argv[1])),
        "rummy": rummy_hands(int(sys.argv[2])),
        "tiles": tile_rounds(int(sys.argv[3])),
    }
    print(json.dumps({"compiled": gameshack.rules.COMPILED, "answers": answers}))
