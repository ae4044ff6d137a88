"""The rules layer is a pure library: importing it pulls in no I/O framework."""

import subprocess
import sys

FORBIDDEN = ["asyncio", "sqlalchemy", "fastapi", "starlette", "uvicorn", "pydantic", "redis"]


def test_rules_import_pulls_in_no_io_framework() -> None:
    code = (
        "import sys, gameshack.rules, gameshack.rules.rummy, gameshack.rules.tiles\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"gameshack.rules imported {out.stdout.strip()}"
