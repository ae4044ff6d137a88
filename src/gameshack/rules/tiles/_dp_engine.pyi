"""Types of the C node function (``_dp_engine.c``); see :class:`._solver_dp._Core`."""

from collections.abc import Sequence

MAX_JOKERS: int

def setup_tables(
    trans_cap: Sequence[Sequence[Sequence[int]]],
    deficit: Sequence[Sequence[Sequence[int]]],
    must: Sequence[int],
    spread: Sequence[Sequence[Sequence[tuple[int, int, int, int]]]],
) -> None: ...

class Engine:
    nodes: int
    budget: int
    def __init__(
        self,
        ints: tuple[int, int, int, int, int, int, int],
        vn: Sequence[int],
        per_real: Sequence[int],
        kept_max: Sequence[int],
        idx: Sequence[int],
        ents: Sequence[tuple[int, ...]],
        kept_params: Sequence[tuple[list[int], list[int], list[int], list[int]] | None],
        out_of_budget: type[Exception],
    ) -> None: ...
    def f(self, n: int, key: int, need: int) -> int: ...
    def get(self, mk: int) -> tuple[int, int]: ...
    def set_bounds(self, upper: Sequence[Sequence[int]], rest: Sequence[Sequence[int]]) -> None: ...
    def set_split(
        self,
        track: Sequence[Sequence[int]],
        track_real: Sequence[Sequence[int]],
        plain: Engine | None,
    ) -> None: ...
