"""Where the grammar and the standard library live.

They sit at the top of the source tree (`grammar/`, `stdlib/`) and are copied into the wheel
as `policyc/_data/...`, so an installed policyc and a checkout find them the same way.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"policyc is installed without its `{name}/` folder")


def grammar_path() -> Path:
    return data_dir("grammar") / "agentltl.lark"


def stdlib_dir() -> Path:
    return data_dir("stdlib")


def examples_dir() -> Path:
    return data_dir("examples")
