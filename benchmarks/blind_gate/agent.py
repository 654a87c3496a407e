"""The seeded random agent: mostly follows its scenario's workflow, regularly does not.

A scenario supplies `candidates()` (the sensible next calls, weighted, from what the agent has
seen), `noise()` (any call at all: wrong ids, amounts over the caps, the wrong team, a final
answer too early), and `observe()` (what an executed call taught it). The agent never proposes
a call the gate refused since the last executed call, so it never repeats a refused call
byte for byte (which `block` would take as a deliberate override).
"""

from __future__ import annotations

import json
import random


def identity(tool: str, args: dict) -> tuple[str, str]:
    return tool, json.dumps(args, sort_keys=True)


class Agent:
    def __init__(self, rng: random.Random, script, noise_rate: float = 0.25):
        self.rng, self.script, self.noise_rate = rng, script, noise_rate
        self.refused_since: set = set()

    def next(self) -> tuple[str, dict]:
        rng = self.rng
        for _ in range(50):
            if rng.random() < self.noise_rate:
                tool, args = self.script.noise(rng)
            else:
                cands = [(w, t, a) for w, t, a in self.script.candidates()
                         if identity(t, a) not in self.refused_since]
                if not cands:
                    tool, args = self.script.noise(rng)
                else:
                    w, tool, args = rng.choices(cands, weights=[c[0] for c in cands])[0]
            if identity(tool, args) not in self.refused_since:
                return tool, args
        while True:
            tool, args = self.script.noise(rng)
            if identity(tool, args) not in self.refused_since:
                return tool, args

    def refused(self, tool: str, args: dict) -> None:
        self.refused_since.add(identity(tool, args))

    def executed(self, tool: str, args: dict, result) -> None:
        self.refused_since.clear()
        self.script.observe(tool, args, result)
