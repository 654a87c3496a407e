"""The Monitor: a loaded artifact, ready to gate any number of independent runs.

>>> from policyc.artifact.build import compile_file        # what `policyc compile` does
>>> monitor = Monitor(compile_file("examples/code_qa.altl"))  # or Monitor.load(path)
>>> run = monitor.start()                                  # one per agent run
>>> run.propose("search", {"query": "request"}).action     # before the call runs
'allow'
>>> run.record("search", {"query": "request"}, ["src/api.py"])   # after it ran, with its result
>>> monitor.verdicts(run.trace)
{'search_first': False, 'reads_a_file': False, 'grounded': False}

A monitor uses its artifact's compiled tables (`monitor.compiled`, a `CompiledPolicy`) as
reading the artifact decoded and checked them, once (`policyc.artifact.io.read_verified`): the
gate steps them and `finish()`/`score()` hand them to the scorer, so two monitors loaded in
one process share nothing (two made of one `VerifiedArtifact` share its tables, immutable but
for their memos). It is immutable once loaded (its only mutable parts are memo
tables that any thread may fill), so `start()` may be called from several threads at once.

The artifact is data: it never names code to run. The program that loads it binds every
extern predicate the policy declares (`externs={"name": function}`); one left unbound is an
`ExternBindingError` when the monitor is made, not a surprise in the middle of a run.
"""

from __future__ import annotations

import importlib
import os
import stat
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from policyc.artifact.errors import ArtifactError
from policyc.artifact.io import VerifiedArtifact, check_signature, read_verified, resolve_key, verify_artifact
from policyc.artifact.models import Artifact
from policyc.grounding import BUILTIN_EXTRACTORS, Extractor, extractor_of, with_extractor
from policyc.runtime.calls import RunError, coerced_args, typed_args, typed_plain
from policyc.runtime.conformance import ConformanceChecker, GroundingQuery
from policyc.runtime.findings import MODES, Finding
from policyc.runtime.gate import Gate
from policyc.runtime.history import IndexPlan, RunIndex
from policyc.scoring import Scorer, TraceReport
from policyc.scoring.externs import ExternBindingError, bind_externs, describe, unbound
from policyc.semantics.positions import PositionEvaluator
from policyc.tables.context import Constants
from policyc.tables.policy import CompiledPolicy
from policyc.trace.model import Call, Trace
from policyc.trace.results import ResultShapes

if TYPE_CHECKING:
    from policyc.runtime.run import Run


class PolicySourceWarning(UserWarning):
    """A policy source was compiled where an artifact is usually loaded (`Monitor.load`)."""


def is_policy_source(path: str | Path) -> bool:
    """Whether a file is a policy source rather than an artifact: named `.altl`, or, unless
    named `.json`, UTF-8 text that does not start as JSON does (a damaged artifact is told so
    by the artifact reader, not read as a policy)."""
    name = str(path)
    if name.endswith(".altl"):
        return True
    if name.endswith(".json"):
        return False
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a pipe, a device: the artifact reader reads it, and never waits on it
        with open(path, "rb") as handle:
            head = handle.read(4096).lstrip()
    except OSError:
        return False  # the artifact reader says what is wrong
    if head.startswith(b"\xef\xbb\xbf"):  # a byte-order mark
        head = head[3:].lstrip()
    if not head or head[:1] in (b"{", b"["):
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3  # not text, unless the read cut a character short
    return True


