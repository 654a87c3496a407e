"""Did-you-mean suggestions."""

from __future__ import annotations

import difflib
from typing import Iterable


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `word`, if one is close enough.

    >>> closest("serch", ["search", "read_file", "final_answer"])
    'search'
    >>> closest("Search", ["search"]), closest("zzz", ["search"])
    ('search', None)
    """
    pool = sorted(set(candidates))
    for c in pool:
        if c.lower() == word.lower():
            return c
    matches = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if matches:
        return matches[0]
    folded = {c.lower(): c for c in pool}
    matches = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    return folded[matches[0]] if matches else None


def unknown_fields(word: str, candidates: Iterable[str]) -> dict[str, str]:
    """The fields of a diagnostic about an unknown name: the name, and the suggestion when
    one is close enough (the one `did_you_mean` gives).

    >>> unknown_fields("serch", ["search", "read_file"]), unknown_fields("x", ["search"])
    ({'name': 'serch', 'suggestion': 'search'}, {'name': 'x'})
    """
    best = closest(word, candidates)
    return {"name": word} if best is None else {"name": word, "suggestion": best}


def did_you_mean(word: str, candidates: Iterable[str], what: str = "") -> str | None:
    """A help line: `did you mean ...?`, or the list of choices when there are few.

    >>> did_you_mean("serch", ["search", "read_file"], "tool")
    'did you mean `search`?'
    >>> did_you_mean("x", ["search", "read_file"], "tool")
    'the declared tools are `read_file`, `search`'
    """
    pool = sorted(set(candidates))
    best = closest(word, pool)
    if best is not None:
        return f"did you mean `{best}`?"
    if 0 < len(pool) <= 6:
        label = f"{what}s" if what else "names"
        return f"the declared {label} are " + ", ".join(f"`{c}`" for c in pool)
    return None
