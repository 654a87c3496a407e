"""Markers of the suite: `slow` tests are left out of the quick subset (`-m "not slow"`);
`nightly` tests run only at nightly size (POLICYC_NIGHTLY=1), where property tests also draw
many more examples (tests/README.md)."""

from __future__ import annotations

import os

import pytest

NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))


def pytest_collection_modifyitems(config, items) -> None:
    if NIGHTLY:
        return
    skip = pytest.mark.skip(reason="nightly size only: set POLICYC_NIGHTLY=1")
    for item in items:
        if "nightly" in item.keywords:
            item.add_marker(skip)
