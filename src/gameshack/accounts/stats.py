"""Stats and match history for a display name, computed from the server's match records.

The seed: stats are tracked by the name a player plays under, signed in or not; one-on-one
matches only; practice games against bots are not included. So a match counts when it had
exactly two seats, neither of them a bot, and it finished (not left or cancelled).

The store gives this module :class:`PlayedMatch` rows — one per counted match of the name,
seen from that name's seat — and everything here is plain arithmetic on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

__all__ = [
    "NOT_FINISHED",
    "MatchHistoryPage",
    "PlayedMatch",
    "Record",
    "RecordsStatsSource",
    "Result",
    "StatsReport",
    "StatsSource",
    "compute_stats",
    "counted",
    "match_result",
]

Result = Literal["won", "lost", "tied"]
GameKind = Literal["rummy", "tiles"]


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One finished one-on-one match, from the point of view of the player's name."""

    match_id: str
    game: str  # "rummy" | "tiles"
    code: str
    finished_at: float  # epoch seconds
    opponent: str
    my_score: int
    opponent_score: int
    result: Result
    hands: int = 0  # hands/rounds played in the match
    hand_total: int = 0  # the player's hand scores, summed
    best_hand: int | None = None  # the player's best hand score

    @classmethod
    def with_hand_scores(cls, hand_scores: Sequence[int], **kw: object) -> PlayedMatch:
        return cls(
            hands=len(hand_scores),
            hand_total=sum(hand_scores),
            best_hand=max(hand_scores) if hand_scores else None,
            **kw,  # type: ignore[arg-type]
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.match_id,
            "game": self.game,
            "code": self.code,
            "finished_at": self.finished_at,
            "opponent": self.opponent,
            "my_score": self.my_score,
            "opponent_score": self.opponent_score,
            "result": self.result,
            "hands": self.hands,
        }


@dataclass(slots=True)
class Record:
    played: int = 0
    won: int = 0
    lost: int = 0
    tied: int = 0
    hands: int = 0
    hand_total: int = 0
    best_hand: int | None = None
    streak_result: Result | None = None
    streak: int = 0
    _streak_open: bool = field(default=True, repr=False)

    def add(self, m: PlayedMatch) -> None:
        """Add a match; matches must come newest first (for the streak)."""
        self.played += 1
        if m.result == "won":
            self.won += 1
        elif m.result == "lost":
            self.lost += 1
        else:
            self.tied += 1
        self.hands += m.hands
        self.hand_total += m.hand_total
        if m.best_hand is not None and (self.best_hand is None or m.best_hand > self.best_hand):
            self.best_hand = m.best_hand
        if self._streak_open:
            if self.streak_result is None:
                self.streak_result, self.streak = m.result, 1
            elif self.streak_result == m.result:
                self.streak += 1
            else:
                self._streak_open = False

    def merge(self, other: Record) -> None:
        """Add another record's counts (not its streak)."""
        self.played += other.played
        self.won += other.won
        self.lost += other.lost
        self.tied += other.tied
        self.hands += other.hands
        self.hand_total += other.hand_total
        if other.best_hand is not None and (
            self.best_hand is None or other.best_hand > self.best_hand
        ):
            self.best_hand = other.best_hand

    def to_dict(self) -> dict[str, object]:
        return {
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "tied": self.tied,
            # Ties count as played, not won: a 1-0-1 record is a 50 % win rate.
            "win_rate": round(self.won / self.played, 4) if self.played else None,
            "hands": self.hands,
            "avg_hand": round(self.hand_total / self.hands, 1) if self.hands else None,
            "best_hand": self.best_hand,
            "streak": {"result": self.streak_result, "count": self.streak}
            if self.streak_result
            else None,
        }


@dataclass(frozen=True, slots=True)
class StatsReport:
    name: str
    game: str | None  # None: both games together
    overall: Record
    by_opponent: dict[str, Record]

    def to_dict(self) -> dict[str, object]:
        opponents = sorted(self.by_opponent.items(), key=lambda kv: (-kv[1].played, kv[0]))
        return {
            "name": self.name,
            "game": self.game,
            "overall": self.overall.to_dict(),
            "by_opponent": [{"opponent": k, **v.to_dict()} for k, v in opponents],
        }


