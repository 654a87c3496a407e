"""What a file read by a tool defines: the names grounding accepts as seen (appendix H.3).

The paper applies AST extraction to each chunk a `read_file` call returned: Python's
`ast.parse` for `.py` files, libclang for C and C++ headers with a regex fallback. policyc
uses `ast` for Python (with a line scan for chunks that do not parse) and a regex for C/C++.

>>> sorted(python_definitions("def f():\\n    return 2\\n", "pkg.m")[0])
['f', 'm', 'm.f', 'pkg.m', 'pkg.m.f']
"""

from __future__ import annotations

import ast as pyast
import math
import re

NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")


def python_definitions(source: str, module: str = "") -> tuple[set[str], set[float]]:
    """Names a Python source defines (qualified by class and by `module`) and its numbers.

    A chunk that does not parse (a slice of a file) falls back to a line-based scan.

    >>> names, numbers = python_definitions("class A:\\n    def run(self):\\n        x = 3\\n", "pkg.mod")
    >>> sorted(names), numbers
    (['A', 'A.run', 'mod', 'mod.A', 'mod.A.run', 'pkg.mod', 'pkg.mod.A', 'pkg.mod.A.run', 'run', 'x'], {3.0})
    """
    names: set[str] = set()
    numbers: set[float] = set()
    try:
        tree = pyast.parse(source)
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


_C_DEFINITIONS = re.compile(
    r"^\s*#\s*define\s+(\w+)"
    r"|\b(?:struct|class|enum|union|namespace)\s+(\w+)"
    r"|^[\w \t\*&:<>,~]*?\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?[{;]", re.M)


def c_definitions(source: str) -> set[str]:
    """Names a C or C++ source defines or declares (macros, types, functions), by regex.

    >>> sorted(c_definitions("#define MAX 3\\nstruct point { int x; };\\nint area(struct point p) {\\n"))
    ['MAX', 'area', 'point']
    """
    out = set()
    for m in _C_DEFINITIONS.finditer(source):
        name = m.group(1) or m.group(2) or m.group(3)
        if name and name not in ("if", "for", "while", "switch", "return", "sizeof"):
            out.add(name)
    return out
