"""Types of the C node function (``_dp_engine.c``); see :class:`.search.Search`."""

from collections.abc import Sequence

def setup_tables(
    trans_cap: Sequence[Sequence[Sequence[int]]],
    deficit: Sequence[Sequence[Sequence[int]]],
    must: Sequence[int],
    spread: Sequence[Sequence[tuple[int, int, int, int]]],
) -> None: ...

class Engine:
    nodes: int
    def __init__(
        self,
        ints: tuple[int, int, int, int, int],
        vn: Sequence[int],
        per_real: Sequence[int],
        kept_max: Sequence[int],
        idx: Sequence[int],
        ents: Sequence[Sequence[int]],
        kept_at: Sequence[Sequence[int]],
        upper: Sequence[Sequence[int]],
        rest: Sequence[Sequence[int]],
    ) -> None: ...
    def f(self, n: int, key: int, need: int) -> int: ...
    def get(self, mk: int) -> tuple[int, int]: ...
