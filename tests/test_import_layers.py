"""The one-way import rule of the design: pokerbot <- abstraction <- blueprint <- realtime <- evaluation.

Every module of a package may import only its own package and those below it,
at module level or inside a function alike (a lazy import is still a
dependency). The CLI's command modules (``pokerbot/commands/``) and the CLI
itself are the one exception: a thin shell that dispatches to every package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["pokerbot", "abstraction", "blueprint", "realtime", "evaluation"]
EXEMPT = ("pokerbot/commands/", "pokerbot/cli.py")


def imported_packages(source: str, module_package: str) -> set[tuple[str, int]]:
    """(top-level project package, line) of every import in ``source`` (relative imports resolve to its own)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            top = module_package if node.level else (node.module or "").split(".")[0]
            found.add((top, node.lineno))
    return {(top, line) for top, line in found if top in LAYERS}


def violations(root: Path = ROOT) -> list[str]:
    bad = []
    for level, package in enumerate(LAYERS):
        allowed = set(LAYERS[: level + 1])
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(EXEMPT):
                continue
            for top, line in sorted(imported_packages(path.read_text(), package)):
                if top not in allowed:
                    bad.append(f"{rel}:{line} imports {top} (a higher layer than {package})")
    return bad


def test_imports_flow_one_way() -> None:
    assert violations() == []


def test_every_layer_has_modules() -> None:
    """The walk sees the packages (else the rule would hold vacuously)."""
    for package in LAYERS:
        if (ROOT / package).is_dir():
            assert list((ROOT / package).rglob("*.py")), package
    assert len(list((ROOT / "pokerbot").rglob("*.py"))) > 10


def test_a_lazy_upward_import_is_caught(tmp_path: Path) -> None:
    """Negative control: a function-level import of a higher layer is reported."""
    for package in LAYERS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "pokerbot" / "x.py").write_text("def f():\n    from blueprint.trainer import Trainer\n")
    (tmp_path / "abstraction" / "y.py").write_text("from . import z\nimport pokerbot.cards\n")
    (tmp_path / "pokerbot" / "commands").mkdir()
    (tmp_path / "pokerbot" / "commands" / "c.py").write_text("import evaluation.match\n")  # exempt
    assert violations(tmp_path) == ["pokerbot/x.py:2 imports blueprint (a higher layer than pokerbot)"]


@pytest.mark.parametrize("source,expected", [
    ("import evaluation.match as m", {("evaluation", 1)}),
    ("from realtime import x", {("realtime", 1)}),
    ("import numpy", set()),
])
def test_imports_are_read(source: str, expected: set) -> None:
    assert imported_packages(source, "pokerbot") == expected
