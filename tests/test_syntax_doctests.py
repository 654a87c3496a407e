"""The doctest examples of the front end's public functions run (syntax, check, fmt, diagnostics)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import policyc.check
import policyc.fmt
import policyc.syntax

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted({"policyc.diagnostics"} | {
    f"{package.__name__}.{info.name}" for package in (policyc.syntax, policyc.check, policyc.fmt)
    for info in pkgutil.iter_modules(package.__path__)
} | {"policyc.syntax", "policyc.check", "policyc.fmt"})


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
