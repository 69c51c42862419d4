"""Table 1 of the KLSS paper: the ε = 0.25 blueprints and nested 1-KLSS, in the paper's
direction and (where our optimal gadget solutions coincide with the paper's) its figures;
the safe variants on every game; the ``pokerbot klss`` command."""

from __future__ import annotations

import pytest

from pokerbot.cli import main
from experiments.klss_tables import ROWS, table1_row

BY_LABEL = {r.label: r for r in ROWS}


def _row(label: str, safe: bool = False):  # type: ignore[no-untyped-def]
    return table1_row(BY_LABEL[label], safe=safe)


@pytest.mark.parametrize(
    "label,blueprint,after",
    [
        ("2x2 Abrupt Dark Hex", 0.0684, 0.0625),  # paper .0683 (ours .068359...) / .0625
        ("Kuhn poker", 0.0124, 0.0015),
        ("Kuhn poker (ε-bet)", 0.0035, 0.0),
        ("4-card Goofspiel, increasing order", 0.1712, 0.0),  # paper .17 / .0
    ],
)
def test_table1_rows_as_printed(label: str, blueprint: float, after: float) -> None:
    row = _row(label, safe=True)
    assert round(row.blueprint, 4) == blueprint
    assert round(row.after, 4) == after
    assert row.updating <= row.blueprint + 1e-9 and row.updating_max_step < 1e-8
    assert row.independent <= row.blueprint + 1e-9


def test_matching_pennies_gets_worse_but_the_safe_variants_do_not() -> None:
    row = _row("100-Matching pennies", safe=True)
    assert round(row.blueprint, 4) == 0.0013
    assert row.after > 5 * row.blueprint  # paper .0013 -> .0098 (ratio 0.13); ours ~.0102
    assert row.updating <= row.blueprint + 1e-9 and row.independent <= row.blueprint + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize(
    "label,blueprint,improves",
    [
        ("3-rank limit Leduc poker", 0.0207, True),
        ("3-rank limit Leduc poker (ε-fold)", 0.0065, True),
        # paper .0097 -> .0096 (ratio 1.011); ours .00973 -> .00966 (interior point; .0090 with dual
        # simplex; .0099 from an earlier, equally optimal, solution): essentially unchanged
        ("3-rank limit Leduc poker (ε-bet)", 0.0097, False),
        ("4-card Goofspiel, random order", 0.1718, True),
        ("Liar's Dice, 5-sided die", 0.1810, True),
    ],
)
def test_table1_big_rows_and_their_safe_variants(label: str, blueprint: float, improves: bool) -> None:
    row = _row(label, safe=True)
    assert round(row.blueprint, 4) == blueprint
    if improves:
        assert row.after < row.blueprint - 1e-4  # the paper's direction: 1-KLSS helps in practical games
    else:
        assert abs(row.after - row.blueprint) < 5e-4
    assert row.updating <= row.blueprint + 1e-9 and row.updating_max_step < 1e-8
    assert row.independent <= row.blueprint + 1e-9


def test_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["klss", "--games", "kuhn", "--prop3", "10"]) == 0
    out = capsys.readouterr().out
    assert "Kuhn poker (ε-bet)" in out and "0.0124" in out and "0.0015" in out
    assert "N =   10: 0.400000" in out and "-> 1.000000" in out
    assert "load average" in out


def test_command_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["klss", "--games", "chess"]) == 1
    assert "pokerbot klss: error: unknown game 'chess'" in capsys.readouterr().err
    assert main(["klss", "--epsilon", "0.9"]) == 1
