"""Table 1 rows and the ``pokerbot efce`` command (small instances only)."""

from __future__ import annotations

import pytest

from pokerbot.cli import main
from experiments.efce_tables import format_table, table1_row


def test_row_n3_uniform_and_jittered() -> None:
    row = table1_row(3, 2, 5.0, seeds=(0, 1), literal=True)
    assert (row.size, row.subgames) == (382, 9)
    assert round(row.uniform.blueprint * 100, 1) == -14.8 and round(row.uniform.refined * 100, 1) == -14.8
    assert row.jittered is not None and row.jittered.runs == 2
    assert row.jittered.violation <= 1e-7 and row.jittered.min_gain >= -1e-9
    assert row.uniform.violation <= 1e-7
    text = format_table([row], "0 0 0")
    assert "| 3, 2 | 382 | 9 | 5 | -14.81 (-14.8) |" in text


def test_command_runs_and_validates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["efce", "--instances", "3,2", "--gammas", "2", "--seeds", "1"]) == 0
    assert "| 3, 2 | 382 | 9 | 2 | -3.704 (-3.7) | -3.704 (-3.7) |" in capsys.readouterr().out
    for bad in (["--instances", "3,1"], ["--instances", "3"], ["--width", "1.5"], ["--seeds", "-1"]):
        assert main(["efce", *bad]) == 1
        assert "pokerbot efce: error:" in capsys.readouterr().err
