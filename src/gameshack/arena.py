"""The arena: bots play each other over mirrored deal pairs and the strength ladder is measured.

``gameshack arena rummy --a hard --b medium --pairs 1000 --seed 1`` (or ``tiles``). Each pair
plays the same match seed twice with the seats swapped, so both sides get the same cards and
the same first player; luck cancels out and what is left is skill. A match is played to the
target (200 by default) between 2 seats. ``random`` is a uniformly random legal player.

Prints each side's match win rate with a 95% Wilson interval, its average points per
hand/round, and the decision time (p50 / p99) per difficulty. Pairs run on a process pool;
results depend only on the seed (timings aside).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from gameshack.bots import decide
from gameshack.rules.common import derive_seed

__all__ = ["ArenaResult", "MatchRecord", "play_match", "register", "run_arena", "wilson"]

PLAYERS = ("random", "easy", "medium", "hard")
MAX_ACTIONS_PER_HAND = 4000  # a hand nobody can finish (bots hoarding forever) is abandoned
RANDOM_TURN_MOVES = 12  # a random tile player draws (or confirms) after this many moves
MAX_HANDS_PER_MATCH = 400  # a match nobody can win (totals drifting below zero) is abandoned
# Tile Rummy: after this many rounds in a row thrown in (nobody went out), the match is
# adjudicated on totals — a seat that cannot go out against a never-melding opponent (the
# random player) would otherwise never reach the target. Counted and printed.
TILES_STALEMATE_ROUNDS = 10


def _engine(game: str) -> ModuleType:
    if game == "rummy":
        import gameshack.rules.rummy as rummy

        return rummy
    if game == "tiles":
        import gameshack.rules.tiles as tiles

        return tiles
    raise ValueError(f"unknown game {game!r}")


@dataclass
class MatchRecord:
    """One match: ``players[s]`` played seat ``s``."""

    players: tuple[str, ...]
    winners: tuple[int, ...]  # seats; empty when abandoned
    totals: tuple[int, ...]
    hand_scores: list[tuple[int, ...]]
    abandoned: bool
    times: dict[str, list[float]] = field(default_factory=dict)  # player -> ms per decision
    cpu: dict[str, list[float]] = field(default_factory=dict)  # the same in CPU time
    fallbacks: int = 0
    adjudicated: bool = False  # Tile Rummy stalemate: decided on totals


def _random_action(
    eng: ModuleType, game: str, state: Any, seat: int, rng: random.Random, turn_moves: int
) -> Any:
    legal = eng.legal_actions(state, seat)
    if game == "rummy":
        # Undo stays in: a random pickup can need two undos to get out of a dead end.
        return rng.choice(legal)
    if turn_moves >= RANDOM_TURN_MOVES:
        for a in legal:
            if type(a).__name__ == "Confirm":
                return a
        return next(a for a in legal if type(a).__name__ in ("Draw", "NextRound"))
    return rng.choice(legal)


def _match_over(eng: ModuleType, state: Any) -> bool:
    return bool(eng.match_outcome(state) is not None)


def play_match(game: str, seed: int, players: Sequence[str], target: int = 200) -> MatchRecord:
    """Play one match of ``players`` (one per seat) from ``seed`` to the target."""
    eng = _engine(game)
    state = eng.new_match(eng.Config(seats=len(players), target=target), seed)
    memories: list[dict[str, Any] | None] = [None] * len(players)
    rngs = [random.Random(derive_seed(seed, "bot", s)) for s in range(len(players))]
    times: dict[str, list[float]] = {p: [] for p in players if p != "random"}
    cpu: dict[str, list[float]] = {p: [] for p in players if p != "random"}
    actions_this_hand = 0
    turn_moves = 0
    last_turn = -1
    hands_seen = 0
    abandoned = adjudicated = False
    thrown_in_a_row = 0
    while not _match_over(eng, state):
        acting = sorted(eng.to_act(state))
        seat = acting[0]
        player = players[seat]
        if player == "random":
            cur_turn = getattr(state, "turn", -1)
            turn_moves = turn_moves + 1 if cur_turn == last_turn else 0
            last_turn = cur_turn
            action = _random_action(eng, game, state, seat, rngs[seat], turn_moves)
        else:
            v = eng.view(state, seat)
            # The CPU clock is a system call that can be slow on a loaded machine: read it
            # outside the wall-clock window.
            c0 = time.thread_time()
            t0 = time.perf_counter()
            action, memories[seat] = decide(game, player, v, memories[seat], rngs[seat])
            t1 = time.perf_counter()
            cpu[player].append((time.thread_time() - c0) * 1000.0)
            times[player].append((t1 - t0) * 1000.0)
        before = len(state.results)
        state = eng.apply(state, seat, action)
        actions_this_hand += 1
        if len(state.results) != before:
            actions_this_hand = 0
            hands_seen += 1
            if game == "tiles":
                thrown_in_a_row = thrown_in_a_row + 1 if state.results[-1].winner is None else 0
                if thrown_in_a_row >= TILES_STALEMATE_ROUNDS and not _match_over(eng, state):
                    adjudicated = True
                    break
            if hands_seen >= MAX_HANDS_PER_MATCH and not _match_over(eng, state):
                abandoned = True
                break
        elif actions_this_hand > MAX_ACTIONS_PER_HAND:
            abandoned = True
            break
    fallbacks = sum(int(m.get("fallbacks", 0)) for m in memories if m)
    if abandoned:
        return MatchRecord(
            tuple(players),
            (),
            tuple(state.totals),
            [tuple(r.scores) for r in state.results],
            True,
            times,
            cpu,
            fallbacks,
        )
    if adjudicated:
        top = max(state.totals)
        return MatchRecord(
            tuple(players),
            tuple(s for s, t in enumerate(state.totals) if t == top),
            tuple(state.totals),
            [tuple(r.scores) for r in state.results],
            False,
            times,
            cpu,
            fallbacks,
            adjudicated=True,
        )
    out = eng.match_outcome(state)
    return MatchRecord(
        tuple(players),
        tuple(out.winners),
        tuple(out.scores),
        [tuple(r.scores) for r in state.results],
        False,
        times,
        cpu,
        fallbacks,
    )


def _play_pair(args: tuple[str, int, int, str, str, int]) -> tuple[MatchRecord, MatchRecord]:
    game, seed, index, a, b, target = args
    match_seed = derive_seed(seed, "arena", game, index)
    return (
        play_match(game, match_seed, (a, b), target),
        play_match(game, match_seed, (b, a), target),
    )


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


@dataclass
class ArenaResult:
    game: str
    a: str
    b: str
    pairs: int
    seed: int
    matches: int
    wins: dict[str, float]  # side -> match wins (a tie counts half to each tied side)
    ties: int
    abandoned: int
    points: dict[str, list[int]]  # side -> points per hand
    times: dict[str, list[float]]
    cpu: dict[str, list[float]]
    fallbacks: int
    seconds: float
    adjudicated: int = 0  # Tile Rummy matches decided on totals after a stalemate

    def rate(self, side: str) -> float:
        n = self.matches - self.abandoned
        return self.wins[side] / n if n else float("nan")

    def interval(self, side: str) -> tuple[float, float]:
        return wilson(self.wins[side], self.matches - self.abandoned)

    def report(self) -> str:
        n = self.matches - self.abandoned
        lines = [
            f"arena {self.game}: A={self.a} vs B={self.b}, {self.pairs} mirrored pairs "
            f"({self.matches} matches), seed {self.seed}, 2 seats",
        ]
        for label, side in (("A", "a"), ("B", "b")):
            name = self.a if side == "a" else self.b
            lo, hi = self.interval(side)
            pts = self.points[side]
            avg = sum(pts) / len(pts) if pts else float("nan")
            lines.append(
                f"  {label} {name:<7} match win rate {100 * self.rate(side):5.1f}%  "
                f"95% CI [{100 * lo:5.1f}%, {100 * hi:5.1f}%]  "
                f"avg points/hand {avg:+7.2f}  ({len(pts)} hands)"
            )
        lines.append(f"  ties {self.ties}, abandoned {self.abandoned}, decided {n}")
        if self.game == "tiles":
            lines.append(
                f"  adjudicated on totals after {TILES_STALEMATE_ROUNDS} rounds in a row thrown in:"
                f" {self.adjudicated}"
            )
        # Hands (rounds) won: many more samples than matches, which matters for Tile Rummy
        # where a match to 200 between good players is dozens of rounds long.
        pa, pb = self.points["a"], self.points["b"]
        won = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(pa, pb, strict=True))
        lo, hi = wilson(won, len(pa))
        share = won / len(pa) if pa else float("nan")
        lines.append(
            f"  hands won by A {100 * share:5.1f}%  95% CI [{100 * lo:5.1f}%, {100 * hi:5.1f}%]"
            f"  ({len(pa)} hands)"
        )
        for name, ts in sorted(self.times.items()):
            cs = self.cpu.get(name, [])
            lines.append(
                f"  decision time {name:<7} wall p50 {_pct(ts, 0.5):6.2f} p99 {_pct(ts, 0.99):7.2f}"
                f" ms | cpu p50 {_pct(cs, 0.5):6.2f} p99 {_pct(cs, 0.99):7.2f} ms"
                f"  ({len(ts)} decisions)"
            )
        lines.append(f"  illegal-plan fallbacks {self.fallbacks}; wall time {self.seconds:.1f} s")
        return "\n".join(lines)


def run_arena(
    game: str,
    a: str,
    b: str,
    *,
    pairs: int,
    seed: int,
    target: int = 200,
    workers: int | None = None,
) -> ArenaResult:
    """Play ``pairs`` mirrored pairs of ``a`` against ``b`` and gather the figures."""
    for p in (a, b):
        if p not in PLAYERS:
            raise ValueError(f"unknown player {p!r} (one of {', '.join(PLAYERS)})")
    t0 = time.perf_counter()
    jobs = [(game, seed, i, a, b, target) for i in range(pairs)]
    workers = workers or min(2, os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_play_pair, jobs, chunksize=max(1, pairs // (workers * 8))))
    else:
        results = [_play_pair(j) for j in jobs]
    wins = {"a": 0.0, "b": 0.0}
    ties = abandoned = fallbacks = adjudicated = 0
    points: dict[str, list[int]] = {"a": [], "b": []}
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    matches = 0
    for pair in results:
        for rec in pair:
            matches += 1
            fallbacks += rec.fallbacks
            # Seat 0 of the first match of a pair is A; of the second, B.
            first = rec is pair[0]
            side_of = {0: "a" if first else "b", 1: "b" if first else "a"}
            for name, ts in rec.times.items():
                times.setdefault(name, []).extend(ts)
            for name, ts in rec.cpu.items():
                cpu.setdefault(name, []).extend(ts)
            for scores in rec.hand_scores:
                for s, pts in enumerate(scores):
                    points[side_of[s]].append(pts)
            if rec.abandoned:
                abandoned += 1
                continue
            adjudicated += rec.adjudicated
            if len(rec.winners) > 1:
                ties += 1
            for s in rec.winners:
                wins[side_of[s]] += 1.0 / len(rec.winners)
    return ArenaResult(
        game,
        a,
        b,
        pairs,
        seed,
        matches,
        wins,
        ties,
        abandoned,
        points,
        times,
        cpu,
        fallbacks,
        time.perf_counter() - t0,
        adjudicated,
    )


def _main(args: argparse.Namespace) -> int:
    result = run_arena(
        args.game,
        args.a,
        args.b,
        pairs=args.pairs,
        seed=args.seed,
        target=args.target,
        workers=args.workers,
    )
    print(result.report())
    return 0


def register(sub: Any) -> None:
    """Add ``gameshack arena`` to the CLI."""
    p = sub.add_parser("arena", help="measure bots against each other over mirrored deal pairs")
    p.add_argument("game", choices=("rummy", "tiles"))
    p.add_argument("--a", default="hard", choices=PLAYERS, help="side A (default hard)")
    p.add_argument("--b", default="medium", choices=PLAYERS, help="side B (default medium)")
    p.add_argument("--pairs", type=int, default=100, help="mirrored deal pairs (default 100)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--target", type=int, default=200, help="match target (default 200)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2 cores)")
    p.set_defaults(handler=_main)
