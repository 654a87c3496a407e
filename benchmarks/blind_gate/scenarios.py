"""The scenarios the driver runs."""

from __future__ import annotations

from pathlib import Path

from . import s1_agent, s1_hand, s1_rules, s2_agent, s2_hand, s2_rules, s3_agent, s3_hand, s3_rules
from .harness import Scenario

HERE = Path(__file__).parent

S2 = Scenario("S2", HERE / "s2_desk.altl", s2_rules.rules, s2_rules.TOOLS, s2_hand.DeskGate,
              s2_agent.DeskWorld, s2_agent.DeskScript)


def _s1(size: int) -> Scenario:
    return Scenario(f"S1-{size}", HERE / f"s1_support_{size}.altl", lambda: s1_rules.rules(size),
                    s1_rules.tools(size), lambda request: s1_hand.SupportGate(request, big=size == 50),
                    s1_agent.SupportWorld, s1_agent.SupportScript, uses_request=size == 50)



def _s3(name: str, policy: str) -> Scenario:
    return Scenario(name, HERE / policy, s3_rules.rules, s3_rules.TOOLS, s3_hand.ReleaseGate,
                    s3_agent.ReleaseWorld, s3_agent.ReleaseScript, oracle_factory=s3_rules.make_oracle)


SCENARIOS = {"S1": [_s1(25), _s1(50)], "S2": [S2],
             "S3": [_s3("S3", "s3_release.altl"), _s3("S3-allow", "s3_release_allow.altl")]}
