"""policyc: compiler and runtime for AgentLTL policies."""

__version__ = "0.1.0"
