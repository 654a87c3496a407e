"""Queries as assumptions: "these asserts are unsat iff the property holds".

A `PolicySolver` keeps one incremental Z3 solver over one symbolic trace. Each formula it
is asked about gets a named assumption literal `s` and the assert `s -> holds(phi)` (or
`s -> not holds(phi)`), added once; a query is a set of names to assume. So the questions
of one analysis share one solver, its learnt clauses and its encoding, and an unsat answer
comes with an unsat core over names.

Answers do not depend on machine load nor on what else the process asked before: each check
has a resource limit (Z3's `rlimit`, a count of solver steps, not wall time), and each
solver lives in a Z3 context of its own, into which the encoding is copied, so the same
questions asked in the same order get the same answers and the same witnesses in any
process. `unknown` (the limit was reached) is an answer of its own, never read as unsat.

>>> from policyc.ir import build as b
>>> ps = PolicySolver(bare_tools("a", "b"), 4)
>>> _ = ps.require("never", b.always(b.neg(b.event("a"))))
>>> _ = ps.require("sometime", b.eventually(b.event("a")))
>>> ps.check(["never", "sometime"]).status, ps.check(["never"]).status
('unsat', 'sat')
>>> ps.minimal_core(["never", "sometime"])
['never', 'sometime']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import z3

from policyc.ir.data import ExternError
from policyc.ir import nodes as n
from policyc.ir.ops import UNDEF
from policyc.ir.types import ToolSignature
from policyc.semantics.evaluator import evaluate
from policyc.smt.decoder import decode_trace, extern_bindings
from policyc.smt.encoder import FormulaEncoder
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.witness import EXACT, Strength, WitnessTrace

#: Solver steps one check may take (Z3's `rlimit`): the same on every machine, whatever its load.
DEFAULT_RLIMIT = 20_000_000


@dataclass(frozen=True)
class SatResult:
    """`sat` with a witness, `unsat` with a core of assumed names, or `unknown` (time-out)."""

    status: str
    strength: Strength
    witness: WitnessTrace | None = None
    core: tuple[str, ...] = ()
    assumed: tuple[str, ...] = field(default=(), repr=False)
    reason: str = ""  # why the answer is unknown (the resource limit, as a rule)

    @property
    def is_sat(self) -> bool:
        return self.status == "sat"

    @property
    def is_unsat(self) -> bool:
        return self.status == "unsat"


class PolicySolver:
    """An incremental solver over traces of at most `k` calls to the declared tools."""

    def __init__(self, tools: Mapping[str, ToolSignature], k: int, list_bound: int = 3,
                 rlimit: int = DEFAULT_RLIMIT, name: str = "t", coded_strings: bool = False,
                 encoder: FormulaEncoder | None = None, observes: frozenset[str] = frozenset(),
                 skeleton: tuple[str, ...] | None = None):
        """`encoder`: start from an encoding made beforehand (`FormulaEncoder.derive`) over
        traces of `k` calls; its formulas are copied into this solver's context, not rebuilt.
        `observes`: the event classes of the policy's view (who may act, `SymbolicTrace`);
        `skeleton`: the tool of each position, fixed (the traces are exactly those calls)."""
        self.encoder = encoder or FormulaEncoder(SymbolicTrace(tools, k, list_bound, name, coded_strings, observes,
                                                               skeleton))
        self.trace = self.encoder.trace
        self.ctx = z3.Context()
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("rlimit", rlimit)
        self.rlimit = rlimit
        self.k = self.encoder.trace.k
        self._literals: dict[str, z3.BoolRef] = {}
        self._claims: dict[str, tuple[n.Formula, bool]] = {}
        self._by_literal: dict[int, str] = {}  # assumption literal (its AST id) -> name
        self._flushed = 0
        self.checks = 0
        self.steps = 0  # solver steps its checks took (Z3's `rlimit count`)

    # ------------------------------------------------------------ building

    def require(self, name: str, phi: n.Formula, expected: bool = True) -> z3.BoolRef:
        """The assumption literal for "phi holds" (or, with expected=False, "phi fails")."""
        lit = self._literals.get(name)
        if lit is not None:
            return lit
        body = self.encoder.holds(phi, 0)
        self._claims[name] = (phi, expected)
        return self._assume(name, body if expected else z3.Not(body), flush=True)

    def require_length_at_most(self, m: int) -> str:
        """A name that, assumed, limits the trace to at most m calls."""
        name = f"length<={m}"
        if name not in self._literals:
            self._assume(name, self.trace.length_at_most(m))
        return name

    def require_at(self, name: str, phi: n.Formula, i: int, expected: bool = True) -> str:
        """A name that, assumed, makes `phi` take this truth value at position i (not 0)."""
        if name not in self._literals:
            body = self.encoder.holds(phi, i)
            self._assume(name, body if expected else z3.Not(body), flush=True)
        return name

    def require_length(self, m: int) -> str:
        """A name that, assumed, makes the trace exactly m calls long."""
        name = f"length=={m}"
        if name not in self._literals:
            self._assume(name, z3.And(self.trace.is_live(m - 1) if m > 0 else z3.BoolVal(True),
                                      self.trace.length_at_most(m)))
        return name

    def require_request(self, text: str | None) -> str:
        """A name that, assumed, makes the user's request this text (None: no request)."""
        name = f"request={text!r}"
        if name not in self._literals:
            from policyc.smt.decoder import pin_value

            request = UNDEF if text is None else {"text": text}
            self._assume(name, pin_value(self.trace.request(), request, self.trace), flush=True)
        return name

    def require_plain_strings(self, text: str = "") -> str:
        """A name that, assumed, makes every string value read so far `text`."""
        name = f"plain{len(self._literals)}"
        self._assume(name, z3.And(self.trace.plain_strings(text) or [z3.BoolVal(True)]))
        return name

    def require_plain_texts(self) -> str:
        """A name that, assumed, makes every argument of a text function read so far a text
        the function leaves unchanged: the model's value of `lower(x)` is then `lower(x)`,
        and a witness that reads them replays."""
        name = f"plain-texts{len(self._literals)}"
        self._assume(name, z3.And(self.trace.plain_texts or [z3.BoolVal(True)]))
        return name

    def require_sourced(self) -> str:
        """A name that, assumed, lets a provenance condition `x from S` read so far hold only
        where an earlier result of a source shows the value (or the request's text holds it):
        the model then holds what `policyc.lint.sourcing` would otherwise have to put there."""
        name = f"sourced{len(self._literals)}"
        self._assume(name, z3.And(self.trace.sourced or [z3.BoolVal(True)]))
        return name

    def _assume(self, name: str, condition, flush: bool = False) -> z3.BoolRef:
        """A new assumption literal `name` that implies `condition` (encoded over the trace;
        `flush`: then add the trace constraints its encoding made)."""
        lit = z3.Bool(f"assume[{name}]", self.ctx)
        self.solver.add(z3.Implies(lit, self._here(condition)))
        if flush:
            self._flush()
        self._literals[name] = lit
        self._by_literal[lit.get_id()] = name
        return lit

    def _here(self, term):
        return term.translate(self.ctx)

    def claim(self, name: str) -> tuple[n.Formula, bool] | None:
        """The formula behind an assumption name, and the truth value it asks for."""
        return self._claims.get(name)

    def has(self, name: str) -> bool:
        return name in self._literals

    def _flush(self) -> None:
        new = self.trace.constraints[self._flushed:]
        if new:
            self.solver.add(*[self._here(c) for c in new])
            self._flushed = len(self.trace.constraints)

    # ------------------------------------------------------------ asking

    @property
    def unsat_strength(self) -> Strength:
        return Strength.bounded(self.k, self.trace.list_bound if self.trace.used_lists else None)

    def check(self, names: Iterable[str], witness: bool = True, rlimit: int | None = None) -> SatResult:
        """Assume `names`; a sat answer carries a replayed witness unless `witness` is false.
        `rlimit`: the solver steps this check may take (else the solver's own limit)."""
        names = tuple(dict.fromkeys(names))
        self.checks += 1
        if rlimit is not None and rlimit != self.rlimit:
            self.rlimit = max(1, rlimit)
            self.solver.set("rlimit", self.rlimit)
        before = self._step_count()
        status = self.solver.check(*[self._literals[x] for x in names])
        self.steps += self._step_count() - before
        if status == z3.sat:
            return SatResult("sat", EXACT, self.witness(names) if witness else None, assumed=names)
        if status == z3.unsat:
            core = tuple(self._by_literal[c.get_id()] for c in self.solver.unsat_core())
            return SatResult("unsat", self.unsat_strength, core=core, assumed=names)
        return SatResult("unknown", self.unsat_strength, assumed=names, reason=self.solver.reason_unknown())

    def _step_count(self) -> int:
        stats = self.solver.statistics()
        return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0

    def witness(self, names: Sequence[str]) -> WitnessTrace:
        """Decode the current model and replay every assumed formula on the evaluator."""
        model = self.solver.model()
        trace = decode_trace(model, self.trace)
        externs = extern_bindings(model, self.encoder.terms.externs)
        confirmed = True
        for name in names:
            claim = self._claims.get(name)
            if claim is None:
                continue
            phi, expected = claim
            try:
                confirmed &= evaluate(phi, trace, externs) == expected
            except (ExternError, RecursionError):  # an extern the replay cannot call: not confirmed
                confirmed = False
        return WitnessTrace(trace, confirmed, externs)

    def minimal_core(self, names: Sequence[str], fixed: Sequence[str] = ()) -> list[str]:
        """A minimal unsatisfiable subset of `names` (assuming `fixed` throughout).

        Deletion-based: start from the solver's unsat core and drop each name whose removal
        keeps the set unsat; each test reuses the incremental solver (a test the solver cannot
        decide keeps the name). Returns [] when the names are satisfiable (or the solver gave up).
        """
        first = self.check([*fixed, *names], witness=False)
        if not first.is_unsat:
            return []
        core = [x for x in names if x in first.core]
        i = 0
        while i < len(core):
            trial = core[:i] + core[i + 1:]
            result = self.check([*fixed, *trial], witness=False)
            if result.is_unsat:
                core = [x for x in trial if x in result.core]
            else:
                i += 1
        return core


