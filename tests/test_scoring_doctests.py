"""The doctest examples of the semantics, trace, grounding and scoring modules run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import policyc.grounding
import policyc.scoring
import policyc.semantics
import policyc.trace

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> list[str]:
    names = []
    for package in (policyc.grounding, policyc.semantics, policyc.trace, policyc.scoring):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
