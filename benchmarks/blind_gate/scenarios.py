"""The scenarios the driver runs."""

from __future__ import annotations

from pathlib import Path

from . import s1_agent, s1_hand, s1_rules, s2_agent, s2_hand, s2_rules
from .harness import Scenario

HERE = Path(__file__).parent

S2 = Scenario("S2", HERE / "s2_desk.altl", s2_rules.rules, s2_rules.TOOLS, s2_hand.DeskGate,
              s2_agent.DeskWorld, s2_agent.DeskScript)


def _s1(size: int) -> Scenario:
    return Scenario(f"S1-{size}", HERE / f"s1_support_{size}.altl", lambda: s1_rules.rules(size),
                    s1_rules.tools(size), lambda request: s1_hand.SupportGate(request, big=size == 50),
                    s1_agent.SupportWorld, s1_agent.SupportScript, uses_request=size == 50)


SCENARIOS = {"S1": [_s1(25), _s1(50)], "S2": [S2]}
