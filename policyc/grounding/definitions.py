"""What a file read by a tool defines: the names grounding accepts as seen (appendix H.3).

The paper applies AST extraction to each chunk a `read_file` call returned: Python's
`ast.parse` for `.py` files, libclang for C and C++ headers with a regex fallback. policyc
uses `ast` for Python (with a line scan for chunks that do not parse) and a regex for C/C++.

>>> sorted(python_definitions("def f():\\n    return 2\\n", "pkg.m")[0])
['f', 'm', 'm.f', 'pkg.m', 'pkg.m.f']
"""

from __future__ import annotations

import ast as pyast
import bisect
import math
import re
import warnings

NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")
#: what any definition (`def`, `class`, `x = `, `x: T`) or number in Python source holds
_DEFINES = re.compile(r"[=:0-9]|def|class")
#: the file name a chunk is parsed under: what it makes Python warn of (`"\d"`, `1jx`) is the
#: tool's content, not the user's code, and is not printed
_CHUNK = "<a file a tool read>"
warnings.filterwarnings("ignore", category=SyntaxWarning, module=re.escape(_CHUNK) + r"\Z")


def python_definitions(source: str, module: str = "") -> tuple[set[str], set[float]]:
    """Names a Python source defines (qualified by class and by `module`) and its numbers.

    A chunk that does not parse (a slice of a file) falls back to a line-based scan.

    >>> names, numbers = python_definitions("class A:\\n    def run(self):\\n        x = 3\\n", "pkg.mod")
    >>> sorted(names), numbers
    (['A', 'A.run', 'mod', 'mod.A', 'mod.A.run', 'pkg.mod', 'pkg.mod.A', 'pkg.mod.A.run', 'run', 'x'], {3.0})
    """
    names: set[str] = set()
    numbers: set[float] = set()
    if _DEFINES.search(source) is None:  # nothing to define a name or show a number: nothing to parse
        return set(_module_suffixes(module)), numbers
    try:
        tree = pyast.parse(source, filename=_CHUNK)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    qualified: set[str] = set()
    if tree is None:
        for m in re.finditer(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)", source, re.M):
            names.add(m.group(1) or m.group(2))
        numbers.update(float(x) for x in NUMBER_RE.findall(source))
    else:
        _walk_python(tree, names, qualified, numbers)
    modules = _module_suffixes(module)
    names.update(modules)
    for mod in modules:
        names.update(f"{mod}.{q}" for q in qualified)
    return names | qualified, numbers


def _walk_python(tree: pyast.AST, names: set[str], qualified: set[str], numbers: set[float]) -> None:
    """Definitions and numeric constants of a module, walked without recursion (a long
    expression such as `x = 1+1+...` nests as deep as it is long)."""
    # (node, class prefix, set collecting qualified names, whether node is the module)
    stack: list[tuple[pyast.AST, str, set[str] | None, bool]] = [(tree, "", qualified, True)]
    while stack:
        node, prefix, into, at_module = stack.pop()
        for child in pyast.iter_child_nodes(node):
            if isinstance(child, (pyast.FunctionDef, pyast.AsyncFunctionDef, pyast.ClassDef)):
                names.add(child.name)
                full = f"{prefix}.{child.name}" if prefix else child.name
                if into is not None:
                    into.add(full)
                inner = full if isinstance(child, pyast.ClassDef) else ""
                stack.append((child, inner, into if inner else None, False))
                continue
            if isinstance(child, (pyast.Assign, pyast.AnnAssign)):
                targets = child.targets if isinstance(child, pyast.Assign) else [child.target]
                for target in targets:
                    for leaf in pyast.walk(target):
                        if isinstance(leaf, pyast.Name):
                            names.add(leaf.id)
                            if into is not None and (prefix or at_module):
                                into.add(f"{prefix}.{leaf.id}" if prefix else leaf.id)
            if isinstance(child, pyast.Constant) and isinstance(child.value, (int, float)) \
                    and not isinstance(child.value, bool) and math.isfinite(child.value):
                numbers.add(float(child.value))
            stack.append((child, prefix, into, False))


def _module_suffixes(module: str) -> list[str]:
    parts = [p for p in module.split(".") if p]
    return [".".join(parts[i:]) for i in range(len(parts))]


