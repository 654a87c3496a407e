"""Modules imported when a test first uses them, not when pytest collects the tests.

Collecting the suite imports every test module. A module-level `from agents import Agent`
makes collection import the Agents SDK (and everything it imports) even when only one other
test is run; `lazy("agents")` is the module, imported on first attribute access. `needs`
skips a test module whose optional dependency is not installed, without importing it.

>>> json = lazy("json")
>>> json.dumps([1])
'[1]'
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest


class lazy:
    """A module, imported on first attribute access."""

    def __init__(self, name: str):
        self.__dict__["_name"] = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # pytest asks every module-level object for `__test__` and the like
            raise AttributeError(attr)
        module = importlib.import_module(self.__dict__["_name"])
        self.__dict__.update(vars(module))  # later accesses read the module's names directly
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_name']}>"


def installed(*packages: str) -> bool:
    """Whether every package is importable (found without importing it)."""
    return all(importlib.util.find_spec(p) is not None for p in packages)


def needs(*packages: str, extra: str | None = None):
    """Skip (a module's tests, as `pytestmark`) unless every package is installed."""
    hint = f" (pip install -e '.[test,{extra}]')" if extra else ""
    return pytest.mark.skipif(not installed(*packages), reason=f"{', '.join(packages)} is not installed{hint}")
