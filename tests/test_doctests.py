"""The doctest example of every module of policyc runs (from the repository root: some read
the bundled examples). A module whose optional dependency is not installed is skipped."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import policyc

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(["policyc", *(m.name for m in pkgutil.walk_packages(policyc.__path__, "policyc."))])


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith("policyc"):
            pytest.skip(f"optional dependency {exc.name} is not installed")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
