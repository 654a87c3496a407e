"""The AgentLTL benchmark and its training data (paper §4, appendices C and D).

- `tools`: the eight deterministic tools of table 6, and `bench_tools.altl`, their signatures;
- `production`, `simplified`: the 12 production templates (table 7, scaled by table 9) and
  the 17 simplified ones (table 12 and the two held-out patterns);
- `generate_instance(template, difficulty, seed)`: prompt, gold trace, expected answer;
- `synthesize`: the six-layer constraint set of a gold trace, as an `.altl` policy;
- `faults`, `agent`: single perturbations and a scripted agent that injects them;
- `augment`, `sampler`, `aliases`: the training corpus of appendix D;
- `runs`, `report`: scoring agent runs and printing the paper's tables.

>>> inst = generate_instance("fan_out_fan_in", 1, 42)
>>> inst.tool_sequence, inst.expected_answer
(['tool_a_list', 'tool_b', 'tool_b', 'tool_b', 'tool_d'], 33)
>>> score_instance(inst, inst.gold_trace()).compliance_score
1.0
"""

from policyc.bench.agent import scripted_run
from policyc.bench.compliance import failed_layers, instance_policy, score_instance
from policyc.bench.faults import FAULTS, Fault
from policyc.bench.generate import InstanceFiltered, call_limit, find_template, generate_instance
from policyc.bench.model import Decision, GoldCall, Instance, Pattern
from policyc.bench.production import PRODUCTION
from policyc.bench.simplified import SIMPLIFIED, TRAINING
from policyc.bench.synthesize import LAYER_WEIGHTS, aliased_policy_text, policy_text, synthesize_rules

__all__ = [
    "FAULTS", "Decision", "Fault", "GoldCall", "Instance", "InstanceFiltered", "LAYER_WEIGHTS", "PRODUCTION",
    "Pattern", "SIMPLIFIED", "TRAINING", "failed_layers", "aliased_policy_text", "call_limit", "find_template",
    "generate_instance", "instance_policy", "policy_text", "score_instance", "scripted_run", "synthesize_rules",
]
