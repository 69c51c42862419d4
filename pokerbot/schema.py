"""Strict reading of config tables (parsed TOML): unknown keys refused, every value of its declared type.

TOML has types, and a config that writes ``duplicate = "false"`` or ``seed = 1.7``
means something other than what ``bool("false")`` or ``int(1.7)`` would make of
it. Every config reader takes its values through here, so that each mistake is a
one-line error naming the file, the key and what was expected, never a silent
coercion or an internal error later:

- :func:`check_keys`: a table's keys are among the known ones (a misspelt section
  or key is refused, with the known ones listed);
- :func:`take`: one value, of a type (``int`` excludes booleans; ``float`` takes
  integers and refuses nan and the infinities; ``bool`` only ``true``/``false``; lists
  of these), optionally ranged;
- :func:`build`: a dataclass from a table, each field checked against its
  annotation (``int``, ``float``, ``bool``, ``str``, ``list[...]``/``tuple[...]``
  of these, ``X | None``).

>>> take({"seed": 3}, "seed", int, 0, "run.toml")
3
>>> take({"duplicate": "false"}, "duplicate", bool, True, "run.toml")
Traceback (most recent call last):
pokerbot.errors.PokerbotError: run.toml: duplicate must be true or false, got 'false'
>>> take({"seed": 1.7}, "seed", int, 0, "run.toml")
Traceback (most recent call last):
pokerbot.errors.PokerbotError: run.toml: seed must be a whole number, got 1.7
>>> check_keys({"sgo": {}}, {"name", "sog"}, "sog.toml")
Traceback (most recent call last):
pokerbot.errors.PokerbotError: sog.toml: unknown key(s) 'sgo' (known: 'name', 'sog')
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pokerbot.errors import PokerbotError

__all__ = ["MISSING", "build", "check_keys", "check_value", "take"]

T = TypeVar("T")

#: ``take``'s default for a required key.
MISSING: Any = object()

_NAMES = {int: "a whole number", float: "a number", bool: "true or false", str: "a string"}


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


def check_keys(table: Mapping[str, Any], known: Iterable[str], where: str = "",
               error: type[Exception] = PokerbotError) -> None:
    """Refuse keys of ``table`` not in ``known``, naming them and the known ones."""
    known = set(known)
    unknown = sorted(set(table) - known)
    if unknown:
        raise error(f"{_prefix(where)}unknown key(s) {', '.join(map(repr, unknown))} "
                    f"(known: {', '.join(map(repr, sorted(known)))})")


def _describe(kind: Any) -> str:
    origin = typing.get_origin(kind)
    if origin in (list, tuple):
        args = [a for a in typing.get_args(kind) if a is not Ellipsis]
        return f"a list of {_describe(args[0]).removeprefix('a ')}s" if args else "a list"
    if origin in (typing.Union, types.UnionType):
        return " or ".join("nothing" if a is type(None) else _describe(a) for a in typing.get_args(kind))
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(kind))
    return _NAMES.get(kind, getattr(kind, "__name__", str(kind)))


def _fits(value: Any, kind: Any) -> bool:
    origin = typing.get_origin(kind)
    if kind is Any or kind is object:
        return True
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is str:
        return isinstance(value, str)
    if kind is type(None):
        return value is None
    if origin in (list, tuple):
        args = [a for a in typing.get_args(kind) if a is not Ellipsis]
        if not isinstance(value, (list, tuple)):
            return False
        if origin is tuple and args and Ellipsis not in typing.get_args(kind):  # a fixed-length tuple
            return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args))
        return not args or all(_fits(v, args[0]) for v in value)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in typing.get_args(kind))
    if origin is typing.Literal:
        return value in typing.get_args(kind)
    if origin is dict or kind is dict:
        return isinstance(value, dict)
    if isinstance(kind, type):
        return isinstance(value, kind)
    return True  # an annotation this module does not check: the dataclass checks it


def check_value(value: Any, kind: Any, key: str, where: str = "", error: type[Exception] = PokerbotError,
                low: float | None = None, high: float | None = None) -> Any:
    """``value`` if it is of ``kind`` (and, for numbers, within ``low..high``); else ``error`` naming ``key``."""
    if not _fits(value, kind):
        raise error(f"{_prefix(where)}{key} must be {_describe(kind)}, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if (low is not None and value < low) or (high is not None and value > high):
            span = (f"in {low:g}..{high:g}" if low is not None and high is not None
                    else f">= {low:g}" if low is not None else f"<= {high:g}")
            raise error(f"{_prefix(where)}{key} must be {span}, got {value!r}")
    return value


def take(table: Mapping[str, Any], key: str, kind: Any, default: Any = MISSING, where: str = "",
         error: type[Exception] = PokerbotError, low: float | None = None, high: float | None = None) -> Any:
    """``table[key]`` checked by :func:`check_value` (``default`` when absent; absent and no default: an error)."""
    if key not in table:
        if default is MISSING:
            raise error(f"{_prefix(where)}missing {key!r}")
        return default
    return check_value(table[key], kind, key, where, error, low, high)


def build(cls: type[T], table: Mapping[str, Any], where: str = "", error: type[Exception] = PokerbotError,
          **fixed: Any) -> T:
    """The dataclass ``cls`` from ``table``: unknown keys refused, each value checked against its field's
    annotation; ``fixed`` fields are passed as given (not from the table). Lists become tuples where the field
    is a tuple."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    if not isinstance(table, Mapping):
        raise error(f"{_prefix(where)}must be a table of keys, got {table!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name not in fixed}
    check_keys(table, fields, where, error)
    kwargs: dict[str, Any] = dict(fixed)
    for key, value in table.items():
        kind = hints.get(key, Any)
        check_value(value, kind, key, where, error)
        if typing.get_origin(kind) is tuple and isinstance(value, list):
            value = tuple(value)
        kwargs[key] = value
    return cls(**kwargs)
