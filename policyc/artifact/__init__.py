"""The monitor artifact: pydantic models, and reading, verifying and writing them.

`build_artifact(policy)` (in `policyc.artifact.build`) compiles a checked policy; it needs the
compiler's automata. Everything imported here is what a deployed gate needs to load one:
`read_verified(path)` reads a file and checks it, decoding its tables once into the compiled
policy a `Monitor` uses as is.
"""

from policyc.artifact.errors import ArtifactError
from policyc.artifact.io import (
    VerifiedArtifact, dump_artifact, parse_artifact, parse_verified, read_artifact, read_verified, seal,
    verify_artifact, write_artifact,
)
from policyc.artifact.models import FORMAT, FORMAT_VERSION, Artifact, ArtifactBody

__all__ = [
    "FORMAT", "FORMAT_VERSION", "Artifact", "ArtifactBody", "ArtifactError", "VerifiedArtifact",
    "dump_artifact", "parse_artifact", "parse_verified", "read_artifact", "read_verified", "seal",
    "verify_artifact", "write_artifact",
]
