"""A real full disk for tests: a tiny tmpfs mounted for one test, and a filler file.

Mounting needs root (or CAP_SYS_ADMIN); where it is refused the tests that need it skip, and the
driver-level fault (``FullDiskConnection``) tests the same logic.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["Filler", "FullDiskConnection", "tiny_tmpfs"]


@contextlib.contextmanager
def tiny_tmpfs(where: Path, size: str = "4m") -> Iterator[Path]:
    """Mount a tmpfs of ``size`` on ``where`` (created) for the block; skip if not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield where
    finally:
        # Lazy: a process that still holds a file there (a server being killed) cannot block it.
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


class Filler:
    """Fills a filesystem to the last byte with one file, and frees it again."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "filler"

    def fill(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (1 << 20, 1 << 16, 4096, 512, 1):
                chunk = b"\0" * size
                try:
                    while True:
                        os.write(fd, chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
        finally:
            os.close(fd)

    def free(self) -> None:
        self.path.unlink(missing_ok=True)


class FullDiskConnection(sqlite3.Connection):
    """A sqlite3 connection whose commits fail as SQLite's do on a full disk, while ``full``."""

    full = False

    def commit(self) -> None:
        if FullDiskConnection.full:
            raise sqlite3.OperationalError("database or disk is full")
        super().commit()