#: macros and types
_C_NAMED = re.compile(r"^\s*#\s*define\s+(\w+)|\b(?:struct|class|enum|union|namespace)\s+(\w+)", re.M)
#: what may stand on a line before a function's name (its return type, qualifiers, pointers)
_C_NOT_PREFIX = re.compile(r"[^\w \t*&:<>,~]")
_C_TERMINATOR = re.compile(r"[;{}]")
_C_KEYWORDS = frozenset(("if", "for", "while", "switch", "return", "sizeof"))


def c_definitions(source: str) -> set[str]:
    """Names a C or C++ source defines or declares (macros, types, functions), in time
    linear in the text (a 60 KB file of calls without `;` took half a minute when this was one
    backtracking regex; the names found are that regex's).

    A function is a name that ends the part of its line made of type words (`static int *`,
    `ns::T`), followed by `(`, a parameter list without `;`, `{` or `}`, `)`, an optional
    `const` and `{` or `;`. Macros (`#define`) and types (`struct`, `class`, `enum`, `union`,
    `namespace`) are found where no function's declaration spans them.

    >>> sorted(c_definitions("#define MAX 3\\nstruct point { int x; };\\nint area(struct point p) {\\n"))
    ['MAX', 'area', 'point']
    """
    out: set[str] = set()
    ends = [m.start() for m in _C_TERMINATOR.finditer(source)]  # every `;`, `{`, `}`, in order
    tails: dict[int, int] = {}
    size, at = len(source), 0
    named: tuple[int, int, str] | None = None
    function: tuple[int, int, str] | None = None
    while at <= size:
        if named is None or named[0] < at:
            m = _C_NAMED.search(source, at)
            named = (m.start(), m.end(), m.group(1) or m.group(2)) if m else (size + 1, size + 1, "")
        if function is None or function[0] < at:
            function = _next_function(source, at, ends, tails)
        first = named if named[0] <= function[0] else function  # at one place, macros and types first
        if first[0] > size:
            break
        if first[2] not in _C_KEYWORDS:
            out.add(first[2])
        at = max(first[1], first[0] + 1)
    return out


def _next_function(source: str, at: int, ends: list[int], tails: dict[int, int]) -> tuple[int, int, str]:
    """(start, end, name) of the first function declaration at a line start at or after `at`."""
    size = len(source)
    start = at if at == 0 or source[at - 1] == "\n" else source.find("\n", at) + 1
    while 0 < start <= size or start == 0 and at == 0:
        end = source.find("\n", start)
        end = size if end < 0 else end
        found = _function_at(source, start, end, ends, tails)
        if found is not None:
            return start, found[1], found[0]
        if end >= size:
            break
        start = end + 1
    return size + 1, size + 1, ""


def _function_at(source: str, start: int, end: int, ends: list[int], tails: dict[int, int]) -> tuple[str, int] | None:
    """The function declared by the line [start, end), and the end of its declaration."""
    bad = _C_NOT_PREFIX.search(source, start, end)
    where = bad.start() if bad is not None else end  # the type words end here
    stop = where
    while stop > start and source[stop - 1] in " \t":
        stop -= 1
    first = stop
    while first > start and (source[first - 1].isalnum() or source[first - 1] == "_"):
        first -= 1
    if first == stop:
        return None
    paren = where
    while paren < len(source) and source[paren].isspace():  # the name's `(` may follow a line break
        paren += 1
    if paren >= len(source) or source[paren] != "(" or paren > where and bad is not None and not source[where].isspace():
        return None
    after = bisect.bisect_right(ends, paren)
    if after == len(ends) or source[ends[after]] == "}":
        return None
    close = ends[after]
    if close not in tails:
        tails[close] = _tail(source, close)
    back = tails[close]
    if back - 1 <= paren or source[back - 1] != ")":
        return None
    return source[first:stop], close + 1


def _tail(source: str, close: int) -> int:
    """Where a parameter list ending before the terminator at `close` must end: after `)`,
    whitespace and an optional `const`."""
    back = close
    while back > 0 and source[back - 1].isspace():
        back -= 1
    if source.endswith("const", 0, back) and (back == 5 or not (source[back - 6].isalnum() or source[back - 6] == "_")):
        back -= 5
        while back > 0 and source[back - 1].isspace():
            back -= 1
    return back
