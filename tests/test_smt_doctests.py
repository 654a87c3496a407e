"""The doctest example of every public function in policyc.smt and policyc.lint runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import policyc.lint
import policyc.smt

MODULES = sorted(
    f"{pkg.__name__}.{info.name}" for pkg in (policyc.smt, policyc.lint)
    for info in pkgutil.iter_modules(pkg.__path__)
) + ["policyc.smt", "policyc.lint"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