def needs_strings(formulas, tools: Mapping[str, ToolSignature]) -> bool:
    """Whether these formulas use strings beyond equality (so strings cannot be coded as integers).

    >>> from policyc.ir import build as b
    >>> from policyc.ir.types import ANY, STR, Param
    >>> tools = {"a": ToolSignature("a", (Param("s", STR),), ANY)}
    >>> needs_strings([b.event("a", b.op("eq", b.arg("s"), b.lit("p")))], tools)
    False
    >>> needs_strings([b.event("a", b.op("startswith", b.arg("s"), b.lit("p")))], tools)
    True
    """
    from policyc.smt.values import NeedsStrings

    probe = FormulaEncoder(SymbolicTrace(tools, 2, 1, "probe", coded_strings=True))
    try:
        for phi in formulas:
            probe.holds(phi, 0)
    except NeedsStrings:
        return True
    return False


def check_satisfiable(phi: n.Formula, tools: Mapping[str, ToolSignature], k: int = 8) -> SatResult:
    """Is there a trace of at most k calls satisfying `phi`? A witness if so.

    >>> from policyc.ir import build as b
    >>> r = check_satisfiable(b.conj(b.eventually(b.event("a")), b.always(b.neg(b.event("a")))), bare_tools("a"))
    >>> r.status, str(r.strength)
    ('unsat', 'holds up to traces of length 8')
    """
    ps = PolicySolver(tools, k)
    ps.require("phi", phi)
    return ps.check(["phi"])


def check_valid(phi: n.Formula, tools: Mapping[str, ToolSignature], k: int = 8) -> SatResult:
    """Does every trace of at most k calls satisfy `phi`? (unsat means valid; sat gives a counterexample)

    >>> from policyc.ir import build as b
    >>> check_valid(b.disj(b.eventually(b.event("a")), b.always(b.neg(b.event("a")))), bare_tools("a")).status
    'unsat'
    """
    ps = PolicySolver(tools, k)
    ps.require("not phi", phi, expected=False)
    return ps.check(["not phi"])


def bare_tools(*names: str) -> dict[str, ToolSignature]:
    """Signatures of tools without arguments or results, for examples and tests.

    >>> sorted(bare_tools("a", "b"))
    ['a', 'b']
    """
    from policyc.ir.types import ANY

    return {name: ToolSignature(name, (), ANY) for name in names}
