"""The pipeline's import boundaries hold (the import-linter contracts in pyproject.toml), and
the runtime keeps no process-wide state that could change results."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import tomllib
import weakref
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_hold():
    pytest.importorskip("importlinter", reason="import-linter is not installed")
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and done.stdout.count("KEPT") == 4


def test_mypy_checks_every_package():
    """CI's `mypy` exempts no package, and holds the IR, the compiled tables, the runtime,
    artifacts and traces to the flags `--strict` turns on (pyproject.toml)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    overrides = config.get("overrides", [])
    assert config["files"] == ["policyc"] and not any(o.get("ignore_errors") for o in overrides)
    strict = [o for o in overrides if o.get("disallow_untyped_defs") and o.get("disallow_any_generics")
              and o.get("warn_return_any") and o.get("implicit_reexport") is False]
    assert {"policyc.ir.*", "policyc.tables.*", "policyc.runtime.*", "policyc.artifact.*", "policyc.trace.*"} <= \
        {m for o in strict for m in o["module"]}


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    return [package, *(m.name for m in pkgutil.walk_packages(pkg.__path__, package + "."))]


STATEFUL = (dict, list, set, bytearray, weakref.WeakValueDictionary, weakref.WeakKeyDictionary)


@pytest.mark.parametrize("name", _modules("policyc.runtime") + _modules("policyc.tables"))
def test_the_runtime_has_no_module_level_mutable_state(name):
    """No cache or registry lives in a module of the runtime or the tables: compiled things are
    passed explicitly, so nothing one run or monitor does changes another's results."""
    module = importlib.import_module(name)
    for attr, value in vars(module).items():
        if attr.startswith("__") or getattr(value, "__module__", name) != name and not isinstance(value, STATEFUL):
            continue
        assert not isinstance(value, STATEFUL), f"{name}.{attr} is module-level mutable state"
        assert not hasattr(value, "cache_info"), f"{name}.{attr} is a module-level cache"
