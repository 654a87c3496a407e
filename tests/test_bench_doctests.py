"""The doctest examples of the benchmark modules and of policyc.reward run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import policyc.bench

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> list[str]:
    names = [policyc.bench.__name__, "policyc.reward"]
    names += [m.name for m in pkgutil.walk_packages(policyc.bench.__path__, policyc.bench.__name__ + ".")]
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
