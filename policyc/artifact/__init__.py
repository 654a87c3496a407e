"""The monitor artifact: pydantic models, and reading, verifying and writing them.

`build_artifact(policy)` (in `policyc.artifact.build`) compiles a checked policy; it needs the
compiler's automata. Everything imported here is what a deployed gate needs to load one.
"""

from policyc.artifact.errors import ArtifactError
from policyc.artifact.io import dump_artifact, parse_artifact, read_artifact, seal, write_artifact
from policyc.artifact.models import FORMAT, FORMAT_VERSION, Artifact, ArtifactBody

__all__ = [
    "FORMAT", "FORMAT_VERSION", "Artifact", "ArtifactBody", "ArtifactError",
    "dump_artifact", "parse_artifact", "read_artifact", "seal", "write_artifact",
]