@dataclass(frozen=True, slots=True)
class MatchHistoryPage:
    name: str
    game: str | None
    page: int
    per_page: int
    total: int
    matches: Sequence[PlayedMatch]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "game": self.game,
            "page": self.page,
            "per_page": self.per_page,
            "total": self.total,
            "pages": max(1, -(-self.total // self.per_page)),
            "matches": [m.to_dict() for m in self.matches],
        }


class StatsSource(Protocol):
    """What the store provides: the counted matches of a name, newest first, and the report."""

    async def report(self, name: str, game: str | None) -> StatsReport: ...

    async def played_matches(self, name: str, game: str | None) -> list[PlayedMatch]: ...

    async def history(
        self, name: str, game: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedMatch]]: ...


def compute_stats(name: str, game: str | None, matches: Iterable[PlayedMatch]) -> StatsReport:
    """Overall and head-to-head records from ``matches`` (newest first)."""
    overall = Record()
    by_opponent: dict[str, Record] = {}
    for m in matches:
        overall.add(m)
        by_opponent.setdefault(m.opponent, Record()).add(m)
    return StatsReport(name=name, game=game, overall=overall, by_opponent=by_opponent)


# Match endings that are not a real finish (a leave or a cancel freezes a game; it is not a
# result anyone earned).
NOT_FINISHED = frozenset({"left", "cancelled", "canceled", "ended", "abandoned"})


def counted(names: Sequence[str], bots: Sequence[bool], practice: bool, reason: str) -> bool:
    """Whether a match record counts in the stats: a finished one-on-one match between two
    people under two names (practice games and bots excluded)."""
    if len(names) != 2 or any(bots) or practice or reason in NOT_FINISHED:
        return False
    return names[0] != names[1]  # two players under one name: whose record would it be?


def match_result(seat: int, winners: Sequence[int]) -> Result:
    """A seat's result from the match's recorded winners — the engine's ``Outcome.winners``
    (``match_outcome``), the one place that says who won: won alone, tied when it shares the
    win (or nobody won), lost when another seat won."""
    if seat in winners:
        return "won" if len(winners) == 1 else "tied"
    return "lost" if winners else "tied"


class RecordsStatsSource:
    """The in-memory twin of the SQL stats source: reads the game store port's ``records()``
    (any store — the in-memory one in tests) and filters and scans them on every call."""

    def __init__(self, store: object) -> None:
        self.store = store

    async def _all(self) -> dict[str, list[PlayedMatch]]:
        records = await self.store.records()  # type: ignore[attr-defined]
        hands: dict[str, list[Sequence[int]]] = {}
        by_name: dict[str, list[PlayedMatch]] = {}
        for i, r in enumerate(records):
            if r.scope == "hand":
                hands.setdefault(r.code, []).append(r.scores)
                continue
            if not counted(r.names, r.bots, r.practice, r.reason):
                continue
            for seat in (0, 1):
                by_name.setdefault(r.names[seat], []).append(
                    PlayedMatch.with_hand_scores(
                        [int(h[seat]) for h in hands.get(r.code, [])],
                        match_id=f"{r.code}-{i}",
                        game=r.kind,
                        code=r.code,
                        finished_at=r.finished_at,
                        opponent=r.names[1 - seat],
                        my_score=int(r.scores[seat]),
                        opponent_score=int(r.scores[1 - seat]),
                        result=match_result(seat, r.winners),
                    )
                )
        for matches in by_name.values():
            matches.reverse()  # records come oldest first
            matches.sort(key=lambda m: m.finished_at, reverse=True)
        return by_name

    async def played_matches(self, name: str, game: str | None) -> list[PlayedMatch]:
        return [m for m in (await self._all()).get(name, []) if not game or m.game == game]

    async def report(self, name: str, game: str | None) -> StatsReport:
        return compute_stats(name, game, await self.played_matches(name, game))

    async def history(
        self, name: str, game: str | None, offset: int, limit: int
    ) -> tuple[int, list[PlayedMatch]]:
        matches = await self.played_matches(name, game)
        return len(matches), matches[offset : offset + limit]
