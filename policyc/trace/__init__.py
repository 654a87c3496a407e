"""Traces: the call model of appendix A.1, trace formats and signature conformance.

Nothing here imports the parser, the checker, lark or z3: a deployed runtime reuses it.
"""

from policyc.trace.conformance import ConformanceFinding, check_call, check_result, check_trace
from policyc.trace.errors import TraceError
from policyc.trace.formats import FORMATS, detect_format, parse_trace
from policyc.trace.load import LoadedTraces, iter_traces, load_traces
from policyc.trace.model import Call, Trace

__all__ = ["Call", "ConformanceFinding", "FORMATS", "LoadedTraces", "Trace", "TraceError", "check_call",
           "check_result", "check_trace", "detect_format", "iter_traces", "load_traces", "parse_trace"]
