"""Reading, verifying and writing artifacts.

Loading refuses anything that is not exactly what `policyc compile` wrote: a file that is
not JSON, a JSON file of another kind, another format version, a file edited after it was
compiled (content hash), or one that does not match the schema. Each refusal is an
`ArtifactError` with one message and a help line, never a traceback.

>>> from policyc.artifact.models import ArtifactBody, FormulaTable, PolicyInfo, SeverityModel
>>> body = ArtifactBody(compiler="0", source_hash="sha256:0", policy=PolicyInfo(name="p",
...     conformance=SeverityModel(kind="warn")), tools=[], rules=[], formulas=FormulaTable(nodes=[], roots=[]))
>>> text = dump_artifact(seal(body))
>>> parse_artifact(text).policy.name
'p'
>>> parse_artifact(text.replace('"name":"p"', '"name":"q"'))
Traceback (most recent call last):
...
policyc.artifact.io.ArtifactError: `<artifact>` was changed after it was compiled: its content hash does not match
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from policyc.artifact.hashing import content_hash
from policyc.artifact.models import FORMAT, FORMAT_VERSION, Artifact, ArtifactBody

_RECOMPILE = "recompile the policy with `policyc compile POLICY -o FILE`"


class ArtifactError(Exception):
    """An artifact that cannot be used, with a help line saying what to do."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.message = message
        self.help = help

    def __str__(self) -> str:
        return self.message


def seal(body: ArtifactBody) -> Artifact:
    """The artifact with its content hash."""
    data = body.model_dump(mode="json", by_alias=True)
    return Artifact.model_validate({**data, "content_hash": content_hash(data)})


def dump_artifact(artifact: Artifact) -> str:
    """The artifact as JSON text (compact: tables can be large)."""
    return json.dumps(artifact.model_dump(mode="json", by_alias=True), ensure_ascii=False, separators=(",", ":"))


def write_artifact(artifact: Artifact, path: str | Path) -> None:
    Path(path).write_text(dump_artifact(artifact) + "\n", encoding="utf-8")


def read_artifact(path: str | Path) -> Artifact:
    """Read and verify an artifact file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ArtifactError(f"`{path}` is not a policyc monitor artifact (not UTF-8 text)", _RECOMPILE) from None
    except OSError as exc:
        raise ArtifactError(f"cannot read `{path}`: {exc.strerror or exc}") from None
    return parse_artifact(text, str(path))


def parse_artifact(text: str, origin: str = "<artifact>") -> Artifact:
    """Verify artifact text: format, version, content hash, schema, internal references."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"`{origin}` is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                            _RECOMPILE) from None
    except RecursionError:
        raise ArtifactError(f"`{origin}` is nested too deeply to be an artifact", _RECOMPILE) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArtifactError(f"`{origin}` is not a policyc monitor artifact", _RECOMPILE)
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise ArtifactError(
            f"`{origin}` is artifact format version {json.dumps(version)}; this policyc reads version {FORMAT_VERSION}",
            _RECOMPILE)
    claimed = data.get("content_hash")
    body = {k: v for k, v in data.items() if k != "content_hash"}
    try:
        actual = content_hash(body)
    except ValueError:  # NaN or infinity: not canonical JSON
        actual = None
    if not isinstance(claimed, str) or claimed != actual:
        raise ArtifactError(f"`{origin}` was changed after it was compiled: its content hash does not match",
                            _RECOMPILE)
    try:
        artifact = Artifact.model_validate(data)
    except ValidationError as exc:
        raise ArtifactError(f"`{origin}` does not match the artifact schema: {_first_error(exc)}", _RECOMPILE) from None
    problem = _reference_problem(artifact)
    if problem:
        raise ArtifactError(f"`{origin}` is inconsistent: {problem}", _RECOMPILE)
    return artifact


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "the top level"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"`{where}`: {first['msg'].lower()}{more}"


def _reference_problem(artifact: Artifact) -> str | None:
    roots, tables = len(artifact.formulas.roots), len(artifact.automata)
    nodes = len(artifact.formulas.nodes)
    if any(not 0 <= r < nodes for r in artifact.formulas.roots):
        return "a formula root points outside the node table"
    names: set[str] = set()
    for rule in artifact.rules:
        if rule.name in names:
            return f"rule `{rule.name}` appears twice"
        names.add(rule.name)
        if rule.formula >= roots:
            return f"rule `{rule.name}` points to formula {rule.formula}, but there are {roots}"
        if rule.automaton is not None and rule.automaton >= tables:
            return f"rule `{rule.name}` points to automaton {rule.automaton}, but there are {tables}"
    tools = [t.name for t in artifact.tools]
    if len(set(tools)) != len(tools):
        return "a tool is declared twice"
    return None
