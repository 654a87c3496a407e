"""Reading, verifying and writing artifacts.

Loading refuses anything that is not exactly what `policyc compile` wrote: a file that is
not JSON, a JSON file of another kind, another format version, a file edited after it was
compiled (content hash), one that does not match the schema, one whose tables are not
tables the compiler could have written (every state, letter and node in range, every table
total, every verdict that of its transitions), and, when a key is given, one not signed
with that key. Each refusal is an `ArtifactError` with one message and a help line, never
a traceback.

The content hash finds accidents, not attacks: anyone can recompute it. A deployment that
needs to know who compiled an artifact signs it (`policyc compile --sign-key-file KEY`, an
HMAC-SHA256 over the same canonical body) and loads it with the key
(`Monitor.load(path, key=...)`, or the `POLICYC_ARTIFACT_KEY` environment variable).

>>> from policyc.artifact.models import ArtifactBody, FormulaTable, PolicyInfo, SeverityModel
>>> body = ArtifactBody(compiler="0", source_hash="sha256:0", policy=PolicyInfo(name="p",
...     conformance=SeverityModel(kind="warn")), tools=[], rules=[], formulas=FormulaTable(nodes=[], roots=[]))
>>> text = dump_artifact(seal(body))
>>> parse_artifact(text).policy.name
'p'
>>> parse_artifact(text.replace('"name":"p"', '"name":"q"'))
Traceback (most recent call last):
...
policyc.artifact.errors.ArtifactError: `<artifact>` was changed after it was compiled: its content hash does not match
>>> signed = dump_artifact(seal(body, key=b"deployment key"))
>>> parse_artifact(signed, key=b"deployment key").signature.startswith("hmac-sha256:")
True
>>> parse_artifact(text, key=b"deployment key")
Traceback (most recent call last):
...
policyc.artifact.errors.ArtifactError: `<artifact>` is not signed, and a key was given to verify it
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from policyc.artifact.errors import ArtifactError
from policyc.artifact.hashing import content_hash, sign, signature_matches
from policyc.artifact.models import FORMAT, FORMAT_VERSION, Artifact, ArtifactBody
from policyc.artifact.policy import verified_compiled
from policyc.inputs import InputError, read_input
from policyc.tables.policy import CompiledPolicy

_RECOMPILE = "recompile the policy with `policyc compile POLICY -o FILE`"
#: The environment variable holding the key artifacts must be signed with.
ENV_KEY = "POLICYC_ARTIFACT_KEY"
#: Fields outside the body: the hash and the signature cover everything else.
_SEALS = ("content_hash", "signature")


def seal(body: ArtifactBody, key: bytes | None = None) -> Artifact:
    """The artifact with its content hash, and its signature when a key is given."""
    data = body.model_dump(mode="json", by_alias=True)
    return Artifact.model_validate({**data, "content_hash": content_hash(data),
                                    "signature": sign(data, key) if key is not None else None})


def dump_artifact(artifact: Artifact) -> str:
    """The artifact as JSON text (compact: tables can be large; no `signature` when unsigned)."""
    data = artifact.model_dump(mode="json", by_alias=True)
    if data.get("signature") is None:
        data.pop("signature", None)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def write_artifact(artifact: Artifact, path: str | Path) -> None:
    Path(path).write_text(dump_artifact(artifact) + "\n", encoding="utf-8")


def resolve_key(key: bytes | str | None) -> bytes | None:
    """The key artifacts must be signed with: `key` itself, else the POLICYC_ARTIFACT_KEY
    environment variable, else None (signatures are not checked)."""
    if key is None:
        key = os.environ.get(ENV_KEY) or None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if key is not None and not key:
        raise ArtifactError("the artifact key is empty", "give the key the artifact was signed with")
    return key


def read_key_file(path: str) -> bytes:
    """A signing key from a file: its bytes, without one trailing newline."""
    try:
        data = read_input(path, limit=64 * 1024)
    except InputError as exc:
        raise ArtifactError(f"cannot read the key: {exc}") from None
    key = data[:-2] if data.endswith(b"\r\n") else data[:-1] if data.endswith(b"\n") else data
    if not key:
        raise ArtifactError(f"the key file `{path}` is empty", "put the signing key (any bytes) in the file")
    return key


@dataclass(frozen=True)
class VerifiedArtifact:
    """An artifact that passed every check, and the compiled policy it holds, decoded once on
    the way: what a `Monitor` is made of, and uses as is (`read_verified`, `parse_verified`,
    `verify_artifact`). `key`: the key its signature was checked with (None: not checked).

    Its compiled tables are immutable but for memo tables (pure functions of the tables), so
    several monitors may be made of one."""

    artifact: Artifact
    compiled: CompiledPolicy
    key: bytes | None = None


def read_artifact(path: str | Path, key: bytes | None = None) -> Artifact:
    """Read and verify an artifact file (with `key`, also its signature): the artifact alone
    (`read_verified` also gives its compiled policy)."""
    return read_verified(path, key).artifact


def read_verified(path: str | Path, key: bytes | None = None) -> VerifiedArtifact:
    """Read and verify an artifact file (with `key`, also its signature), decoding its tables
    once: how every program that loads an artifact reads it. A file whose policy has no
    rules is refused too: it would pass every run, and no policy compiles to it."""
    try:
        data = read_input(str(path))
    except InputError as exc:
        raise ArtifactError(f"cannot read `{path}`: it {exc.reason}") from None
    if not data.strip():
        raise ArtifactError(f"`{path}` is empty, not a policyc monitor artifact", _RECOMPILE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ArtifactError(f"`{path}` is not a policyc monitor artifact (not UTF-8 text)", _RECOMPILE) from None
    verified = parse_verified(text, str(path), key)
    if not verified.artifact.rules:  # compile writes none for a policy without rules: every run would pass
        raise ArtifactError(f"`{path}` has no rules: `policyc compile` writes no artifact of such a policy",
                            _RECOMPILE)
    return verified


def parse_artifact(text: str, origin: str = "<artifact>", key: bytes | None = None) -> Artifact:
    """Verify artifact text: format, version, content hash, signature (when a key is given),
    schema, internal references and every table. The artifact alone (`parse_verified` also
    gives its compiled policy)."""
    return parse_verified(text, origin, key).artifact


def parse_verified(text: str, origin: str = "<artifact>", key: bytes | None = None) -> VerifiedArtifact:
    """`parse_artifact`, with the compiled policy its checks decoded."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"`{origin}` is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                            _RECOMPILE) from None
    except (ValueError, RecursionError):  # a number of thousands of digits, nesting past the stack
        raise ArtifactError(f"`{origin}` holds a value too large or too deeply nested to be an artifact",
                            _RECOMPILE) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArtifactError(f"`{origin}` is not a policyc monitor artifact", _RECOMPILE)
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise ArtifactError(
            f"`{origin}` is artifact format version {json.dumps(version)[:20]}; this policyc reads version "
            f"{FORMAT_VERSION}", _RECOMPILE)
    claimed = data.get("content_hash")
    body = {k: v for k, v in data.items() if k not in _SEALS}
    try:
        actual = content_hash(body)
    except (ValueError, RecursionError):  # NaN or infinity: not canonical JSON
        actual = None
    if not isinstance(claimed, str) or claimed != actual:
        raise ArtifactError(f"`{origin}` was changed after it was compiled: its content hash does not match",
                            _RECOMPILE)
    if key is not None:
        if data.get("signature") is None:
            raise ArtifactError(f"`{origin}` is not signed, and a key was given to verify it",
                                "sign it when compiling: `policyc compile POLICY --sign-key-file KEY`")
        if not signature_matches(body, key, data["signature"]):
            raise ArtifactError(f"`{origin}` is not signed with this key: its signature does not match",
                                "it was signed with another key, or changed by someone without the key")
    try:
        artifact = Artifact.model_validate(data)
    except ValidationError as exc:
        raise ArtifactError(f"`{origin}` does not match the artifact schema: {_first_error(exc)}", _RECOMPILE) from None
    except RecursionError:
        raise ArtifactError(f"`{origin}` is nested too deeply to be an artifact", _RECOMPILE) from None
    return VerifiedArtifact(artifact, verified_compiled(artifact, origin), key)


