"""Gate scenarios written from policyc's documentation alone, with independent oracles."""
