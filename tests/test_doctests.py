"""Every module's examples run as written: the doctests of each library and experiments module."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["pokerbot", "abstraction", "blueprint", "realtime", "evaluation", "experiments"]
#: Examples that solve for tens of seconds: left to ``-m slow``.
SLOW = {"realtime.sog.resolve"}
#: Modules whose every example is ``+SKIP`` (it trains, builds tables or runs a command): shown, not run.
ALL_SKIPPED = {"pokerbot.cli", "abstraction.buckets", "blueprint.demo", "evaluation.demo"}


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                rel = path.relative_to(ROOT).with_suffix("")
                names.append(".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts))
    return names


MODULES = modules_with_examples()


def test_the_examples_are_found() -> None:
    """The walk sees the modules (else every check below would hold vacuously)."""
    assert len(MODULES) > 50 and "pokerbot.ranges" in MODULES and "pokerbot.solver.cfr" in MODULES


@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.slow) if m in SLOW else m for m in MODULES])
def test_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
    assert (result.attempted == 0) == (name in ALL_SKIPPED), name
