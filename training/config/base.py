"""What every settings dataclass of ``training`` shares: documented fields, dicts, validation.

The trainers' configs (``TrainerConfig`` and its two trainers), the expert-iteration recipe, the
shipped recipe's settings and a label set's spec are all dataclasses built on ``ConfigBase``, so
that they work alike: each field is documented by the string under it (``field_docs``, which
also gives command-line options their help, ``add_field_options``), a config turns into a
plain dict (``to_dict``) and back (``from_dict``, which refuses a field it does not have by
name), and ``validate()`` refuses a bad value with the checkers of ``training.config.checks``,
naming the field, the value and what is expected.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from training.arguments import seed_argument
from training.config.checks import ConfigError

C = TypeVar("C", bound="ConfigBase")


class ConfigBase:
    """Base of the settings dataclasses: field docstrings, ``to_dict``, ``from_dict``, checks.

    Not a dataclass itself, so that frozen settings (the recipes', a label spec) and mutable
    ones (the trainers' configs, which ``--resume`` and the command line edit) can both build
    on it; a subclass must be a dataclass.
    """

    @classmethod
    def field_docs(cls) -> dict[str, str]:
        """Return each field's docstring (``field_docs`` of this class)."""
        return field_docs(cls)

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a plain dict (nested settings as dicts), ready for JSON."""
        return dataclasses.asdict(self)  # type: ignore[call-overload, no-any-return]

    @classmethod
    def from_dict(cls: type[C], data: Mapping[str, Any]) -> C:
        """Rebuild a validated config from ``to_dict()`` output (e.g. read back from JSON).

        A key that is no field, or a field without a default that is missing, is refused by
        name: a mistyped key would otherwise be dropped, or fail as a Python ``TypeError``.
        JSON has no tuples, so a list read for a ``tuple`` field becomes one; a dict read for
        a field whose default is itself a config is rebuilt as that config.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"{cls.__name__}: expected a mapping of field -> value; got "
                              f"{type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(str(k) for k in data if k not in fields)
        if unknown:
            raise ConfigError(f"{unknown[0]}: not a field of {cls.__name__}; valid fields: "
                              f"{sorted(fields)}")
        missing = [name for name, f in fields.items() if name not in data
                   and f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING]
        if missing:
            raise ConfigError(f"{missing[0]}: missing; {cls.__name__} has no default for it")
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = fields[name].default
            if isinstance(value, list) and str(fields[name].type).startswith("tuple"):
                value = tuple(value)
            elif isinstance(default, ConfigBase) and isinstance(value, Mapping):
                value = type(default).from_dict(value)
            values[name] = value
        cfg = cls(**values)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first invalid field (each subclass checks its own)."""
        raise NotImplementedError(f"{type(self).__name__} does not say how it is checked")


@functools.cache
def _own_field_docs(cls: type) -> dict[str, str]:
    """Return the docstrings of the fields ``cls`` itself declares, spaces folded."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def field_docs(cls: type) -> dict[str, str]:
    """Return each field's docstring (the string under it in the class body), spaces folded.

    The docstrings are the fields' documentation everywhere: in the source, in the API
    reference and in ``gongzhu train --help``, which lists every field as an option. They are
    read through the class hierarchy, base first, so a field declared once in a base class is
    documented once; a subclass that redeclares a field (to change its default) says why under
    it, and its docstring wins. Only dataclass fields are listed, in their order.
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            docs.update(_own_field_docs(klass))
    return {f.name: docs[f.name] for f in dataclasses.fields(cls)
            if f.name in docs}


_OPTION_TYPES: dict[str, type] = {"int": int, "float": float, "str": str}
"""How an option reads a field of each annotation (``bool`` fields are switches)."""


def add_field_options(parser: argparse.ArgumentParser | Any, cls: type,
                      names: Iterable[str] | None = None,
                      defaults: Mapping[str, Any] | None = None) -> None:
    """Give fields of ``cls`` one ``--field-name`` option each, with the field's docstring as help.

    A command whose options are a config's fields then cannot drift from it: the option reads
    the field's type (``int``, ``float``, ``str``; a ``bool`` is a switch), takes the field's
    default (or ``defaults[name]``, where the command's differs or the field has none) and
    explains itself with the field's own documentation. ``names`` picks the fields, in order
    (default: all of them); the parsed value lands in ``args.<field name>``.
    """
    docs = field_docs(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name in (list(fields) if names is None else names):
        f = fields[name]
        default = (defaults or {}).get(name, f.default)
        if default is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{name} has no default; give one in defaults")
        flag = f"--{name.replace('_', '-')}"
        doc = docs.get(name, "").replace("%", "%%")
        kind = str(f.type)
        if kind == "bool":
            action = argparse.BooleanOptionalAction if default else "store_true"
            parser.add_argument(flag, action=action, default=default, help=doc)
        elif name == "seed" and kind == "int":  # every command's --seed reads the same range
            parser.add_argument(flag, type=seed_argument, default=default, help=doc)
        elif kind in _OPTION_TYPES:
            parser.add_argument(flag, type=_OPTION_TYPES[kind], default=default, help=doc)
        else:
            raise TypeError(f"{cls.__name__}.{name}: no option reads a {kind} field")
