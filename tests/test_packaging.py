"""The package as users install it: metadata that is true, dependencies that are used, and a
runtime-only distribution (`packaging/policyc-runtime`) that installs and gates a run in a
fresh environment where neither lark nor z3 exists."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import json
import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from policyc.artifact.build import compile_file
from policyc.automata import compile_policy
from policyc.artifact.io import write_artifact
from policyc.check import check_file
from policyc.scoring import score_trace
from policyc.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
RUNTIME_DIR = ROOT / "packaging" / "policyc-runtime"
RUNTIME = tomllib.loads((RUNTIME_DIR / "pyproject.toml").read_text(encoding="utf-8"))

#: distribution name -> the module it provides, where the two differ
IMPORT_NAMES = {"z3-solver": "z3", "openai-agents": "agents", "google-re2": "re2"}
#: extras that serve the tests and the build, not policyc's own code
NOT_IMPORTED_BY_POLICYC = {"test", "dev"}


def dist_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()


def module_name(requirement: str) -> str:
    name = dist_name(requirement)
    return IMPORT_NAMES.get(name, name.replace("-", "_"))


def imported_top_modules(folder: Path) -> set[str]:
    """Every top-level module an import statement of the package names (lazy imports too)."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_every_declared_dependency_is_imported():
    used = imported_top_modules(ROOT / "policyc")
    declared = list(PROJECT["dependencies"])
    for extra, requirements in PROJECT["optional-dependencies"].items():
        if extra not in NOT_IMPORTED_BY_POLICYC:
            declared.extend(requirements)
    unused = [r for r in declared if module_name(r) not in used]
    assert unused == []


def test_every_third_party_import_is_declared():
    declared = {module_name(r) for r in PROJECT["dependencies"]}
    for requirements in PROJECT["optional-dependencies"].values():
        declared |= {module_name(r) for r in requirements}
    third_party = imported_top_modules(ROOT / "policyc") - set(sys.stdlib_module_names) - {"policyc", "__future__"}
    assert third_party - declared == set()


