"""Guard atoms: the leaves of event guards, and what each one depends on.

An event guard is a boolean combination (`and`, `or`, `not`) of leaf terms. A letter of the
alphabet fixes the truth of every leaf of one tool's guards, so a guard's truth under a
letter is the boolean combination of its leaves' truth values (`guard_truth`).

Leaves are classified by what they read (`atom_kind`):
  - "call": the arguments or result of the current call (and literals), maybe with the run's
    constants (`request.text`, `metrics`) and its history (`n.Earlier`, made by the compiler;
    provenance, `from` and `flows`): part of a letter, evaluated once per call with the run's
    constants, history stores and sources;
  - "binding": `t == x` or `t != x` with `t` reading only the current call and `x` the
    quantified variable of a sliced rule: part of a letter, evaluated with `x` bound to an
    instance's value;
  - "static": only the quantified variable, the run's constants and literals: fixed per
    binding and per run (a plain part's static atoms read the constants alone);
  - anything else (trace-wide domains, `outputs`, provenance, other variables, a variable
    compared with the call by anything but equality) is outside the compiled fragment.

This module imports only the IR: the runtime uses it to step automata.

>>> from policyc.ir import build as b
>>> g = b.op("and", b.op("eq", b.arg("id"), b.var("o")), b.op("gt", b.arg("n"), b.lit(3)))
>>> [atom_kind(t, "o") for t in guard_leaves(g)]
['binding', 'call']
"""

from __future__ import annotations

from typing import Iterator, Mapping

from policyc.grounding.provenance import REQUEST, in_sources
from policyc.ir import nodes as n
from policyc.ir.ops import truthy

_CONNECTIVES = ("and", "or", "not")


def guard_leaves(t: n.Term) -> Iterator[n.Term]:
    """The leaf terms of a guard, left to right, without the boolean connectives."""
    if isinstance(t, n.Op) and t.op in _CONNECTIVES:
        for a in t.args:
            yield from guard_leaves(a)
    elif not isinstance(t, n.Lit):
        yield t


def guard_truth(t: n.Term, truth: Mapping[n.Term, bool]) -> bool:
    """The truth of a guard given the truth of its leaves (the connectives read ⊥ as false).

    >>> from policyc.ir import build as b
    >>> a, c = b.op("gt", b.arg("n"), b.lit(3)), b.op("eq", b.arg("k"), b.lit("x"))
    >>> guard_truth(b.op("or", a, b.op("not", c)), {a: False, c: True})
    False
    """
    if isinstance(t, n.Op) and t.op in _CONNECTIVES:
        if t.op == "and":
            return all(guard_truth(a, truth) for a in t.args)
        if t.op == "or":
            return any(guard_truth(a, truth) for a in t.args)
        return not guard_truth(t.args[0], truth)
    if isinstance(t, n.Lit):
        return truthy(t.value)
    return truth[t]


def _reads(t: n.Node) -> frozenset[str]:
    """What a term reads: 'call', 'var:NAME', 'const' (the run's request or metrics, fixed for
    a run), 'history' (a history atom), 'global', 'extern' (memoised per node)."""
    key = "automata.reads"
    cached: frozenset[str] | None = t._cache.get(key)
    if cached is not None:
        return cached
    if isinstance(t, (n.Arg, n.Result, n.Attr)):  # an event attribute travels with the arguments
        out = frozenset(("call",))
    elif isinstance(t, n.Var):
        out = frozenset((f"var:{t.name}",))
    elif isinstance(t, (n.Metric, n.Request)):
        out = frozenset(("const",))
    elif isinstance(t, (n.From, n.Flows)):
        # provenance reads the sources the run had seen before the call (its history), the
        # request when it can matter (`reads_request`), and a value of the call
        out = frozenset(("call", "history")) | (frozenset(("const",)) if reads_request(t) else frozenset()) | \
            _reads(t.value if isinstance(t, n.From) else t.text)
    elif isinstance(t, (n.Values, n.Outputs, n.Done)):
        out = frozenset(("global",))
    elif isinstance(t, n.Quant):  # its variable is its own: bound to each element, not tracked across calls
        out = _reads(t.domain) | (_reads(t.body) - {f"var:{t.var}"})
    elif isinstance(t, n.Earlier):  # read at the current call from the run's history: its guard reads earlier calls
        out = frozenset(("call", "history")) | _reads(t.value) | (_reads(t.guard) - {f"var:{t.var}", "call"})
    else:
        out = frozenset().union(*(_reads(c) for c in t.children)) if t.children else frozenset()
        if isinstance(t, n.Extern):
            out |= {"extern"}
    t._cache[key] = out
    return out


