"""Fixtures every layer's tests share: the database URL under test (see databases.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import databases


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A SQLAlchemy URL of an empty database, once on SQLite and once on PostgreSQL."""
    with databases.url_for(request.param, tmp_path) as url:
        assert url is not None
        yield url


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test stale machine code: Python runs a compiled rules module in preference to
    its edited source, so a rules file changed since the last build must be rebuilt first."""
    import gameshack.rules
    from compiled.build import REBUILD, stale

    if gameshack.rules.COMPILED:
        differences = stale(Path(gameshack.rules.__file__).parent)
        if differences:
            raise pytest.UsageError(
                f"the compiled rules are older than their sources ({'; '.join(differences)}): "
                f"{REBUILD}"
            )


def pytest_sessionfinish(session: pytest.Session) -> None:
    databases.drop_template()
