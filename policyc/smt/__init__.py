"""Z3 encodings of the core IR over symbolic traces of bounded length.

The stages, each a small module: `symtrace` (the symbolic trace), `values` and `terms` and
`operators` (data), `encoder` (formulas), `decoder` (models back to traces), `verifier`
(queries as assumptions, unsat cores, minimal cores), `witness` (strength and witnesses).
"""

from policyc.smt.verifier import PolicySolver, SatResult, bare_tools, check_satisfiable, check_valid
from policyc.smt.witness import EXACT, Strength, WitnessTrace, approximations

__all__ = ["PolicySolver", "SatResult", "Strength", "WitnessTrace", "EXACT", "approximations",
           "bare_tools", "check_satisfiable", "check_valid"]
