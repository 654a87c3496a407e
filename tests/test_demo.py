"""`policyc demo` runs every stage of the pipeline on the bundled example and says so."""

import pytest
from click.testing import CliRunner

from policyc.cli import cli


@pytest.mark.slow
def test_demo_runs_every_stage():
    result = CliRunner().invoke(cli, ["demo"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    stages = [line.split(":")[0] for line in result.output.splitlines() if line.startswith("== ")]
    assert stages == ["== check", "== lint", "== compile", "== score", "== replay", "== gate"]
    assert "propose final_answer  -> block  (search_first, reads_a_file, grounded)" in result.output
    assert "finished: compliance 1.000 (FULL)" in result.output
    assert result.output.rstrip().endswith("all stages behaved as expected")
