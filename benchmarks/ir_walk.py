"""Walking the IR: dispatch through a table of node classes against the chain of isinstance tests it replaced.

Term evaluation (`policyc.ir.data.eval_term`) and the reference evaluator are on the hot
path of scoring; they walk the IR through `policyc.ir.dispatch` tables (one dictionary look-up
per node). The peer is the previous implementation of `eval_term`, a chain of `isinstance`
tests, kept below verbatim. Workloads, over the hand-written catalogue of the test suite
(`tests/fixtures/catalogue.py`, every formula and its trace):

  eval_term   every term of every formula, at every call of its trace
  evaluator   the reference evaluator on every case (a fresh evaluator each time, so no memo
              carries over), with `eval_term` as shipped and with the chain swapped in

Times are CPU times (`time.process_time`), the best of --repeat runs.

Run:
    python benchmarks/ir_walk.py [--repeat 5] [--rounds 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fixtures.catalogue import CASES, TOOLS_TEXT, trace_of  # noqa: E402

import policyc.ir.data as data  # noqa: E402
import policyc.semantics.evaluator as evaluator  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.grounding import actions_reader_of, extractor_of  # noqa: E402
from policyc.ir import nodes as n  # noqa: E402
from policyc.ir.data import DataEnv, ExternError, attribute, path_value, provenance  # noqa: E402
from policyc.ir.ops import UNDEF, apply_op, domain_values, get_field, get_index, get_slice, truthy  # noqa: E402
from policyc.ir.walk import subformulas  # noqa: E402


def chain_eval_term(t: n.Term, env: DataEnv) -> object:  # noqa: C901 - the peer, as it was
    if isinstance(t, n.Lit):
        return t.value
    if isinstance(t, n.Var):
        return env.vars.get(t.name, UNDEF)
    if isinstance(t, n.Arg):
        if env.args is None:
            return UNDEF
        return env.args.get(t.name, UNDEF)
    if isinstance(t, n.Result):
        return env.result
    if isinstance(t, n.Attr):
        return attribute(env.args, t.name)
    if isinstance(t, n.Field):
        return get_field(chain_eval_term(t.base, env), t.name)
    if isinstance(t, n.Index):
        return get_index(chain_eval_term(t.base, env), chain_eval_term(t.index, env))
    if isinstance(t, n.Slice):
        start = None if t.start is None else chain_eval_term(t.start, env)
        stop = None if t.stop is None else chain_eval_term(t.stop, env)
        return get_slice(chain_eval_term(t.base, env), start, stop)
    if isinstance(t, n.Op):
        if t.op == "entities":
            text = chain_eval_term(t.args[0], env)
            return UNDEF if text is UNDEF else extractor_of(env.externs).entities(text)
        if t.op == "actions":
            text, claims = chain_eval_term(t.args[0], env), chain_eval_term(t.args[1], env)
            return UNDEF if text is UNDEF or not isinstance(claims, dict) else \
                actions_reader_of(env.externs)(text, claims)
        if t.op == "and":
            return all(truthy(chain_eval_term(a, env)) for a in t.args)
        if t.op == "or":
            return any(truthy(chain_eval_term(a, env)) for a in t.args)
        return apply_op(t.op, *(chain_eval_term(a, env) for a in t.args))
    if isinstance(t, n.Extern):
        fn = env.externs.get(t.name)
        if fn is None:
            raise ExternError(f"extern predicate `{t.name}` has no Python binding")
        args = [chain_eval_term(a, env) for a in t.args]
        if any(a is UNDEF for a in args):
            return False
        try:
            return bool(fn(*args))
        except Exception as exc:  # noqa: BLE001 - as it was
            raise ExternError(f"extern predicate `{t.name}` raised {type(exc).__name__}: {exc}") from exc
    if isinstance(t, n.Values):
        return env.globals.values(t.tool, t.path, t.flatten) if env.globals is not None else []
    if isinstance(t, n.Outputs):
        return env.globals.outputs(t.tools, extractor_of(env.externs)) if env.globals is not None else []
    if isinstance(t, n.Done):
        return env.globals.done(t.terminal) if env.globals is not None else []
    if isinstance(t, n.Metric):
        return env.globals.metric(t.path) if env.globals is not None else UNDEF
    if isinstance(t, n.Request):
        request = getattr(env.globals, "request", None)
        return request() if request is not None else UNDEF
    if isinstance(t, n.Quant):
        elements = domain_values(chain_eval_term(t.domain, env))
        test = all if t.kind == "forall" else any
        return test(truthy(chain_eval_term(t.body, env.bind(t.var, e))) for e in elements)
    if isinstance(t, n.Project):
        base = chain_eval_term(t.base, env)
        if not isinstance(base, list):
            return UNDEF
        return [v for v in (path_value(item, t.path) for item in base) if v is not UNDEF and v is not None]
    if isinstance(t, (n.From, n.Flows)):
        return provenance(t, env)
    raise TypeError(f"not a term: {type(t).__name__}")


def catalogue() -> list[tuple[n.Formula, object]]:
    """(formula, trace) for every case of the catalogue."""
    texts = sorted({c.formula for c in CASES if isinstance(c.formula, str)})
    policy, diagnostics = check_text(TOOLS_TEXT + "".join(f"rule r{i}: {t}\n" for i, t in enumerate(texts)),
                                     "catalogue.altl")
    assert policy is not None, [d.message for d in diagnostics]
    formulas = {t: policy.rule(f"r{i}").formula for i, t in enumerate(texts)}
    return [(formulas[c.formula] if isinstance(c.formula, str) else c.formula, trace_of(c.trace)) for c in CASES]


def term_work(cases) -> list[tuple[n.Term, DataEnv]]:
    """Every term of every formula, in the environment of every call of its trace."""
    work = []
    for phi, trace in cases:
        terms = [s for s in subformulas(phi) if isinstance(s, n.Term)]
        root = DataEnv({}, None, UNDEF, trace.globals, {})
        for i, call in enumerate(trace.calls):
            env = root.at_call(call.args, call.result, i)
            work.extend((t, env) for t in terms)
    return work


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per measure; the best is kept")
    parser.add_argument("--rounds", type=int, default=20, help="passes over the workload per run")
    args = parser.parse_args()
    cases = catalogue()
    work = term_work(cases)
    shipped = data.eval_term

    def terms(fn):
        def run():
            for _ in range(args.rounds):
                for t, env in work:
                    try:
                        fn(t, env)
                    except ExternError:
                        pass
        return run

    def evaluate(fn):
        def run():
            data.eval_term = evaluator.eval_term = fn
            try:
                for _ in range(args.rounds):
                    for phi, trace in cases:
                        evaluator.evaluate(phi, trace)
            finally:
                data.eval_term = evaluator.eval_term = shipped
        return run

    print(f"IR walks over the catalogue: {len(cases)} cases, {len(work)} (term, call) pairs, "
          f"{args.rounds} rounds, best of {args.repeat}, CPU seconds")
    print(f"{'workload':<12} {'dispatch':>10} {'isinstance':>11} {'ratio':>7}")
    for name, make in (("eval_term", terms), ("evaluator", evaluate)):
        ours, peer = best(make(shipped), args.repeat), best(make(chain_eval_term), args.repeat)
        print(f"{name:<12} {ours:>10.3f} {peer:>11.3f} {ours / peer:>7.2f}")


if __name__ == "__main__":
    main()
