"""The runtime gate: load a compiled policy artifact and gate, record and score agent runs.

It imports neither the parser (lark) nor the solver (z3): a deployed gate needs only the
artifact.
"""

from policyc.artifact.errors import ArtifactError
from policyc.runtime.calls import RunError
from policyc.runtime.explain import Decision
from policyc.runtime.events import EnforcementEvent, LayerRow, enforcement_table
from policyc.runtime.findings import MODES, Finding
from policyc.runtime.monitor import Monitor, PolicySourceWarning
from policyc.runtime.run import Run
from policyc.scoring.externs import ExternBindingError

__all__ = ["ArtifactError", "Decision", "EnforcementEvent", "ExternBindingError", "Finding", "LayerRow", "MODES",
           "Monitor", "PolicySourceWarning", "Run", "RunError", "enforcement_table"]
