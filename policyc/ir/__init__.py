"""The core IR: hash-consed FO-LTLf formulas over tool-call events, and checked policies."""

from policyc.ir.nodes import FALSE, TRUE, Formula, Node, Term
from policyc.ir.policy import Policy, Rule, Severity
from policyc.ir.printer import show

__all__ = ["Formula", "Node", "Term", "TRUE", "FALSE", "Policy", "Rule", "Severity", "show"]
