"""Layer weights (L0008, informational): layers that decide nothing or decide everything.

A layer whose every rule holds on every trace adds the same amount to every score. A layer
carrying more than `max_layer_share` of the total weight decides the score on its own:
failing only that layer's rules already drops the score below what every other layer
together can restore.

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool a()\\ntool b()\\nrule r1 layer L1 weight 9: called(a)\\nrule r2 layer L2 weight 1: called(b)\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> [f.message for f in weight_findings(ctx)]
['layer `L1` carries 90% of the total weight']
"""

from __future__ import annotations

from policyc.lint.context import LintContext
from policyc.lint.findings import Finding
from policyc.lint.units import Phase, UnitResult
from policyc.smt import EXACT


def check_weights(ctx: LintContext, _asker=None, _item=None) -> UnitResult:
    return UnitResult(findings=weight_findings(ctx))


def weight_findings(ctx: LintContext) -> list[Finding]:
    layers: dict[str, list] = {}
    for rule in ctx.policy.rules:
        if rule.layer is not None:
            layers.setdefault(rule.layer, []).append(rule)
    findings = []
    for layer, rules in layers.items():
        if all(r.name in ctx.valid for r in rules):
            findings.append(Finding(
                "L0008", f"the rules of layer `{layer}` can never fail", tuple(r.name for r in rules),
                _weakest([ctx.valid[r.name] for r in rules]),
                help="the layer adds the same weight to every score; give it a rule that can fail",
                evidence=(f"{len(rules)} rule(s), all true on every trace",)))
    total = sum(r.weight for r in ctx.policy.rules)
    if len(layers) < 2 or total <= 0:
        return findings
    for layer, rules in layers.items():
        share = sum(r.weight for r in rules) / total
        if share > ctx.options.max_layer_share:
            findings.append(Finding(
                "L0008", f"layer `{layer}` carries {share:.0%} of the total weight", tuple(r.name for r in rules),
                EXACT,
                help=f"above {ctx.options.max_layer_share:.0%}, failing this layer alone outweighs every other "
                     "layer; lower its weights if that is not intended",
                evidence=("weights: " + ", ".join(
                    f"`{name}` {sum(r.weight for r in rs):g}" for name, rs in layers.items()),)))
    return findings


def _weakest(strengths):
    """The strength of a claim that rests on all of these: the first bounded one, else exact."""
    bounded = [s for s in strengths if not s.exact]
    return min(bounded, key=lambda s: s.bound or 0) if bounded else strengths[0]


WEIGHTS = Phase("layer-weights", "layer weights", lambda ctx: [None], check_weights)
