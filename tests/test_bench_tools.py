"""The eight benchmark tools (AgentLTL paper, appendix C, table 6) and their signature file."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policyc.bench.tools import (
    SIGNATURES_PATH, TOOLS, ToolBox, ToolCallError, tool_a, tool_a_list, tool_b, tool_c, tool_d, tool_expand,
    tool_iterations, tool_value)
from policyc.check import check_file

small = st.integers(min_value=0, max_value=10_000)
difficulty = st.integers(min_value=1, max_value=5)


def test_paper_values():
    # §C.2: tool_a(i=1) -> 2, tool_a(i=2) -> 5; appendix B: [8, 2, 46], tool_b(8, 0) -> 11, tool_d -> 33
    assert (tool_a(1), tool_a(2)) == (2, 5)
    assert tool_a_list(42, 1) == [8, 2, 46]
    assert [tool_b(n, 0) for n in (8, 2, 46)] == [11, 11, 11]
    assert tool_d([11, 11, 11]) == 33


@given(small)
def test_tool_a_range(i):
    assert tool_a(i) in range(1, 8) and tool_a(i) == (3 * i + 5) % 7 + 1


@given(small, small)
def test_tool_b_range(i, j):
    assert 0 <= tool_b(i, j) <= 99


@given(small)
def test_tool_c_and_value(x):
    assert tool_c(x) == 3 * x + 1
    assert 0 <= tool_value(x) <= 49


@given(small, difficulty)
def test_list_and_iterations(seed, d):
    numbers = tool_a_list(seed, d)
    assert len(numbers) == d + 2 and all(1 <= n <= 50 for n in numbers)
    assert tool_iterations(seed, d) >= 3


@given(small, small, difficulty)
def test_expand(node, seed, d):
    children = tool_expand(node, seed, d)
    assert len(children) == min(d, 3) and all(1 <= c <= 20 * d for c in children)


def test_signature_file_declares_exactly_the_python_tools():
    policy, diagnostics = check_file(SIGNATURES_PATH)
    assert policy is not None and [d.code for d in diagnostics] == ["W0225"]  # only: it has no rules
    assert set(policy.tools) == set(TOOLS)
    for name, sig in policy.tools.items():
        assert tuple(p.name for p in sig.params) == TOOLS[name].params
        assert [f for f, _ in sig.result.fields] == [TOOLS[name].result_field]


def test_toolbox_binds_seed_and_difficulty():
    box = ToolBox(seed=42, difficulty=3)
    assert box.call("tool_a_list", {"seed": 42}) == {"numbers": tool_a_list(42, 3)}
    assert box.call("tool_expand", {"node": 5}) == {"children": tool_expand(5, 42, 3)}
    assert box.call("tool_iterations", {"seed": 7}) == {"result": tool_iterations(7, 3)}


@pytest.mark.parametrize("name,args", [("tool_z", {}), ("tool_a", {}), ("tool_a", {"i": "1"}),
                                       ("tool_d", {"numbers": 3}), ("tool_b", {"i": 1, "j": 2, "k": 3})])
def test_toolbox_rejects_bad_calls(name, args):
    with pytest.raises(ToolCallError):
        ToolBox(1, 1).call(name, args)
