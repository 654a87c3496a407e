"""Traces: the call model of appendix A.1, trace formats and signature conformance."""

from policyc.trace.model import Call, Trace

__all__ = ["Call", "Trace"]
