"""The one-way import rule of the design: pokerbot <- abstraction <- blueprint <- realtime <- evaluation
<- experiments.

Every module of a package may import only its own package and those below it,
at module level or inside a function alike (a lazy import is still a
dependency). The CLI's command modules (``pokerbot/commands/``) are the one
exception, a thin shell that dispatches to the packages: :data:`CLI_IMPORTS` lists
exactly which higher packages each command may import.

The research systems (:data:`RESEARCH`: 1-KLSS, safe Stackelberg search, safe EFCE
resolving, Student of Games and the explicit small games they run on) are fenced
off: the HUNL pipeline (abstraction, blueprint, the real-time agent's own modules,
evaluation) never imports them, so they can change or go without touching it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["pokerbot", "abstraction", "blueprint", "realtime", "evaluation", "experiments"]
#: The higher packages each CLI command module may import (a command not listed may import none).
CLI_IMPORTS: dict[str, set[str]] = {
    "pokerbot/commands/abstraction.py": {"abstraction"},
    "pokerbot/commands/demo.py": {"evaluation"},
    "pokerbot/commands/efce.py": {"experiments"},
    "pokerbot/commands/aivat.py": {"evaluation"},
    "pokerbot/commands/convert.py": {"evaluation"},
    "pokerbot/commands/eval.py": {"evaluation"},
    "pokerbot/commands/explore.py": {"evaluation"},
    "pokerbot/commands/klss.py": {"experiments", "realtime"},
    "pokerbot/commands/leafnet.py": {"realtime"},
    "pokerbot/commands/leaves.py": {"blueprint"},
    "pokerbot/commands/match.py": {"evaluation"},
    "pokerbot/commands/play.py": {"evaluation"},
    "pokerbot/commands/sog.py": {"realtime"},
    "pokerbot/commands/stackelberg.py": {"experiments"},
    "pokerbot/commands/street_gain.py": {"realtime"},
    "pokerbot/commands/train.py": {"blueprint"},
}
#: The research systems, by module prefix.
RESEARCH = ("realtime.klss", "realtime.stackelberg", "realtime.efce", "realtime.sog", "pokerbot.efg")
#: Where the HUNL pipeline lives (module prefixes); the research systems themselves and the CLI are outside it.
PIPELINE = ("pokerbot", "abstraction", "blueprint", "realtime", "evaluation")


def imported_modules(source: str, module: str) -> set[tuple[str, int]]:
    """(dotted module name, line) of every import in ``source``, the source of ``module`` (a dotted name):
    ``from a.b import c`` gives ``a.b.c`` (a submodule or a name in ``a.b``: both start with ``a.b``), relative
    imports resolve against ``module``'s package."""
    found: set[tuple[str, int]] = set()
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            found.update((f"{base}.{alias.name}" if base else alias.name, node.lineno) for alias in node.names)
    return found


def imported_packages(source: str, module_package: str) -> set[tuple[str, int]]:
    """(top-level project package, line) of every import in ``source`` (relative imports resolve to its own)."""
    found = {(name.split(".")[0], line) for name, line in imported_modules(source, f"{module_package}.m")}
    return {(top, line) for top, line in found if top in LAYERS}


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def violations(root: Path = ROOT) -> list[str]:
    bad = []
    for level, package in enumerate(LAYERS):
        allowed = set(LAYERS[: level + 1])
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            ok = allowed | CLI_IMPORTS.get(rel, set()) if rel.startswith("pokerbot/commands/") else allowed
            for top, line in sorted(imported_packages(path.read_text(), package)):
                if top not in ok:
                    bad.append(f"{rel}:{line} imports {top} (a higher layer than {package})")
    return bad


def fence_violations(root: Path = ROOT) -> list[str]:
    """Imports of a research system from the HUNL pipeline."""
    bad = []
    for package in PIPELINE:
        for path in sorted((root / package).rglob("*.py")):
            name = module_name(path, root)
            rel = path.relative_to(root).as_posix()
            if name.startswith(RESEARCH) or rel.startswith("pokerbot/commands/"):
                continue
            for imported, line in sorted(imported_modules(path.read_text(), name)):
                if imported.startswith(RESEARCH):
                    bad.append(f"{rel}:{line} imports {imported} (a research system)")
    return bad


def test_imports_flow_one_way() -> None:
    assert violations() == []


def test_the_hunl_pipeline_never_imports_a_research_system() -> None:
    assert fence_violations() == []


def test_cli_allowances_are_all_used() -> None:
    """Each listed allowance is needed today (so the list says exactly what the CLI imports)."""
    for rel, packages in CLI_IMPORTS.items():
        used = {top for top, _ in imported_packages((ROOT / rel).read_text(), "pokerbot")} - {"pokerbot"}
        assert used == packages, rel


def test_a_research_import_in_the_pipeline_is_caught(tmp_path: Path) -> None:
    """Negative control: the agent importing SoG (lazily) or the small-game LPs is reported; SoG importing its own
    modules is not."""
    for d in ("pokerbot/efg", "realtime/sog", "blueprint", "abstraction", "evaluation"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "realtime" / "agent.py").write_text("def f():\n    from realtime.sog import search\n")
    (tmp_path / "blueprint" / "x.py").write_text("import pokerbot.efg.lp\nimport pokerbot.state\n")
    (tmp_path / "realtime" / "sog" / "a.py").write_text("from . import search\nfrom realtime.sog.network import N\n")
    assert fence_violations(tmp_path) == ["blueprint/x.py:1 imports pokerbot.efg.lp (a research system)",
                                          "realtime/agent.py:2 imports realtime.sog.search (a research system)"]


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
    (tmp_path / "pokerbot" / "commands" / "eval.py").write_text("import evaluation.experiment\n")  # allowed
    (tmp_path / "pokerbot" / "commands" / "c.py").write_text("import evaluation.match\n")  # not listed
    assert violations(tmp_path) == ["pokerbot/commands/c.py:1 imports evaluation (a higher layer than pokerbot)",
                                    "pokerbot/x.py:2 imports blueprint (a higher layer than pokerbot)"]


@pytest.mark.parametrize("source,expected", [
    ("import evaluation.match as m", {("evaluation", 1)}),
    ("from realtime import x", {("realtime", 1)}),
    ("import numpy", set()),
])
def test_imports_are_read(source: str, expected: set) -> None:
    assert imported_packages(source, "pokerbot") == expected
