"""The package's lazily loaded names are the functions, whatever was imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = [
    "from policyc.automata import rule_class\nfrom policyc.automata import classify",
    "import policyc.automata.classes\nfrom policyc.automata import classify",
    "from policyc.artifact.build import build_artifact\nfrom policyc.automata import classify",
    "from policyc.automata import classify",
]


@pytest.mark.parametrize("imports", ORDERS)
def test_classify_is_the_function_in_any_import_order(imports):
    code = imports + "\nassert callable(classify) and classify.__name__ == 'classify', classify\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
