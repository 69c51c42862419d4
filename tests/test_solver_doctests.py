"""The solver modules' examples run as written (doctests)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["pokerbot.solver", "pokerbot.solver.cfr", "pokerbot.solver.passes", "pokerbot.solver.spot",
           "pokerbot.solver.gadgets", "pokerbot.solver.best_response", "pokerbot.solver.navigate"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
