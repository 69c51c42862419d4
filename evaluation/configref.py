"""The configuration and command-line references, generated from the code so that they cannot drift.

::

    python -m evaluation.configref > docs/config-reference.md        # every kind of TOML config
    python -m evaluation.configref --cli > docs/cli-reference.md     # every command and sub-command

``tests/test_configref.py`` checks that both committed pages equal what this module makes now.

**Configs.** Each kind (:data:`KINDS`: blueprint, real-time agent, Student of Games, leaf-value network,
continuation strategies, evaluation experiment) is described table by table, key by key. What a table
accepts, and each key's type and default, come from the code that reads the config: the dataclass fields and
the key sets its reader checks against (``_SECTIONS``, ``SECTION_KEYS``, ``BIAS_KEYS`` ...). What a key means
comes from a ``KEY_DOCS`` dict beside that code: TOML table (``""`` for the top level) -> key -> an entry,
either ``"meaning"`` or a tuple ``(meaning, allowed values or range, type, default)`` whose later items may be
left out or ``""`` (:class:`KeyDoc`). An entry's type and default replace the field's (a default given there is
Markdown as written: backticks around a literal); they are needed for a key that is no dataclass field. A key the reader accepts without an entry, or an entry for a key it does not
accept, is a :class:`ConfigRefError`: a new key cannot go undocumented, nor an old one stay documented.
Rows follow the order of ``KEY_DOCS``.

The config modules are named by module path in :data:`KINDS` and imported when the reference is made.

**Commands.** :func:`cli_reference` walks the parsers of :func:`pokerbot.cli.build_parser`: every command
(under its ``--help`` heading) and sub-command, a usage line, and each argument with its help text (as
``--help`` prints it, ``%(default)s`` filled in) and default. The usage line is made here, not by argparse,
so the page does not depend on the terminal's width or on the Python version's formatting.

>>> fields = field_types(Table)
>>> fields["name"], fields["array"], fields["note"]
(('string', 'required'), ('boolean', '`false`'), ('string', '`""`'))
>>> print(render_table(Table("x", table_rows(["n"], {"n": ("how many", ">= 1", "integer", "3")}, {}, "[x]"))))
| key | type | default | allowed | meaning |
|---|---|---|---|---|
| `n` | integer | 3 | >= 1 | how many |
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from pokerbot.errors import PokerbotError
from pokerbot.files import CONFIGS_DIR

__all__ = ["ConfigRefError", "KeyDoc", "Row", "Table", "Kind", "KINDS", "config_reference", "cli_reference",
           "field_types", "table_rows", "render_table", "kind_of", "reference_kinds", "main"]

#: A ``KEY_DOCS`` entry: the meaning, or ``(meaning, allowed, type, default)`` with later items optional.
Entry = str | tuple[str, ...]


class ConfigRefError(PokerbotError):
    """A config key without a meaning, a meaning for a key the code does not accept, or a key with no type."""


class KeyDoc(NamedTuple):
    """One ``KEY_DOCS`` entry, spelled out (empty ``type`` and ``default``: the dataclass field's)."""

    meaning: str
    allowed: str = ""
    type: str = ""
    default: str = ""

    @classmethod
    def of(cls, entry: Entry) -> KeyDoc:
        if isinstance(entry, str):
            return cls(entry)
        if not 1 <= len(entry) <= 4 or not all(isinstance(e, str) for e in entry):
            raise ConfigRefError(f"a KEY_DOCS entry is a string or 1 to 4 strings, got {entry!r}")
        return cls(*entry)


@dataclass(frozen=True)
class Row:
    """One key of a table, as the reference prints it (``default`` already formatted)."""

    key: str
    type: str
    default: str
    allowed: str
    meaning: str


@dataclass(frozen=True)
class Table:
    """A TOML table: ``name`` ``""`` for the top level, ``array`` for an array of tables (``[[lbr]]``);
    ``free``: its keys are the user's names (``[agents]``), the rows say what one holds."""

    name: str
    rows: tuple[Row, ...]
    array: bool = False
    free: bool = False
    note: str = ""

    @property
    def heading(self) -> str:
        if not self.name:
            return "Top level"
        return f"`[[{self.name}]]`" if self.array else f"`[{self.name}]`"

    def keys(self) -> list[str]:
        return [row.key for row in self.rows]


@dataclass(frozen=True)
class Kind:
    """A kind of config: its title, the shipped files' name prefix, what reads it, and its tables."""

    title: str
    prefix: str
    command: str
    intro: str
    source: str
    tables: tuple[Table, ...]

    def table(self, name: str) -> Table | None:
        """The table ``name`` (``round.2`` finds ``round.N``)."""
        for t in self.tables:
            if t.name == name or (t.name.endswith(".N") and re.fullmatch(re.escape(t.name[:-1]) + r"\d+", name)):
                return t
        return None


# --- types and defaults ------------------------------------------------------------------------------------

_TYPE_NAMES: dict[Any, str] = {int: "integer", float: "float", bool: "boolean", str: "string"}


def type_name(annotation: Any) -> str:
    """The TOML type of a field annotation, in words.

    >>> type_name(int), type_name(list[float]), type_name(tuple[int, ...]), type_name(int | None)
    ('integer', 'array of floats', 'array of integers', 'integer (optional)')
    >>> type_name(list[list[float]]), type_name(dict[str, str])
    ('array of arrays of floats', 'table')
    """
    origin = typing.get_origin(annotation)
    if origin in (list, tuple):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        if not args:
            return "array"
        first, _, rest = type_name(args[0]).partition(" ")
        return f"array of {first}s{' ' + rest if rest else ''}"
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        rest = " or ".join(type_name(a) for a in args)
        return f"{rest} (optional)" if len(args) < len(typing.get_args(annotation)) else rest
    if origin is dict or annotation is dict:
        return "table"
    if origin is typing.Literal:
        return " or ".join(toml_literal(a) for a in typing.get_args(annotation))
    return _TYPE_NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def toml_literal(value: Any) -> str:
    """``value`` as it would be written in TOML.

    >>> toml_literal(True), toml_literal(""), toml_literal(-math.inf), toml_literal((0.5, 1.0)), toml_literal(1e-3)
    ('true', '""', '-inf', '[0.5, 1.0]', '0.001')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_literal(v)}" for k, v in value.items()) + "}"
    return str(value)


def field_types(cls: type) -> dict[str, tuple[str, str]]:
    """Each init field of the dataclass ``cls``: (TOML type, default as Markdown: a literal, or ``required``)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            out[f.name] = (type_name(hints[f.name]), "required")
            continue
        out[f.name] = (type_name(hints[f.name]), "not set" if default is None else f"`{toml_literal(default)}`")
    return out


def table_rows(keys: Iterable[str], docs: Mapping[str, Entry], fields: Mapping[str, tuple[str, str]],
               where: str) -> tuple[Row, ...]:
    """The rows of a table whose reader accepts ``keys``, in the order of ``docs`` (its ``KEY_DOCS`` table);
    ``fields``: the type and default of the keys that are dataclass fields. :class:`ConfigRefError` names
    every accepted key without a meaning, every meaning of a key not accepted, and a key without a type."""
    accepted = set(keys)
    missing, extra = sorted(accepted - set(docs)), sorted(set(docs) - accepted)
    if missing or extra:
        parts = ([f"no KEY_DOCS entry for {', '.join(missing)}"] if missing else []) + (
            [f"KEY_DOCS entries for keys the code does not accept: {', '.join(extra)}"] if extra else [])
        raise ConfigRefError(f"{where}: {'; '.join(parts)}")
    rows = []
    for key, entry in docs.items():
        doc = KeyDoc.of(entry)
        kind, default = fields.get(key, ("", ""))
        kind, default = doc.type or kind, doc.default or default
        if not kind or not default:
            raise ConfigRefError(f"{where}: {key} is no dataclass field: its KEY_DOCS entry must give type and default")
        rows.append(Row(key, kind, default, doc.allowed, doc.meaning))
    return tuple(rows)


def _table(name: str, keys: Iterable[str], docs: Mapping[str, Mapping[str, Entry]],
           fields: Mapping[str, tuple[str, str]], source: str, **options: Any) -> Table:
    if name not in docs:
        raise ConfigRefError(f"{source}: KEY_DOCS has no table {name!r}")
    return Table(name, table_rows(keys, docs[name], fields, f"{source} [{name}]" if name else source), **options)


def _check_tables(docs: Mapping[str, Any], tables: Sequence[Table], source: str) -> None:
    extra = sorted(set(docs) - {t.name for t in tables})
    if extra:
        raise ConfigRefError(f"{source}: KEY_DOCS tables the config does not have: {', '.join(extra)}")


def _module(name: str) -> Any:
    return importlib.import_module(name)


# --- the kinds ---------------------------------------------------------------------------------------------


def _blueprint() -> Kind:
    m = _module("blueprint.config")
    docs, fields = m.KEY_DOCS, field_types(m.BlueprintConfig)
    source = "blueprint/config.py"
    tables = [_table("", ["name"], docs, fields, source)]  # config_from_dict: "name", then the sections
    for section, keys in m._SECTIONS.items():
        tables.append(_table(section, keys, docs, {k: fields[f] for k, f in keys.items()}, source))
    _check_tables(docs, tables, source)
    return Kind("Blueprint", "", "`pokerbot train CONFIG`", "Trains a blueprint by external-sampling MCCFR over the card and action "
                "abstractions: `pokerbot train CONFIG` (resumes from its checkpoint; [blueprint.md](blueprint.md)). "
                "The run lands in `$POKERBOT_HOME/blueprints/<name>/`.", "`blueprint/config.py` (`BlueprintConfig`)",
                tuple(tables))


def _realtime() -> Kind:
    m = _module("realtime.config")
    docs, source = m.KEY_DOCS, "realtime/config.py"
    top = [k for k in field_types(m.RealtimeConfig) if k not in ("leaves", "rounds")]
    tables = [_table("", top, docs, field_types(m.RealtimeConfig), source),
              _table("leaves", field_types(m.LeavesConfig), docs, field_types(m.LeavesConfig), source),
              _table("round.N", field_types(m.RoundConfig), docs, field_types(m.RoundConfig), source,
                     note=f"One table per round, `N` = 0 (preflop) .. {m.MAX_ROUNDS - 1}; a round without one "
                          "plays the blueprint.")]
    _check_tables(docs, tables, source)
    return Kind("Real-time agent", m.CONFIG_PREFIX, "an agent spec `realtime?config=NAME`",
                "The nested-solving agent on a blueprint: `realtime.agent:make_agent?config=NAME` (or `realtime` "
                "with `?config=NAME`) in `pokerbot match`, `connect`, `play`, `eval`; a bare `NAME` means "
                "`configs/realtime-NAME.toml` ([realtime.md](realtime.md)).",
                "`realtime/config.py` (`RealtimeConfig`, `LeavesConfig`, `RoundConfig`)", tuple(tables))


def _sog() -> Kind:
    m = _module("realtime.sog.training")
    docs, source, fields = m.KEY_DOCS, "realtime/sog/training.py", field_types(m.TrainConfig)
    tables = [_table("", ["name"], docs, fields, source),  # load_config: the top level holds "name" and [sog]
              _table("sog", fields, docs, fields, source)]
    _check_tables(docs, tables, source)
    return Kind("Student of Games", "sog-", "`pokerbot sog train CONFIG`", "Student of Games training (GT-CFR search, a value-and-policy "
                "network, sound self-play): `pokerbot sog train CONFIG`; the run lands in "
                "`$POKERBOT_HOME/sog/<name>/` ([sog.md](sog.md)).", "`realtime/sog/training.py` (`TrainConfig`)",
                tuple(tables))


def _leafnet() -> Kind:
    run, data, net = _module("realtime.leafnet_run"), _module("realtime.leafnet_data"), _module("blueprint.leafnet")
    docs = {**data.KEY_DOCS, **net.KEY_DOCS}
    by_table = {"leafnet": data.DataConfig, "data": data.DataConfig, "features": net.FeatureSpec,
                "train": net.TrainConfig}
    source = "realtime/leafnet_data.py and blueprint/leafnet.py"
    tables = [_table(name, keys, docs, field_types(by_table[name]), source)
              for name, keys in run.SECTION_KEYS.items()]
    _check_tables(docs, tables, source)
    return Kind("Leaf-value network", "leafnet-", "`pokerbot leafnet train CONFIG`", "The leaf-value network of depth-limited solving: its data "
                "(ray) and training (torch), `pokerbot leafnet train CONFIG` (= `pokerbot leaves train-net "
                "CONFIG`; both steps resume); the run lands in `$POKERBOT_HOME/leafnet/<name>/` "
                "([leafnet.md](leafnet.md)).", "`realtime/leafnet_run.py` (`SECTION_KEYS`), `realtime/leafnet_data.py` "
                "(`DataConfig`), `blueprint/leafnet.py` (`FeatureSpec`, `TrainConfig`)", tuple(tables))


def _leaves() -> Kind:
    m = _module("blueprint.leaves_build")
    docs, source = m.KEY_DOCS, "blueprint/leaves_build.py"
    only = {k: "bias" for k in m.BIAS_KEYS - m.GENERATIVE_KEYS}
    only.update({k: "self-generative" for k in m.GENERATIVE_KEYS - m.BIAS_KEYS})
    table = _table("leaves", m.BIAS_KEYS | m.GENERATIVE_KEYS, docs, {}, source)
    rows = tuple(dataclasses.replace(r, meaning=f"({only[r.key]} only) {r.meaning}") if r.key in only else r
                 for r in table.rows)
    tables = [Table("leaves", rows, note="The only table. A key marked (bias only) or (self-generative only) is "
                                         "refused with the other `method`.")]
    _check_tables(docs, tables, source)
    return Kind("Continuation strategies (leaves)", "leaves-", "`pokerbot leaves build CONFIG`", "The K continuation strategies of depth-limited "
                "solving: `pokerbot leaves build CONFIG`; the set lands in `$POKERBOT_HOME/leaves/<name>/` "
                "([depth-limited.md](depth-limited.md)).", "`blueprint/leaves_build.py` (`LeavesConfig`, "
                "`BIAS_KEYS`, `GENERATIVE_KEYS`)", tuple(tables))


def _experiment() -> Kind:
    m, lbr = _module("evaluation.experiment"), _module("evaluation.lbr")
    docs, source = m.KEY_DOCS, "evaluation/experiment.py"
    tabled = ("agents", "paired", "lbr", "training")
    top = [k for k in m._TOP if k not in tabled]
    run_fields = {**field_types(m.LbrRun), **field_types(lbr.LbrSettings)}
    tables = [_table("", top, docs, field_types(m.Experiment), source),
              Table("agents", table_rows(docs["agents"], docs["agents"], {}, f"{source} [agents]"), free=True,
                    note="Names of your choice, each an agent spec; `matchups` and `[[lbr]]` refer to these names."),
              _table("paired", m._PAIRED, docs, field_types(m.Paired), source, array=True,
                     note="One table per paired comparison: A against B minus a reference against B, hand by hand."),
              _table("lbr", m._LBR, docs, run_fields, source, array=True,
                     note="One table per local-best-response run."),
              _table("training", m._TRAINING, docs, field_types(m.TrainingRun), source, array=True,
                     note="One table per training curve (small games with a lossless abstraction).")]
    if set(m._TOP) != set(top) | set(tabled):
        raise ConfigRefError(f"{source}: the top-level tables are not {', '.join(tabled)}")
    _check_tables(docs, tables, source)
    return Kind("Evaluation experiment", "eval-", "`pokerbot eval CONFIG`", "Matches (with AIVAT), local best response and exploitability "
                "curves: `pokerbot eval CONFIG` writes ACPC logs, `results.csv`, `results.md` and plots under "
                "`runs/eval-<name>/`, resuming where it stopped ([evaluation.md](evaluation.md)).",
                "`evaluation/experiment.py` (`parse_experiment`, `Experiment`, `Paired`, `LbrRun`, `TrainingRun`), "
                "`evaluation/lbr.py` (`LbrSettings`)", tuple(tables))


#: The kinds of config, in the reference's order: each a function that reads its modules (named by path).
KINDS: tuple[Callable[[], Kind], ...] = (_blueprint, _realtime, _sog, _leafnet, _leaves, _experiment)


def reference_kinds() -> list[Kind]:
    """Every kind of config, built from the code now (:class:`ConfigRefError` if a key lacks its meaning)."""
    return [make() for make in KINDS]


def kind_of(path: str | Path, kinds: Sequence[Kind]) -> Kind:
    """The kind of the shipped config ``path``, by its name's prefix (none: a blueprint config)."""
    name = Path(path).name
    prefixed = [k for k in kinds if k.prefix and name.startswith(k.prefix)]
    return prefixed[0] if prefixed else next(k for k in kinds if not k.prefix)


# --- Markdown ----------------------------------------------------------------------------------------------


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading (as tests/test_docs_links.py computes it)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell: on one line, ``|`` escaped, and outside code spans ``<`` and ``*``
    too (a ``<name>`` would be read as an HTML tag, two ``*`` as emphasis).

    >>> _cell("runs/eval-<name> | `a|b` (leaves-*.toml)")
    'runs/eval-\\\\<name> \\\\| `a\\\\|b` (leaves-\\\\*.toml)'
    """
    parts = " ".join(text.split()).split("`")
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = parts[i].replace("<", "\\<").replace("*", "\\*")
    return "`".join(parts).replace("|", "\\|")


def render_table(table: Table) -> str:
    """A table's keys as a Markdown table."""
    lines = ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for r in table.rows:
        lines.append(f"| `{r.key}` | {_cell(r.type)} | {_cell(r.default)} | {_cell(r.allowed)} | "
                     f"{_cell(r.meaning)} |")
    return "\n".join(lines)


_CONFIG_INTRO = """\
Every TOML config pokerbot reads: each table, each key, its type, default, allowed values (or range, where the
code checks one) and meaning. A config is named by its path, or by a bare name meaning `configs/<name>.toml` of
this repository. Unknown tables and keys are refused, and so is a value of the wrong type, each with a one-line
error naming the file and the key: integers are whole numbers (`1.0` is not one), floats also take integers,
booleans are `true` or `false`, and a `required` key must be there.

Generated from the code by `python -m evaluation.configref > docs/config-reference.md`; do not edit it by hand:
a key's meaning lives in the `KEY_DOCS` dict beside the code that reads it (see `evaluation/configref.py`), and
`tests/test_configref.py` fails when this page is not what the code makes."""


def config_reference(kinds: Sequence[Kind] | None = None, configs_dir: Path = CONFIGS_DIR) -> str:
    """The configuration reference (Markdown) of ``kinds`` (default: every kind, :func:`reference_kinds`)."""
    kinds = reference_kinds() if kinds is None else kinds
    shipped: dict[str, list[str]] = {k.title: [] for k in kinds}
    for path in sorted(configs_dir.glob("*.toml"), key=lambda p: p.stem):
        shipped[kind_of(path, kinds).title].append(path.stem)
    out = ["# Configuration reference", "", _CONFIG_INTRO, "",
           "| config | shipped files | read by |", "|---|---|---|"]
    for k in kinds:
        files = f"`configs/{k.prefix}*.toml`" if k.prefix else "`configs/<name>.toml` (other names)"
        out.append(f"| [{k.title}](#{anchor(k.title)}) | {files} | {_cell(k.command)} |")
    for k in kinds:
        out += ["", f"## {k.title}", "", k.intro, "", f"Read by {k.source}. Shipped: "
                + (", ".join(f"`{name}`" for name in shipped[k.title]) or "none") + "."]
        for t in k.tables:
            out += ["", f"### {t.heading}", ""]
            if t.note:
                out += [t.note, ""]
            out.append(render_table(t))
    return "\n".join(out) + "\n"


# --- the command line --------------------------------------------------------------------------------------


def _metavar(action: argparse.Action, positional: bool) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest if positional else action.dest.upper()


def _args_of(action: argparse.Action, metavar: str) -> str:
    nargs = action.nargs
    if isinstance(action, argparse._SubParsersAction):
        return f"{metavar} ..."
    if nargs == 0:
        return ""
    if nargs is None:
        return metavar
    if nargs == "?":
        return f"[{metavar}]"
    if nargs == "*":
        return f"[{metavar} ...]"
    if nargs == "+":
        return f"{metavar} [{metavar} ...]"
    if nargs == argparse.REMAINDER:
        return "..."
    return " ".join([metavar] * int(nargs))


def _option_name(action: argparse.Action) -> str:
    longs = [o for o in action.option_strings if o.startswith("--")]
    return longs[0] if longs else action.option_strings[0]


def usage(parser: argparse.ArgumentParser, width: int = 100) -> str:
    """``parser``'s usage line (long option names, optional ones in brackets), wrapped at ``width``."""
    parts = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        positional = not action.option_strings
        args = _args_of(action, _metavar(action, positional))
        if positional:
            parts.append(args)
        else:
            text = f"{_option_name(action)} {args}".strip()
            parts.append(text if action.required else f"[{text}]")
    lines, line = [], parser.prog
    for part in parts:
        if len(line) + 1 + len(part) > width and line.strip():
            lines.append(line)
            line = " " * (len(parser.prog) + 1) + part
        else:
            line = f"{line} {part}"
    return "\n".join(lines + [line])


def _help(action: argparse.Action, prog: str) -> str:
    """The help text ``--help`` prints for ``action`` (``%(default)s`` and the like filled in)."""
    from pokerbot.cli import HelpFormatter

    text = HelpFormatter(prog)._get_help_string(action) or ""
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    params["prog"] = prog
    for name, value in list(params.items()):
        if hasattr(value, "__name__"):
            params[name] = value.__name__
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return text % params if "%" in text else text


def _default(action: argparse.Action) -> str:
    value = action.default
    if value in (None, "") or value is argparse.SUPPRESS or action.nargs == 0 or not action.option_strings:
        return ""
    if isinstance(value, (list, tuple)):
        return f"`{' '.join(map(str, value))}`" if value else ""
    return f"`{value}`"


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        positional = not action.option_strings
        metavar = _metavar(action, positional)
        if positional:
            name = f"`{metavar}`"
        else:
            args = _args_of(action, metavar)
            name = ", ".join(f"`{o}{' ' + args if args else ''}`" for o in action.option_strings)
        text = _help(action, parser.prog)
        if not text and isinstance(action, argparse._SubParsersAction):
            text = f"one of the sub-commands below: {', '.join(action.choices)}"
        rows.append(f"| {_cell(name)} | {_cell(text)} | {_cell(_default(action))} |")
    if not rows:
        return []
    return ["| argument | meaning | default |", "|---|---|---|", *rows]


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of ``parser``'s sub-commands."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            found += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _command_section(parser: argparse.ArgumentParser, texts: Sequence[str], level: int) -> list[str]:
    out = ["", f"{'#' * level} `{parser.prog}`", ""]
    for text in dict.fromkeys(t for t in texts if t):  # the one-line help, then a longer description if any
        out += [_sentence(text), ""]
    out += ["```text", usage(parser), "```"]
    table = _arguments(parser)
    if table:
        out += ["", *table]
    for name, sub_help, sub in _subcommands(parser):
        out += _command_section(sub, [sub_help, sub.description or ""], level + 1)
    return out


_CLI_INTRO = """\
Every command and sub-command of `pokerbot`: what it does, its usage and each argument with its meaning and
default, as `pokerbot COMMAND --help` prints them. Errors are one line, `pokerbot COMMAND: error: ...`, with
exit status 1 (2 for usage errors; 128 + the signal after Ctrl-C, SIGTERM or SIGHUP); `--debug` or
`POKERBOT_DEBUG=1` shows the traceback. The configs the commands read are in
[config-reference.md](config-reference.md).

Environment: `POKERBOT_HOME` (where artifacts go; default `~/.cache/pokerbot`), `POKERBOT_DEBUG=1` (tracebacks),
`POKERBOT_ALLOW_ANY_AGENT=1` (agent factories outside the registered ones), `POKERBOT_DEVICE` (`cpu`, `cuda` or
`cuda:N`: where the networks run; default CUDA when torch sees it, else the CPU).

Generated from the argparse parsers by `python -m evaluation.configref --cli > docs/cli-reference.md`; do not
edit it by hand: `tests/test_configref.py` fails when this page is not what the parsers make."""


def cli_reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The command-line reference (Markdown) of ``parser`` (default: :func:`pokerbot.cli.build_parser`)."""
    from pokerbot.cli import MAIN_GROUP, build_parser, command_modules

    parser = build_parser() if parser is None else parser
    modules = command_modules()
    commands = _subcommands(parser)
    groups: dict[str, list[tuple[str, str]]] = {MAIN_GROUP: []}
    for name, _, sub in commands:
        module = modules.get(name)
        group = getattr(module, "GROUP", MAIN_GROUP) if module is not None else MAIN_GROUP
        groups.setdefault(group, []).append((name, getattr(module, "HELP", sub.description or "")))
    out = ["# Command-line reference", "", _CLI_INTRO, "", "```text", usage(parser), "```", "",
           *_arguments(parser)]
    for heading, entries in groups.items():
        out += ["", f"**{heading[0].upper() + heading[1:]}**", "", "| command | what it does |", "|---|---|"]
        out += [f"| [`{name}`](#{anchor('pokerbot ' + name)}) | {_cell(text)} |" for name, text in entries]
    for name, _, sub in commands:
        out += _command_section(sub, [getattr(modules.get(name), "HELP", ""), sub.description or ""], 2)
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evaluation.configref [--cli]``: print the configuration (or command-line) reference."""
    ap = argparse.ArgumentParser(prog="python -m evaluation.configref", description=__doc__.splitlines()[0])
    ap.add_argument("--cli", action="store_true", help="the command-line reference instead of the configs'")
    args = ap.parse_args(argv)
    sys.stdout.write(cli_reference() if args.cli else config_reference())
    return 0


if __name__ == "__main__":
    sys.exit(main())