def compile_source(path: str | Path, key: bytes | None = None) -> Artifact:
    """The artifact of a policy source, compiled in memory (`Monitor.load`). The compiler is
    imported only here: loading an artifact never needs it, and a runtime-only install says
    what to do instead."""
    if key is not None:
        raise ArtifactError(f"`{path}` is a policy source, and a signing key is configured: only an artifact "
                            "signed with that key loads",
                            "compile and sign it: `policyc compile POLICY -o policy.json --sign-key-file KEY`")
    try:  # the compiler: not part of a deployed gate
        build = importlib.import_module("policyc.artifact.build")
        importlib.import_module("policyc.check")
    except ImportError:
        raise ArtifactError(f"`{path}` is a policy source, and this installation is the runtime alone, which loads "
                            "artifacts", "compile it where policyc is installed: `policyc compile POLICY -o "
                            "policy.json`") from None
    artifact: Artifact = build.compile_file(path)  # imported by name: mypy sees no signature
    warnings.warn(f"compiled the policy source `{path}` in memory; a deployed gate loads the artifact that "
                  "`policyc compile` makes of it", PolicySourceWarning, stacklevel=3)
    return artifact


class Monitor:
    """A policy artifact loaded for gating and scoring."""

    def __init__(self, artifact: Artifact | VerifiedArtifact, externs: Mapping[str, Callable[..., object]] | None = None,
                 extractor: Extractor | None = None, key: bytes | str | None = None):
        """`artifact` is a verified artifact (`policyc.artifact.io.read_verified`), whose compiled
        policy is used as is, or an artifact in memory, checked here (`ArtifactError` when it is
        inconsistent); `externs` binds every extern predicate the artifact declares
        (`ExternBindingError` when one is missing, unknown or not a function); `extractor` finds
        the entities of `entities(...)` and matches `outputs` (by default, the built-in one the
        policy names). With a `key` (or the POLICYC_ARTIFACT_KEY environment variable) the
        artifact must be signed with it, and the runs' snapshots are signed with it and must be
        to be restored."""
        self.key = resolve_key(key)
        if not isinstance(artifact, (Artifact, VerifiedArtifact)):
            raise ArtifactError(
                f"a Monitor is made from an artifact, not from a `{type(artifact).__name__}`",
                "Monitor.load(path) reads one from a file; policyc.artifact.build.compile_file(path) makes one "
                "from a policy source; an artifact's JSON in memory is Artifact.model_validate(data)")
        if externs is not None and not isinstance(externs, Mapping):
            raise ExternBindingError(f"`externs` maps extern predicate names to functions, not a "
                                     f"`{type(externs).__name__}`", "externs={\"name\": function}")
        if not isinstance(artifact, VerifiedArtifact):
            artifact = verify_artifact(artifact, self.key)
        elif self.key is not None and artifact.key != self.key:  # read without this key
            check_signature(artifact.artifact, self.key)
        self.artifact = artifact.artifact
        self.compiled: CompiledPolicy = artifact.compiled
        self.policy = self.compiled.policy
        self.externs = bind_externs(self.policy.externs, externs or {})
        missing = unbound(self.policy.externs, self.externs)
        if missing:
            wanted = ", ".join(f"`{describe(self.policy.externs[name])}`" for name in missing)
            raise ExternBindingError(
                f"the policy uses extern predicate{'s' if len(missing) > 1 else ''} {wanted}, and no function "
                "was given for it: an artifact never names code to import",
                "bind each one: Monitor.load(path, externs={" + ", ".join(f'"{m}": function' for m in missing) + "})")
        # the extractor of `entities(...)` and `outputs` travels with the extern bindings
        self.externs = with_extractor(self.externs, extractor or BUILTIN_EXTRACTORS[self.policy.grounding])
        self.gate = Gate(self.compiled, self.externs)
        # what the rules ask of a run's history, which each run then indexes as it is recorded
        self.index_plan = IndexPlan.of(rule.formula for rule in self.policy.rules)
        self.conformance = ConformanceChecker(self.policy)
        self.result_shapes = ResultShapes(self.policy.tools)  # one shape per tool result, as the scorer reads it
        # per tool, whether a result is plain JSON of its declared type, told in one walk
        self._typed_results = {name: typed_plain(sig.result) for name, sig in self.policy.tools.items()}
        # per tool, whether a call's arguments are plain JSON that conforms to its signature, in one walk
        self._typed_args = {name: typed_args(sig) for name, sig in self.policy.tools.items()}
        self._scorer: Scorer | None = None  # made at the first report (`score`), then kept
        self.terminal_tools = self.policy.terminal_tools
        self.rule_classes = self.compiled.classes

    @classmethod
    def load(cls, path: str | Path, externs: Mapping[str, Callable[..., object]] | None = None,
             key: bytes | str | None = None, extractor: Extractor | None = None) -> "Monitor":
        """Load and verify an artifact file (`ArtifactError` says what is wrong with it). With a
        `key` (or the POLICYC_ARTIFACT_KEY environment variable), the artifact must be signed
        with it (`policyc compile --sign-key-file`), and so must the snapshots it restores.

        A policy source (`.altl`) is compiled in memory instead (a `PolicyError` lists its
        errors), and a `PolicySourceWarning` says so once; a deployed gate loads the artifact
        `policyc compile` makes. With a key configured, a source is refused: only a signed
        artifact loads."""
        resolved = resolve_key(key)
        if is_policy_source(path):
            return cls(compile_source(path, resolved), externs, extractor)  # refused under a key
        return cls(read_verified(path, resolved), externs, extractor, resolved)  # decoded once, used as is

    @property
    def content_hash(self) -> str:
        return self.artifact.content_hash

    @property
    def name(self) -> str:
        return self.policy.name

    def start(self, mode: str | None = None, run_id: str | None = None, context: str | None = None, *,
              request: str | None = None, metrics: Mapping[str, Any] | None = None) -> Run:
        """A new, independent run. `mode` enforces every rule with one severity:
        tolerate, warn, block, soft or stop (None: each rule's own). `request` (or `context`,
        its older name) is the user's request: with it, proposed calls are also checked for
        grounded argument values, and rules read it as `request.text`. `metrics` is the run's
        metrics record, when the harness knows it before the run ends. A rule that reads a
        request or metrics the run was not given is judged by every value they could take:
        they are free inputs, never a reason to refuse."""
        from policyc.runtime.run import Run, RunState, check_context, check_metrics

        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown mode `{mode}`; the modes are {', '.join(MODES)}")
        if request is not None and context is not None and request != context:
            raise ValueError("the request was given twice: `request=` is `context=`'s newer name, give one")
        if run_id is not None and not isinstance(run_id, str):
            raise TypeError(f"a run's id is text, not {type(run_id).__name__}")
        text = check_context(request if request is not None else context)
        given = check_metrics(metrics)
        return Run(self, mode, run_id, RunState(self.gate.start(Constants.given(text, given)), context=text,
                                                metrics=given))

    def observes(self, tool: str, actor: str) -> bool:
        """Whether the policy reads an event of this tool (`"message"`: a message) by this actor."""
        if tool == "message":
            return "messages" in self.policy.observes
        return actor == "assistant" or "user_calls" in self.policy.observes

    def restore(self, state: dict[str, object]) -> Run:
        """Continue a run from `run.snapshot()` output (possibly in another process)."""
        from policyc.runtime.snapshot import load_run

        return load_run(self, state)

    # ------------------------------------------------------------ used by runs

    def new_index(self) -> RunIndex | None:
        """An empty index of a run's history, for a policy whose rules read it (None: none do)."""
        return None if self.index_plan is None else RunIndex(self.index_plan, extractor_of(self.externs))

    def typed_result(self, tool: str, result: Any) -> bool:
        """Whether a recorded result of `tool` is plain JSON data of the type its signature
        declares, told in one walk (`calls.typed_plain`): then it has no `value_problem` and
        its shape is itself. False says nothing (an undeclared tool, text, anything else)."""
        check = self._typed_results.get(tool)
        return check is not None and check(result, 0)

    def typed_args(self, tool: str, args: Mapping[str, Any]) -> bool:
        """Whether a proposed call's arguments are plain JSON data that conforms to its
        tool's signature, told in one walk (`calls.typed_args`): then they have no
        `value_problem` and pass `Signatures.conforms`. False says nothing."""
        check = self._typed_args.get(tool)
        return check is not None and check(args)

    def judge(self, gate_state: Any, tool: str, args: Mapping[str, Any], calls: Sequence[Call] = (),
              context: str | None = None, index: RunIndex | None = None,
              grounding: GroundingQuery | None = None, *, conforms: bool = False,
              ) -> tuple[list[Finding], tuple[str, ...]]:
        """Everything wrong with proposing this call after `calls` (conformance (SAAG, grounded
        in `context` when there is one), then the rules), and what the gate could not decide
        about it. `index`: the run's history, indexed (`policyc.runtime.history`); `grounding`:
        the run's grounding text, kept as it goes; `conforms`: the call is known to conform to
        its signature (`typed_args`)."""
        findings, undecided = self.gate.judge(gate_state, tool, args, calls, context, index)
        sig = None if conforms else self.policy.tools.get(tool)
        coerced = None if sig is None else coerced_args(sig, args)
        if coerced is not None:  # judged as the tool may receive it too: the stricter of the two
            more, open_ = self.gate.judge(gate_state, tool, coerced, calls, context, index)
            known = {(f.rule, f.kind) for f in findings}
            changed = ", ".join(f"`{k}`" for k in coerced if coerced[k] is not args.get(k))
            findings += [replace(f, detail=f"{f.detail} (with {changed} read as {tool}'s signature types them, "
                                           "as a tool that converts its arguments receives them)")
                         for f in more if (f.rule, f.kind) not in known]
            undecided = tuple(dict.fromkeys(undecided + open_))
        return self.conformance.check(tool, args, calls, context, grounding, conforms=conforms) + findings, undecided

    def guidance(self, gate_state: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(tools that keep the policy satisfiable, calls still required)."""
        return self.gate.allowed_next(gate_state), self.gate.required(gate_state)

    def score(self, trace: Trace) -> TraceReport:
        """The compliance report of a complete trace, as `policyc score` computes it: the same
        scorer, handed this monitor's compiled tables and extern bindings."""
        if self._scorer is None:  # (two threads making it at once make the same one)
            self._scorer = Scorer(self.compiled, externs=self.externs)
        return self._scorer.score(trace)

    def replayed_gate(self, events: Sequence[Call], request: str | None, metrics: Mapping[str, Any] | None) -> Any:
        """The gate state after these recorded events (calls and messages, the user's too) of a
        run started with this request and metrics: how a restored run, or one given its
        request late, gets back to where it is (a run that replays them, sources and all)."""
        from policyc.runtime.run import Run, RunState, event_args

        run = Run(self, None, None, RunState(self.gate.start(Constants.given(request, metrics)), context=request,
                                             metrics=None if metrics is None else dict(metrics)))
        for call in events:
            run._advance(call.name, event_args(dict(call.args), call.actor, call.message_id, call.error), call.result)
        return run.state.gate

    def verdicts(self, trace: Trace) -> dict[str, bool]:
        """Whether each rule holds on a complete trace: the compiled rules by stepping their
        automata (linear, one lookup per call when warm), the others by the evaluator."""
        trace = self.policy.view(trace)
        gated = self.gate.accepting_after(trace.calls, Constants.of_trace(trace), trace.globals.history)
        out = {}
        engine = None
        for rule in self.policy.rules:
            found = gated.get(rule.name)
            if found is not None:
                out[rule.name] = found
            else:  # not compiled, or untracked (a call its automaton cannot read): the evaluator
                engine = engine or PositionEvaluator(trace, self.externs)
                out[rule.name] = engine.holds(rule.formula)
        return out


__all__ = ["ArtifactError", "ExternBindingError", "Monitor", "PolicySourceWarning", "RunError", "compile_source",
           "is_policy_source"]
