"""Integrations with agent frameworks (each needs its framework installed: `pip install policyc[smolagents]`)."""
