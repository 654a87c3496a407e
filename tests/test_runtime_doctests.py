"""The doctest example of every module of policyc.artifact, policyc.runtime and
policyc.integrations runs (from the repository root: some read the bundled examples)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import policyc.artifact
import policyc.runtime

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(f"{pkg.__name__}.{info.name}" for pkg in (policyc.artifact, policyc.runtime)
                 for info in pkgutil.iter_modules(pkg.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_smolagents_integration_imports():
    pytest.importorskip("smolagents", reason="smolagents is not installed")
    module = importlib.import_module("policyc.integrations.smolagents")
    assert doctest.testmod(module).failed == 0
