"""``gameshack tiles check`` through the real command-line entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gameshack.cli import main


def test_valid_run_with_a_joker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tiles", "check", "R5 JK R7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid run")
    assert "18 points" in out and "JK = R6" in out


def test_two_tiles_of_one_colour_in_a_group(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tiles", "check", "R7", "R7", "B7"]) == 1
    assert capsys.readouterr().out.strip() == "invalid: a group may not repeat a colour"


def test_unreadable_tile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tiles", "check", "R7 Q7 B7"]) == 2
    assert "'Q7' is not a tile" in capsys.readouterr().out


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tiles", "check", "--json", "JK JK K13"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d == {
        "set": ["JK", "JK", "K13"],
        "valid": True,
        "kind": "group",
        "reason": "group of 13s",
        "value": 39,
        "meanings": ["R13", "B13", "K13"],
    }


def test_installed_command_exit_status() -> None:
    # The console script is what players type; run it as a real process.
    cmd = [sys.executable, "-m", "gameshack.cli", "tiles", "check", "K12 K13 K1"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 1
    assert "invalid" in out.stdout


def test_solve_moves_the_fewest_it_finds_within_its_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # K8 frees the run's joker; the solver keeps it in its run, at the end (0 moved), rather
    # than sending it to the 6s (1 moved)
    table = "K6 R6 Y6 | B3 B4 B5 B6 B7 | R5 Y5 B5 K5 | K7 JK K9 K10"
    args = ["tiles", "solve", "--table", table, "--rack", "R2 K8", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["moved"] == 0 and out["placed"] == ["K8"] and out["value"] == 8
    assert ["K7", "K8", "K9", "K10", "JK"] in out["table"]
    assert main([*args, "--moved-budget", "0"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert (fast["placed"], fast["value"]) == (out["placed"], out["value"])
    assert main([*args, "--moved-budget", "-1"]) == 2
    assert "negative" in capsys.readouterr().out
    assert main(args[:-1]) == 0
    assert capsys.readouterr().out.endswith("placed 1: K8 (8 points, 0 moved)\n")
