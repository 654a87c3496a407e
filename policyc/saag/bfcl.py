"""The Berkeley Function Calling Leaderboard's data, read from the installed `bfcl-eval` package.

The package ships, under `bfcl_eval/data/`, one file of questions and function documents per
category (`BFCL_v4_simple_python.json`, JSONL) and the possible answers of each
(`possible_answer/BFCL_v4_simple_python.json`). SAAG assesses single calls from a registry,
so the categories read here are the single-turn ones that have possible answers; the
multi-turn, memory and web-search sets (stateful conversations over classes) and the
irrelevance sets (no call is the right answer) are not.

The data is read from the installed package at run time; policyc ships none of it.
`pip install --no-deps bfcl-eval` installs the data alone (the package's own
dependencies, a whole inference stack, are not needed to read it).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Iterator

from policyc.inputs import is_dir, is_file
from policyc.saag.dataset import DatasetError, Record, loads, read_record, why_not_json

PACKAGE = "bfcl-eval"
#: The single-turn categories with possible answers, in BFCL's order.
CATEGORIES = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
)


#: Categories whose values are source expressions (a variable name for a map), read untyped.
UNTYPED = ("simple_java", "simple_javascript")


class BfclMissing(LookupError):
    """The bfcl-eval package (or one of its data files) is not installed."""


def data_dir() -> Path:
    """The `data` folder of the installed bfcl_eval package (found without importing it)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BfclMissing(f"the {PACKAGE} package is not installed (`pip install --no-deps {PACKAGE}` "
                          "installs its data, which is all policyc reads)")
    for location in spec.submodule_search_locations:
        folder = Path(location) / "data"
        if is_dir(folder):
            return folder
    raise BfclMissing(f"the installed {PACKAGE} package has no data folder")


def category_files(category: str, folder: Path | None = None) -> tuple[Path, Path]:
    """(questions, possible answers) of one category, whatever BFCL version prefix they carry."""
    if category not in CATEGORIES:
        raise BfclMissing(f"unknown BFCL category `{category}`; the categories read are {', '.join(CATEGORIES)}")
    folder = folder or data_dir()
    pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(category)}\.json")
    found = sorted((p for p in folder.iterdir() if pattern.fullmatch(p.name)),
                   key=lambda p: int(pattern.fullmatch(p.name).group(1)))  # type: ignore[union-attr]
    if not found:
        raise BfclMissing(f"the installed {PACKAGE} has no questions for `{category}`")
    questions = found[-1]
    answers = folder / "possible_answer" / questions.name
    if not is_file(answers):
        raise BfclMissing(f"the installed {PACKAGE} has no possible answers for `{category}`")
    return questions, answers


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            if line.strip():
                yield n, line


def iter_category(category: str, folder: Path | None = None) -> Iterator[Record | DatasetError]:
    """The records of one category: each question joined with its possible answers by `id`."""
    questions, answers_path = category_files(category, folder)
    answers: dict[str, object] = {}
    for n, line in _lines(answers_path):
        try:
            item = loads(line)
            answers[str(item["id"])] = item["ground_truth"]
        except (ValueError, KeyError, TypeError) as exc:
            yield DatasetError(f"{answers_path}:{n}", "", f"not a possible answer ({type(exc).__name__})")
    for n, line in _lines(questions):
        where = f"{questions.name}:{n}"
        try:
            item = loads(line)
        except (ValueError, RecursionError) as exc:
            yield DatasetError(where, "", f"not JSON ({why_not_json(exc)})")
            continue
        truth = answers.get(str(item.get("id"))) if isinstance(item, dict) else None
        if truth is None:
            yield DatasetError(where, "id", "no possible answer has this record's id")
            continue
        try:
            yield read_record(item, where, truth, typed=category not in UNTYPED)
        except DatasetError as exc:
            yield exc


def parse_spec(spec: str) -> tuple[str, ...]:
    """The categories a `bfcl` or `bfcl:simple_python,multiple` dataset argument names.

    >>> parse_spec("bfcl:simple_python,multiple"), len(parse_spec("bfcl"))
    (('simple_python', 'multiple'), 10)
    """
    _, _, rest = spec.partition(":")
    names = tuple(n.strip() for n in rest.split(",") if n.strip()) or CATEGORIES
    for n in names:
        if n not in CATEGORIES:
            raise BfclMissing(f"unknown BFCL category `{n}`; the categories read are {', '.join(CATEGORIES)}")
    return names


def is_spec(text: str) -> bool:
    return text == "bfcl" or text.startswith("bfcl:")
