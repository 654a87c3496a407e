"""Hostile input to the compiler: a rule whose automaton is exponential in its size.

`always (a -> (once b0 and ... once bN))` must remember which of N + 1 tools were called:
2^(N+1) states. On the compiler as it was, N = 12 took 34 s and 230 MB, and N = 16 was
killed after 300 s at 2.5 GB; lint did not finish either. The construction now has budgets
(`policyc.automata.budget`: 5,000 states per automaton built by progression, 300,000 states
per product of a conjunction's automata) and stops at them with an error naming the rule and
the option that raises the budget. The commands run here under a CPU-time and an address-space
limit: they end with that error, never by running out of either.
"""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from policyc.automata import BudgetExceeded, compile_policy, construction_budget
from policyc.check import check_text

LIMIT_CPU = 120               # seconds of CPU: far above what the budget lets a rule cost
LIMIT_MEMORY = 1536 << 20     # bytes of address space


def blow_up(n: int) -> str:
    tools = "tool a()\n" + "".join(f"tool b{i}()\n" for i in range(n + 1))
    return tools + "rule r: always (a -> (" + " and ".join(f"once b{i}" for i in range(n + 1)) + "))\n"


def policy_of(text: str):
    policy, diagnostics = check_text(text, "blow.altl")
    assert policy is not None, diagnostics
    return policy


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (LIMIT_CPU, LIMIT_CPU))
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_MEMORY, LIMIT_MEMORY))


def policyc(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "policyc", *argv], capture_output=True, text=True,
                          preexec_fn=_limits, env={**os.environ, **(env or {})}, timeout=1200)


@pytest.mark.parametrize("n", [12, 16])
@pytest.mark.parametrize("command", ["compile", "lint", "score"])
def test_an_exponential_rule_stops_at_the_budget_naming_the_rule(tmp_path, n, command):
    path = tmp_path / "blow.altl"
    path.write_text(blow_up(n))
    argv = {"compile": ["compile", str(path), "-o", str(tmp_path / "out.json")], "lint": ["lint", str(path)],
            "score": ["score", str(path), "examples/traces/code_qa.jsonl"]}[command]
    done = policyc(*argv)
    assert done.returncode == 2, done.stderr[-1000:]
    assert done.stderr.startswith("policyc: rule `r`: its automaton reaches 5,001 states, the compiler's budget")
    assert "raise the budget with `--max-states N`" in done.stderr and "Traceback" not in done.stderr



@pytest.mark.parametrize("command", ["explain", "graph"])
def test_explain_and_graph_name_the_rule_at_the_budget_too(tmp_path, command):
    """Found by a sweep written from the docs alone: these two named an inner formula
    (`release(false, or(…, …))`), which the author never wrote, where compile names the rule."""
    path = tmp_path / "blow.altl"
    path.write_text(blow_up(9))  # 2^10 states
    done = policyc(command, str(path), "--max-states", "300")
    assert done.returncode == 2, done.stderr[-1000:]
    assert done.stderr.startswith("policyc: rule `r`: its automaton reaches 301 states, the compiler's budget")

def test_the_budget_is_raised_by_the_option_and_the_environment(tmp_path):
    path = tmp_path / "blow.altl"
    path.write_text(blow_up(9))  # 2^10 states
    assert policyc("compile", str(path), "-o", str(tmp_path / "a.json")).returncode == 0
    small = policyc("compile", str(path), "-o", str(tmp_path / "a.json"), "--max-states", "300")
    assert small.returncode == 2 and "reaches 301 states" in small.stderr
    assert policyc("compile", str(path), "-o", str(tmp_path / "a.json"),
                   env={"POLICYC_MAX_STATES": "300"}).returncode == 2
    assert policyc("compile", str(path), "-o", str(tmp_path / "a.json"), "--max-states", "2000",
                   env={"POLICYC_MAX_STATES": "300"}).returncode == 0


def test_the_product_budget():
    rules = " and ".join(f"response(t{2 * i}, t{2 * i + 1})" for i in range(6))
    tools = "".join(f"tool t{i}()\n" for i in range(12))
    policy = policy_of("import declare\n" + tools + f"rule many: {rules}\n")
    assert compile_policy(policy).rules["many"].table is not None
    with construction_budget(product=20), pytest.raises(BudgetExceeded) as error:
        compile_policy(policy)
    assert str(error.value).startswith("rule `many`: the product of its conjuncts' automata reaches")
    assert "--max-product" in error.value.help


def test_the_budget_in_the_api_names_the_rule_and_crosses_processes():
    import pickle

    with construction_budget(states=50), pytest.raises(BudgetExceeded) as error:
        compile_policy(policy_of(blow_up(8)))
    assert (error.value.rule, error.value.count) == ("r", 51)
    again = pickle.loads(pickle.dumps(error.value))
    assert str(again) == str(error.value) and again.help == error.value.help
