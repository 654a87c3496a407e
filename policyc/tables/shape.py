"""Reading tables from JSON that came from outside: every value checked as it is read.

An artifact is data anyone can edit and reseal (its content hash is no secret). The tables'
`from_json` readers take each field through these helpers, so a table that is not one the
compiler could have written is a `TableError` naming the field (`parts[0].dfa.delta[2][5]`),
never a KeyError deep in the gate, an index out of range, or a search that never ends.

>>> read_int({"initial": 7}, "initial", "dfa", 0, 3)
Traceback (most recent call last):
...
policyc.tables.shape.TableError: dfa.initial: 7 is out of range (0 to 2)
"""

from __future__ import annotations

from typing import Any


class TableError(ValueError):
    """A table whose JSON form is malformed or inconsistent, with the path of the field."""


def field(data: object, key: str, where: str) -> Any:
    """data[key] of a JSON object."""
    if not isinstance(data, dict):
        raise TableError(f"{where}: must be an object, not {_kind(data)}")
    if key not in data:
        raise TableError(f"{where}: the field `{key}` is missing")
    return data[key]


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_int(value: object, where: str, lo: int = 0, hi: int | None = None) -> int:
    """An integer in lo..hi-1 (no upper bound when hi is None)."""
    if not is_int(value):
        raise TableError(f"{where}: must be an integer, not {_kind(value)}")
    assert isinstance(value, int)
    if value < lo or hi is not None and value >= hi:
        bound = f"{lo} or more" if hi is None else f"{lo} to {hi - 1}" if hi > lo else "there are none"
        raise TableError(f"{where}: {value} is out of range ({bound})")
    return value


def read_int(data: object, key: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    return check_int(field(data, key, where), f"{where}.{key}", lo, hi)


def read_list(data: object, key: str, where: str, length: int | None = None) -> list[Any]:
    value = field(data, key, where)
    if not isinstance(value, list):
        raise TableError(f"{where}.{key}: must be a list, not {_kind(value)}")
    if length is not None and len(value) != length:
        raise TableError(f"{where}.{key}: has {len(value)} entries, not {length}")
    return value


def read_str(data: object, key: str, where: str, choices: tuple[str, ...] | None = None) -> str:
    value = field(data, key, where)
    if not isinstance(value, str):
        raise TableError(f"{where}.{key}: must be a string, not {_kind(value)}")
    if choices is not None and value not in choices:
        raise TableError(f"{where}.{key}: `{value[:40]}` is not one of {', '.join(choices)}")
    return value


def read_bool(data: object, key: str, where: str) -> bool:
    value = field(data, key, where)
    if not isinstance(value, bool):
        raise TableError(f"{where}.{key}: must be true or false, not {_kind(value)}")
    return value


def mask_key(text: object, where: str, bits: int) -> int:
    """A truth mask written as a JSON object key ("5"): an integer of at most `bits` bits."""
    if not isinstance(text, str) or not text.isdigit() or len(text) > bits // 3 + 2:
        raise TableError(f"{where}: `{str(text)[:40]}` is not a truth mask")
    return check_int(int(text), where, 0, 1 << bits)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__)


__all__ = ["TableError", "check_int", "field", "is_int", "mask_key", "read_bool", "read_int", "read_list", "read_str"]
