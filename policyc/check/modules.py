"""Loading a policy and everything it imports.

`import "file.altl"` is resolved against the importing file's folder; `import declare` names
a module of the standard library (`stdlib/declare.altl`). The prelude (`stdlib/prelude.altl`,
the paper's predicates) is imported into every policy. An import may carry a rename map,
`import "p.altl" rename { tool_a -> verify { i -> index } }`: the imported module (and what it
imports) is read with those tools and arguments renamed, so one procedure serves aliased tools.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from policyc.check.suggest import closest, did_you_mean, unknown_fields
from policyc.diagnostics import Diagnostic, Source, Span
from policyc.inputs import exists, is_dir, is_file
from policyc.resources import stdlib_dir
from policyc.syntax import ast
from policyc.syntax.parser import parse_source, read_source

PRELUDE = "prelude"
#: A policy and its imports may make at most this many module instances (one per file and
#: distinct rename map): enough for any policy written by hand, and a bound for generated ones.
MAX_INSTANCES = 1000


@dataclass(frozen=True)
class Renamer:
    """Maps a module's own tool and argument names to the names of the policy it is part of.

    It is kept flat and canonical: the composition of every rename map on the way from the
    root, as sorted (old, new) pairs without identities. Two import paths that rename a module
    the same way therefore read it as one instance, however many maps they composed, so a
    diamond of imports loads each file once per distinct renaming (not once per path).

    >>> inner = Renamer.of({"a": "b"}, {})
    >>> outer = Renamer.of({"b": "c"}, {("b", "x"): "y"})
    >>> both = inner.within(outer)
    >>> both.tool("a"), both.tool("b"), both.arg("a", "x")
    ('c', 'c', 'y')
    >>> Renamer.of({"a": "a"}, {}).within(IDENTITY) == IDENTITY
    True
    """

    tools: tuple[tuple[str, str], ...] = ()
    args: tuple[tuple[str, str, str], ...] = ()  # (tool as written here, arg, new arg)

    @classmethod
    def of(cls, tools: dict[str, str], args: dict[tuple[str, str], str]) -> "Renamer":
        return cls(tuple(sorted((old, new) for old, new in tools.items() if old != new)),
                   tuple(sorted((t, a, new) for (t, a), new in args.items() if a != new)))

    def tool(self, name: str) -> str:
        return dict(self.tools).get(name, name)

    def arg(self, tool: str, name: str) -> str:
        return {(t, a): new for t, a, new in self.args}.get((tool, name), name)

    def within(self, parent: "Renamer") -> "Renamer":
        """This map applied first, then `parent`'s: the names a module read under this map gets
        in the policy that `parent` maps into."""
        own_tools = dict(self.tools)
        own_args = {(t, a): new for t, a, new in self.args}
        tools = {name: parent.tool(own_tools.get(name, name)) for name in {*own_tools, *dict(parent.tools)}}
        args = {(t, a): parent.arg(self.tool(t), new) for (t, a), new in own_args.items()}
        for t_parent, a, _ in parent.args:  # the parent renames an argument of every tool mapped to it
            for t in [t for t, new in own_tools.items() if new == t_parent] + (
                    [t_parent] if t_parent not in own_tools else []):
                args.setdefault((t, a), parent.arg(t_parent, a))
        return Renamer.of(tools, args)

    def key(self) -> tuple:
        return (self.tools, self.args)

    @property
    def is_identity(self) -> bool:
        return not self.tools and not self.args


IDENTITY = Renamer()


@dataclass
class ModuleInstance:
    """One module, read under one rename map."""

    path: str
    module: ast.Module
    source: Source
    renamer: Renamer
    is_stdlib: bool
    imports: list["ModuleInstance"] = field(default_factory=list)
    import_decls: list[ast.ImportDecl] = field(default_factory=list)


@dataclass
class ModuleGraph:
    root: ModuleInstance
    instances: list[ModuleInstance]  # dependencies before dependents, root last


def stdlib_modules() -> list[str]:
    return sorted(p.stem for p in stdlib_dir().glob("*.altl"))


@cache
def stdlib_definitions() -> dict[str, str]:
    """Predicates and macros of the standard library modules that a policy must import,
    by name -> module (for the hint on an unknown predicate)."""
    found: dict[str, str] = {}
    for name in stdlib_modules():
        if name != PRELUDE:
            for defined in _defined(name):
                found.setdefault(defined, name)
    return found


def _defined(module_name: str) -> list[str]:
    """The names a standard library module defines, in order."""
    source, _ = read_source(stdlib_dir() / f"{module_name}.altl", f"<stdlib>/{module_name}.altl")
    module = parse_source(source)[0] if source is not None else None
    return [decl.name for decl in (module.items if module is not None else ())
            if isinstance(decl, ast.DefDecl | ast.PredicateDecl | ast.ExternDecl)]


class _Loader:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.instances: dict[tuple, ModuleInstance] = {}
        self.order: list[ModuleInstance] = []
        self.parsed: dict[str, tuple[ast.Module | None, Source | None]] = {}
        self.too_many = False

    def parse_file(self, path: Path, display: str) -> tuple[ast.Module | None, Source | None]:
        key = _real(path)
        if key not in self.parsed:
            source, diags = read_source(path, display)
            module = None
            if source is not None:
                module, parse_diags = parse_source(source)
                diags = diags + parse_diags
            self.diagnostics.extend(diags)
            self.parsed[key] = (module, source)
        return self.parsed[key]

    def load(self, path: Path, display: str, renamer: Renamer, is_stdlib: bool,
             stack: list[tuple[str, Span | None]], via: ast.ImportDecl | None) -> ModuleInstance | None:
        real = _real(path)
        key = (real, () if is_stdlib else renamer.key())
        if any(p == real for p, _ in stack):
            cycle = [Path(p).name for p, _ in stack[[p for p, _ in stack].index(real):]] + [Path(real).name]
            assert via is not None
            self.diagnostics.append(Diagnostic(
                "E0102", f"cyclic import: {' -> '.join(f'`{c}`' for c in cycle)}", via.target_span,
                help="move what both modules need into a third module that neither imports back",
            ))
            return None
        if key in self.instances:
            return self.instances[key]
        if len(self.instances) >= MAX_INSTANCES:
            if not self.too_many:
                self.too_many = True
                assert via is not None  # the root is the first instance
                self.diagnostics.append(Diagnostic(
                    "E0105", f"the imports expand to more than {MAX_INSTANCES} modules",
                    via.target_span, help="a module imported under many different rename maps is read once per "
                    "map; import it once, or rename fewer tools"))
            return None
        module, source = self.parse_file(path, display)
        if module is None or source is None:
            return None
        inst = ModuleInstance(display, module, source, renamer, is_stdlib)
        self.instances[key] = inst
        stack = stack + [(real, via.target_span if via else None)]
        imports: list[ast.ImportDecl] = [d for d in module.items if isinstance(d, ast.ImportDecl)]
        if not is_stdlib or path.stem != PRELUDE:
            if not any(not d.is_file and d.target == PRELUDE for d in imports):
                imports.insert(0, ast.ImportDecl(PRELUDE, False, ()))
        for decl in imports:
            target = self.resolve(decl, path)
            if target is None:
                continue
            child_path, child_display, child_std = target
            child_renamer = self.renamer_for(decl, renamer)
            child = self.load(child_path, child_display, child_renamer, child_std, stack, decl)
            if child is not None:
                inst.imports.append(child)
                inst.import_decls.append(decl)
        self.order.append(inst)
        return inst

    def resolve(self, decl: ast.ImportDecl, importer: Path) -> tuple[Path, str, bool] | None:
        if not decl.is_file:
            candidate = stdlib_dir() / (decl.target.replace(".", "/") + ".altl")
            if is_file(candidate):
                return candidate, f"<stdlib>/{decl.target}.altl", True
            self.diagnostics.append(Diagnostic(
                "E0101", f"no standard library module named `{decl.target}`", decl.target_span,
                help=did_you_mean(decl.target, stdlib_modules(), "module")
                or f'to import a file, quote its path: `import "{decl.target}.altl"`',
                fields=unknown_fields(decl.target, stdlib_modules()),
            ))
            return None
        candidate = (importer.parent / decl.target)
        if exists(candidate) and (candidate.suffix != ".altl" or not _real(candidate).endswith(".altl")
                                  or not is_file(candidate)):
            kind = " (a folder)" if is_dir(candidate) else "" if is_file(candidate) else " (not a regular file)"
            self.diagnostics.append(Diagnostic(
                "E0104", f"`{decl.target}` is not a policy file{kind}", decl.target_span,
                help="an import names an `.altl` file (or a module of the standard library, unquoted)"))
            return None
        if is_file(candidate):
            shown = str(candidate)  # a path that opens from here (sources are read again for the hash)
            return candidate, _display(candidate, shown), False
        folder = candidate.parent
        siblings = [p.name for p in folder.glob("*.altl") if is_file(p)] if is_dir(folder) else []
        best = closest(candidate.name, siblings)
        prefix = decl.target[: len(decl.target) - len(Path(decl.target).name)]
        self.diagnostics.append(Diagnostic(
            "E0101", f"cannot find `{decl.target}`", decl.target_span,
            help=f"did you mean `{prefix}{best}`?" if best
            else f"`{decl.target}` is looked up relative to the folder of `{importer.name}`",
            fields={"name": decl.target, **({"suggestion": prefix + best} if best else {})},
        ))
        return None

    @staticmethod
    def renamer_for(decl: ast.ImportDecl, parent: Renamer) -> Renamer:
        if not decl.renames:
            return parent
        own = Renamer.of({r.old: r.new for r in decl.renames},
                         {(r.old, a.old): a.new for r in decl.renames for a in r.args})
        return own.within(parent)


def _real(path: Path) -> str:
    """The path with every symbolic link resolved, as far as they resolve (a link that loops
    stays as it is: reading it then reports the loop)."""
    return os.path.realpath(path)


def _display(path: Path, fallback: str) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return fallback


def load_policy(path: str | Path) -> tuple[ModuleGraph | None, list[Diagnostic]]:
    """Read a policy file and its imports. Never raises on bad input."""
    path = Path(path)
    loader = _Loader()
    root = loader.load(path, str(path), IDENTITY, False, [], None)
    if root is None:
        return None, loader.diagnostics
    return ModuleGraph(root, loader.order), loader.diagnostics


def load_text(text: str, path: str = "<input>") -> tuple[ModuleGraph | None, list[Diagnostic]]:
    """Like `load_policy`, for text that is not in a file (imports resolve from the cwd)."""
    loader = _Loader()
    fake = Path(path)
    source = Source(path, text)
    module, diags = parse_source(source)
    loader.diagnostics.extend(diags)
    if module is None:
        return None, loader.diagnostics
    loader.parsed[_real(fake)] = (module, source)
    root = loader.load(fake, path, IDENTITY, False, [], None)
    if root is None:
        return None, loader.diagnostics
    return ModuleGraph(root, loader.order), loader.diagnostics

