"""Traces longer than the bound: a run of the claims a bounded "no trace" rests on, grown by
the claims each candidate breaks.

Z3 looks at traces of at most k calls. When it finds none, the question may still have a
longer trace: the automata grow k to the shortest run of the claims they compile, but a
claim quantified over values (`forall o: called_n(refund(order_id: o)) <= 1`, a
precedence per order) is weakened there to what holds for every value at once, and a run
of the weakened claims can be far shorter than any trace (four refunds need four orders,
each looked up). So before a bounded "no trace" is believed, the claims Z3's answer needed
(its unsat core) are searched by the automata with their quantifiers instantiated: one
value per call of the domain's tool that the over-approximating run made (each call may
then take a value of its own), the calls of the domain's tool restricted to those values
(`policyc.lint.claims.instantiate`). A run found there is made concrete and replayed on
every claim of the question; the claims it breaks join the search, and the search runs
again, a few rounds at most. A trace that passes every claim is a witness, however long.
When the rounds find none but the first found a trace of the core's claims longer than the
bound, the bounded answer is not believed either: the claims it rested on do have a trace,
so a longer one of all the claims may exist, and the question is not decided (L0009, with
that length), rather than read as "no trace".

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> from policyc.lint.questions import Asker
>>> src = ('policy p\\ntool fetch(id: int)\\ntool read(id: int)\\n'
...        'rule once_each: forall v: called_n(fetch(id: v)) <= 1\\n'
...        'rule read_first: always (fetch(id: v) -> once read(id: v))\\n'
...        'rule many: called_n(fetch) >= 5\\n')
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=6))
>>> claims = ctx.active_claims()
>>> grown = grown_witness(Asker(ctx), claims, [c.name for c in claims], 5)
>>> len(grown.witness.trace.calls), sorted({c.name for c in grown.witness.trace.calls})
(10, ['fetch', 'read'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.walk import subformulas
from policyc.lint.automata import WITNESS
from policyc.lint.claims import Claim, NotInstantiable, instantiate
from policyc.lint.concretize import replay
from policyc.lint.weaken import weaken
from policyc.semantics.evaluator import evaluate
from policyc.smt import WitnessTrace

if TYPE_CHECKING:
    from policyc.lint.questions import Asker

#: Rounds of the search (each adds the claims the last candidate broke).
ROUNDS = 4
#: Values per quantifier, at most.
MAX_VALUES = 8
#: Joint states one round's search may visit.
ROUND_STATES = 20_000


@dataclass(frozen=True)
class Grown:
    """What the rounds found: a witness of every claim, or the length of a trace of the claims
    the bounded answer rested on (0: none found)."""

    witness: WitnessTrace | None = None
    core_trace: int = 0


def grown_witness(asker: "Asker", claims: Sequence[Claim], core: Sequence[str], values: int) -> Grown:
    """A trace on which every claim takes its value, searched by the automata from the claims
    named in `core` with `values` values per quantifier (see the module's docstring)."""
    automata = asker.ctx.automata
    if not any(automata.quantified(c.formula) for c in claims):
        return Grown()  # nothing was weakened per value: the automata's bound already holds
    fresh = max(1, min(values, MAX_VALUES))
    named = set(core)
    chosen = [c for c in claims if c.name in named] or list(claims)
    first = 0
    for _ in range(ROUNDS):
        inst = _instantiated(asker, chosen, fresh)
        if inst is None:
            break
        decision = asker._decide(inst, budget=ROUND_STATES, shared=True)
        if decision.status != WITNESS:
            break
        run = asker._concretize(decision, chosen)
        if run is None:
            break
        first = first or len(run.trace.calls)
        broken = [c for c in claims if c not in chosen and replay(run, [c]) is None]
        if not broken:
            return Grown(replay(run, claims), first)
        by_order = [c for c in broken if not _holds_in_shape(asker, c, run)]
        if not by_order:
            # the run's tools, in their order, may suit every claim: only its values broke some
            found = asker._along(decision, list(claims))
            if found is not None:
                return Grown(found, first)
        chosen += by_order or broken
    return Grown(None, first)


def _holds_in_shape(asker: "Asker", claim: Claim, run: WitnessTrace) -> bool:
    """Whether the run's calls, in their order and with the values they share, suit the
    claim: the claim with every condition that reads no variable made as permissive as its
    place allows (`policyc.lint.weaken`) holds on the run (a refund of order `o` still needs
    a check of order `o` before it, but no longer a positive one, nor an amount in range). A
    claim that fails only on the run's other values needs other values, not other calls: it
    is left out of the automata's next search (its instances would multiply the product)."""
    try:
        shape = weaken(claim.formula, claim.expected, _reads_no_variable, asker.ctx.policy.tools)
        return evaluate(shape, run.trace, run.externs) is True
    except (ExternError, RecursionError):
        return False


def _instantiated(asker: "Asker", claims: Sequence[Claim], fresh: int) -> list[Claim] | None:
    """The claims for the automata: quantifiers instantiated over `fresh` values (with the
    domains' calls restricted to them), claims that cannot be instantiated or do not compile
    weakened (a run is a candidate only: it is replayed); None when one cannot be read."""
    automata = asker.ctx.automata
    out: list[Claim] = []
    restrictions: dict = {}
    for c in claims:
        if automata.compiles(c):
            out.append(c)
            continue
        inst = None
        if automata.quantified(c.formula):
            try:
                done = instantiate(c.formula, asker.ctx.policy.tools, fresh)
                inst = Claim(c.name, done.formula, c.expected)
                restrictions.update(dict.fromkeys(done.restrictions))
            except NotInstantiable:
                inst = None
        if inst is None or not automata.compiles(inst):
            inst = asker._weakened(c)
        if inst is None:
            return None
        out.append(inst)
    out.extend(Claim(f"restrict:{i}", r) for i, r in enumerate(restrictions))
    return out if all(automata.compiles(c) for c in out) else None


def _reads_no_variable(leaf: n.Term) -> bool:
    """A condition on a call's own values (a constant is not one)."""
    return not isinstance(leaf, n.Lit) and not any(isinstance(t, n.Var) for t in subformulas(leaf))