def verify_artifact(artifact: Artifact, key: bytes | None = None, origin: str = "<artifact>") -> VerifiedArtifact:
    """Verify an artifact in memory (built, or edited): with `key`, its signature first, then
    its references and tables, decoding them once (`ArtifactError` when something is wrong).

    >>> from policyc.artifact.build import compile_file
    >>> verify_artifact(compile_file("examples/code_qa.altl")).compiled.classes["search_first"]
    'gateable'
    """
    if key is not None:
        check_signature(artifact, key, origin)
    return VerifiedArtifact(artifact, verified_compiled(artifact, origin), key)


def check_signature(artifact: Artifact, key: bytes, origin: str = "<artifact>") -> None:
    """Refuse an artifact (in memory: built, or loaded without the key) not signed with `key`.

    >>> from policyc.artifact.models import ArtifactBody, FormulaTable, PolicyInfo, SeverityModel
    >>> body = ArtifactBody(compiler="0", source_hash="sha256:0", policy=PolicyInfo(name="p",
    ...     conformance=SeverityModel(kind="warn")), tools=[], rules=[], formulas=FormulaTable(nodes=[], roots=[]))
    >>> check_signature(seal(body, key=b"k"), b"k")
    >>> check_signature(seal(body), b"k")
    Traceback (most recent call last):
    ...
    policyc.artifact.errors.ArtifactError: `<artifact>` is not signed, and a key was given to verify it
    """
    if artifact.signature is None:
        raise ArtifactError(f"`{origin}` is not signed, and a key was given to verify it",
                            "sign it when compiling: `policyc compile POLICY --sign-key-file KEY`")
    body = {k: v for k, v in artifact.model_dump(mode="json", by_alias=True).items() if k not in _SEALS}
    if not signature_matches(body, key, artifact.signature):
        raise ArtifactError(f"`{origin}` is not signed with this key: its signature does not match",
                            "it was signed with another key, or changed by someone without the key")


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "the top level"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"`{where}`: {first['msg'].lower()}{more}"