def test_metadata_is_true():
    trove = pytest.importorskip("trove_classifiers")
    assert set(PROJECT["classifiers"]) <= trove.classifiers
    assert set(RUNTIME["project"]["classifiers"]) <= trove.classifiers
    assert PROJECT["license"] == {"text": "MIT"} and "License :: OSI Approved :: MIT License" in PROJECT["classifiers"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "urls" not in PROJECT  # no home page exists yet: none is claimed
    assert (ROOT / "policyc" / "py.typed").is_file()
    versions = [c.rsplit(" ", 1)[1] for c in PROJECT["classifiers"]
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions and all(v >= PROJECT["requires-python"].removeprefix(">=") for v in versions)


def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "policyc", "check", "examples/code_qa.altl"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "examples/code_qa.altl: ok (3 rules, 5 tools)\n"


def test_runtime_distribution_depends_on_neither_lark_nor_z3():
    project = RUNTIME["project"]
    names = {dist_name(r) for r in project["dependencies"]}
    # rapidfuzz: the conformance cascade's fuzzy matching; google-re2: `matches` patterns
    assert names == {"pydantic", "rapidfuzz", "google-re2"}
    full = {dist_name(r): r for r in PROJECT["dependencies"]}
    assert {dist_name(r): r for r in project["dependencies"]} == {n: full[n] for n in names}
    shipped = RUNTIME["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"].values()
    assert not any(s.startswith(("policyc/syntax", "policyc/check", "policyc/smt", "policyc/lint", "policyc/cli",
                                 "policyc/automata", "policyc/fmt"))
                   for s in shipped)


# ------------------------------------------------------------ the runtime wheel, installed

GATE = """
import importlib.util, json, sys
import policyc
from policyc.runtime import Monitor

monitor = Monitor.load(sys.argv[1])
gated, tolerated = monitor.start(), monitor.start(mode="tolerate")
decisions = []
for tool, args, result in json.loads(sys.argv[2]):
    decision = gated.propose(tool, args)
    decisions.append(decision.action)
    if decision.executes:
        gated.record(tool, args, result)
    tolerated.propose(tool, args)
    tolerated.record(tool, args, result)
absent = [m for m in ("lark", "z3", "numpy", "networkx", "click", "rich")
          if importlib.util.find_spec(m) is not None]
print(json.dumps({"file": policyc.__file__, "decisions": decisions, "present": absent,
                  "report": tolerated.finish().model_dump(mode="json")}))
"""

CALLS = [
    ["get_customer", {"email": "x@y.org"}, {"customer_id": "c1", "email": "x@y.org"}],
    ["issue_refund", {"order_id": "A1", "amount": 10.0}, {"refund_id": "r1"}],
    ["lookup_order", {"order_id": "A1"},
     {"order_id": "A1", "customer_id": "c1", "sku": "s", "total": 10.0, "refunded": False}],
    ["reply", {"text": "done"}, None],
]


def requirement_closure(requirement: str) -> list[metadata.Distribution]:
    """The distribution a requirement names, as installed here, and everything it requires."""
    from packaging.requirements import Requirement

    seen: dict[str, metadata.Distribution] = {}
    todo = [Requirement(requirement)]
    while todo:
        req = todo.pop()
        if req.name.lower() in seen or req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        dist = seen[req.name.lower()] = metadata.distribution(req.name)
        todo.extend(Requirement(r) for r in dist.requires or ())
    return list(seen.values())


def link_distributions(dists: list[metadata.Distribution], into: Path) -> None:
    """Expose installed distributions (code and metadata) in `into` through symlinks, so a
    fresh environment gets exactly these and nothing else of this one."""
    into.mkdir()
    for dist in dists:
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in tops:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (into / top).exists() and top != "__pycache__":
                (into / top).symlink_to(source)


@pytest.mark.slow
def test_runtime_wheel_gates_a_run_in_a_fresh_environment(tmp_path):
    pytest.importorskip("hatchling")
    pytest.importorskip("packaging")
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                            "--disable-pip-version-check", "-q", "-w", str(wheels), str(RUNTIME_DIR)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("policyc_runtime-*.whl"))

    env_dir = tmp_path / "gate-env"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--disable-pip-version-check", "-q", str(wheel)],
                               capture_output=True, text=True, timeout=300, env=clean_env)
    assert installed.returncode == 0, installed.stderr
    # its declared dependencies, and nothing else, taken from this environment
    deps = [d for r in RUNTIME["project"]["dependencies"] for d in requirement_closure(r)]
    link_distributions(deps, tmp_path / "deps")
    (site / "runtime-deps.pth").write_text(str(tmp_path / "deps") + "\n", encoding="utf-8")
    checked = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "check"],
                             capture_output=True, text=True, timeout=120, env=clean_env)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    artifact = tmp_path / "support_desk.policy.json"
    write_artifact(compile_file(ROOT / "examples" / "support_desk.altl"), artifact)
    script = tmp_path / "gate.py"
    script.write_text(GATE, encoding="utf-8")
    done = subprocess.run([str(python), "-s", str(script), str(artifact), json.dumps(CALLS)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=clean_env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert Path(out["file"]).is_relative_to(site)
    assert out["present"] == []
    assert out["decisions"] == ["allow", "block", "allow", "block"]
    policy, _ = check_file(ROOT / "examples" / "support_desk.altl")
    expected = score_trace(compile_policy(policy), Trace.of(*[tuple(c) for c in CALLS]))
    assert out["report"] == expected.model_dump(mode="json")
    # a policy source needs the compiler: the runtime alone says so, clearly
    source = subprocess.run([str(python), "-s", "-c", "import sys\nfrom policyc.runtime import ArtifactError, Monitor\n"
                             "try:\n    Monitor.load(sys.argv[1])\nexcept ArtifactError as e:\n    print(e)",
                             str(ROOT / "examples" / "support_desk.altl")],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120, env=clean_env)
    assert source.returncode == 0 and "this installation is the runtime alone" in source.stdout, source.stderr
