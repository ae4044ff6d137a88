"""``gameshack tiles …``: small Tile Rummy tools for players and tests.

``gameshack tiles check "R5 JK R7"`` says whether a set is valid and why (exit 0 valid, 1
invalid, 2 unreadable). Other ``tiles`` subcommands (``solve``) are added in :func:`register`
with one more ``sub.add_parser(...)`` next to ``check``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from gameshack.rules.common import MalformedAction
from gameshack.rules.tiles import JOKER, check_set, face_str, parse_faces

__all__ = ["register"]


def _check(args: argparse.Namespace) -> int:
    text = " ".join(args.set)
    try:
        faces = parse_faces(text)
    except MalformedAction as exc:
        print(f"error: {exc.message}")
        return 2
    result = check_set(faces)
    if args.json:
        print(
            json.dumps(
                {
                    "set": [face_str(f) for f in faces],
                    "valid": result.valid,
                    "kind": result.kind,
                    "reason": result.reason,
                    "value": result.value,
                    "meanings": [face_str(f) for f in result.meanings],
                }
            )
        )
    elif result.valid:
        jokers = [
            f"JK = {face_str(m)}" for f, m in zip(faces, result.meanings, strict=True) if f == JOKER
        ]
        extra = f"; {', '.join(jokers)}" if jokers else ""
        print(f"valid {result.kind}: {result.reason}, {result.value} points{extra}")
    else:
        print(f"invalid: {result.reason}")
    return 0 if result.valid else 1


def _solve(args: argparse.Namespace) -> int:
    from gameshack.rules.tiles_solver import MOVED_BUDGET, solve

    try:
        table = [parse_faces(part) for part in args.table.split("|") if part.strip()]
        rack = parse_faces(args.rack)
        budget = MOVED_BUDGET if args.moved_budget is None else args.moved_budget
        sol = solve(table, rack, initial_meld=args.initial, moved_budget=budget)
    except MalformedAction as exc:
        print(f"error: {exc.message}")
        return 2
    if args.json:
        print(
            json.dumps(
                {
                    "found": sol.found,
                    "table": [[face_str(f) for f in s] for s in sol.table],
                    "placed": [face_str(f) for f in sol.placed],
                    "value": sol.value,
                    "moved": sol.moved,
                }
            )
        )
    elif not sol.found:
        print("no initial meld of 30 or more" if args.initial else "nothing can be placed")
    else:
        for s in sol.table:
            print(" ".join(face_str(f) for f in s))
        placed = " ".join(face_str(f) for f in sol.placed)
        print(f"placed {len(sol.placed)}: {placed} ({sol.value} points, {sol.moved} moved)")
    return 0 if sol.found else 1


def register(subparsers: Any) -> None:
    """Add ``tiles`` and its subcommands to the ``gameshack`` command."""
    tiles = subparsers.add_parser("tiles", help="Tile Rummy tools: check a set, …")
    sub = tiles.add_subparsers(dest="tiles_command", required=True)

    check = sub.add_parser("check", help='is "R5 JK R7" a valid set, and why')
    check.add_argument("set", nargs="+", help='tiles in order, e.g. "R5 JK R7"')
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(handler=_check)

    solve = sub.add_parser("solve", help="the best play of a rack onto a table")
    solve.add_argument("--table", default="", help='sets split by "|": "R1 R2 R3 | K7 B7 Y7"')
    solve.add_argument("--rack", required=True, help='the rack: "R4 K7 JK"')
    solve.add_argument("--initial", action="store_true", help="initial meld (30+ from rack)")
    solve.add_argument(
        "--moved-budget",
        type=int,
        metavar="WORK",
        help="work spent on moving fewer table tiles (0: none; the default is what bots use)",
    )
    solve.add_argument("--json", action="store_true", help="machine-readable output")
    solve.set_defaults(handler=_solve)

    # More tile tools register on `sub` here.
