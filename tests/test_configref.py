"""The generated references are current: docs/config-reference.md and docs/cli-reference.md equal what
:mod:`evaluation.configref` makes from the code now, and every key of every shipped config is in the first."""

from __future__ import annotations

import argparse
import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest

from evaluation import configref
from pokerbot.cli import build_parser
from evaluation.configref import ConfigRefError, cli_reference, config_reference, kind_of, reference_kinds

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.toml"))
REGENERATE = "regenerate it: python -m evaluation.configref{} > docs/{}"


@pytest.fixture(scope="module")
def kinds() -> list[configref.Kind]:
    return reference_kinds()


def test_the_config_reference_is_current(kinds: list[configref.Kind]) -> None:
    committed = (ROOT / "docs" / "config-reference.md").read_text(encoding="utf-8")
    assert committed == config_reference(kinds), REGENERATE.format("", "config-reference.md")


def test_the_cli_reference_is_current() -> None:
    committed = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    assert committed == cli_reference(), REGENERATE.format(" --cli", "cli-reference.md")


def used_keys(data: dict[str, Any], table: str = "") -> list[tuple[str, str]]:
    """(table, key) of every key of parsed TOML: ``[round.1]`` is table ``round.1``, ``[[lbr]]`` table ``lbr``."""
    out = []
    for key, value in data.items():
        inner = f"{table}.{key}" if table else key
        if isinstance(value, dict):
            out += used_keys(value, inner)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                out += used_keys(item, inner)
        else:
            out.append((table, key))
    return out


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_key_of_a_shipped_config_is_in_the_reference(path: Path, kinds: list[configref.Kind]) -> None:
    kind = kind_of(path, kinds)
    keys = used_keys(tomllib.loads(path.read_text(encoding="utf-8")))
    assert keys
    for table, key in keys:
        found = kind.table(table)
        assert found is not None, f"{path.name}: [{table}] is not a table of {kind.title} configs"
        assert found.free or key in found.keys(), f"{path.name}: {key} of [{table}] is not in the reference"


def test_every_kind_has_shipped_configs_and_tables(kinds: list[configref.Kind]) -> None:
    """The walk sees every kind (else the check above would hold vacuously for one)."""
    assert {kind_of(p, kinds).title for p in CONFIGS} == {k.title for k in kinds}
    assert len(kinds) == 6 and all(k.tables and all(t.rows for t in k.tables) for k in kinds)
    assert sum(len(t.rows) for k in kinds for t in k.tables) > 120


def test_a_round_table_is_found_by_its_number(kinds: list[configref.Kind]) -> None:
    realtime = next(k for k in kinds if k.prefix == "realtime-")
    table = realtime.table("round.3")
    assert table is not None and table.name == "round.N" and "gadget" in table.keys()
    assert realtime.table("round.x") is None and realtime.table("nothing") is None


# --- negative controls: the reference follows the code, and an undocumented key is refused ---------------


@pytest.fixture()
def round_with_new_field(monkeypatch: pytest.MonkeyPatch) -> type:
    """A copy of realtime.config.RoundConfig with one more field, in its place for this test."""
    import realtime.config as rc

    fields = [(f.name, f.type, f) for f in dataclasses.fields(rc.RoundConfig)]
    copy = dataclasses.make_dataclass("RoundConfig", [*fields, ("spare_share", float, dataclasses.field(default=0.25))],
                                      frozen=True)
    copy.__module__ = rc.__name__
    monkeypatch.setattr(rc, "RoundConfig", copy)
    return copy


def test_a_new_field_without_its_meaning_is_refused(round_with_new_field: type) -> None:
    with pytest.raises(ConfigRefError, match=r"\[round.N\]: no KEY_DOCS entry for spare_share"):
        config_reference()


def test_a_new_field_changes_the_reference(round_with_new_field: type, monkeypatch: pytest.MonkeyPatch) -> None:
    import realtime.config as rc

    docs = {**rc.KEY_DOCS, "round.N": {**rc.KEY_DOCS["round.N"], "spare_share": ("share kept spare", "0 .. 1")}}
    monkeypatch.setattr(rc, "KEY_DOCS", docs)
    text = config_reference()
    assert text != (ROOT / "docs" / "config-reference.md").read_text(encoding="utf-8")
    assert "| `spare_share` | float | `0.25` | 0 .. 1 | share kept spare |" in text


def test_a_meaning_for_a_key_the_code_refuses_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import blueprint.config as bc

    docs = bc.KEY_DOCS
    monkeypatch.setattr(bc, "KEY_DOCS", {**docs, "run": {**docs["run"], "gone": "an old key"}})
    with pytest.raises(ConfigRefError, match="KEY_DOCS entries for keys the code does not accept: gone"):
        config_reference()
    monkeypatch.setattr(bc, "KEY_DOCS", {**docs, "extra": {}})
    with pytest.raises(ConfigRefError, match="tables the config does not have: extra"):
        config_reference()


def test_a_key_that_is_no_field_needs_its_type_and_default() -> None:
    with pytest.raises(ConfigRefError, match="x: k is no dataclass field"):
        configref.table_rows(["k"], {"k": "a key"}, {}, "x")
    rows = configref.table_rows(["k"], {"k": ("a key", "", "integer", "`3`")}, {}, "x")
    assert rows == (configref.Row("k", "integer", "`3`", "", "a key"),)


def test_a_new_option_changes_the_cli_reference() -> None:
    parser = build_parser()
    match = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["match"]
    match.add_argument("--rake", type=int, default=5, help="chips taken from each pot")
    text = cli_reference(parser)
    assert text != (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    assert "| `--rake RAKE` | chips taken from each pot (default: 5) | `5` |" in text
    assert "[--rake RAKE]" in text


def test_every_command_and_option_is_in_the_cli_reference() -> None:
    text = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")

    def walk(parser: argparse.ArgumentParser) -> None:
        assert f"`{parser.prog}`" in text
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in text, (parser.prog, option)
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(build_parser())