def reads_request(t: n.From | n.Flows) -> bool:
    """Whether provenance can depend on the run's request: `flows` and `only from` are false
    when the request shows the value and is not a source; `from` only when it is a source
    (`x from search` reads search's results, whatever the request says)."""
    return isinstance(t, n.Flows) or t.only or in_sources(t.sources, REQUEST)


def reads_result(t: n.Node) -> bool:
    """Whether a term reads the result of the call (unknown when a call is only proposed);
    whether the call failed (`error`) is known only then too."""
    key = "automata.reads_result"
    cached = t._cache.get(key)
    if cached is None:
        if isinstance(t, n.Earlier):  # its guard reads earlier calls' results, known already
            cached = reads_result(t.value)
        else:
            cached = isinstance(t, n.Result) or isinstance(t, n.Attr) and t.name == "error" \
                or any(reads_result(c) for c in t.children)
        t._cache[key] = cached
    return cached


def is_call_local(t: n.Term) -> bool:
    """Reads only the current call and literals (externs allowed)."""
    return _reads(t) <= {"call", "extern"}


def reads_constants(t: n.Node) -> bool:
    """Whether a term reads the run's constants (the request, the metrics), directly or
    through a history atom's guard."""
    return "const" in _reads(t)


def constant_groups(t: n.Node) -> frozenset[str]:
    """Which of the run's constants a term reads: "request", "metrics" (memoised per node)."""
    key = "automata.constants"
    cached = t._cache.get(key)
    if cached is None:
        if isinstance(t, n.Request) or isinstance(t, (n.From, n.Flows)) and reads_request(t):
            cached = frozenset(("request",)) | (
                frozenset().union(*(constant_groups(c) for c in t.children)) if t.children else frozenset())
        elif isinstance(t, n.Metric):
            cached = frozenset(("metrics",))
        else:
            cached = frozenset().union(*(constant_groups(c) for c in t.children)) if t.children else frozenset()
        t._cache[key] = cached
    return cached


def reads_call(t: n.Node) -> bool:
    """Whether a term reads the current call (its arguments, result or attributes)."""
    return "call" in _reads(t)


def reads_history(t: n.Node) -> bool:
    """Whether a term holds a history atom (`n.Earlier`)."""
    return "history" in _reads(t)


def atom_kind(t: n.Term, var: str | None = None) -> str:
    """"call", "binding", "static" or "unsupported" (see the module docstring)."""
    reads = _reads(t)
    if "global" in reads:
        return "unsupported"
    if reads <= {"call", "extern", "const", "history"}:
        return "call" if "call" in reads or "const" not in reads else "static"
    if var is None or "history" in reads:
        return "unsupported"
    if reads <= {f"var:{var}", "extern", "const"}:
        return "static"
    if reads - {"call", "extern", f"var:{var}"}:
        return "unsupported"
    if isinstance(t, n.Op) and t.op in ("eq", "ne"):
        left, right = t.args
        if left == n.Var(var) and is_call_local(right) or right == n.Var(var) and is_call_local(left):
            return "binding"
    return "unsupported"


def binding_term(atom: n.Op, var: str) -> n.Term:
    """The call-local side of a binding atom `t == x` / `x != t`."""
    left, right = atom.args
    return right if left == n.Var(var) else left


def has_extern(t: n.Node) -> bool:
    return "extern" in _reads(t)
