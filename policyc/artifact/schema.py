"""The artifact's JSON Schema, generated from the models (published as docs/artifact.schema.json).

>>> schema = artifact_schema()
>>> schema["title"], "content_hash" in schema["required"]
('Artifact', True)

Regenerate the published file with `python -m policyc.artifact.schema > docs/artifact.schema.json`.
"""

from __future__ import annotations

import json
from typing import Any

from policyc.artifact.models import FORMAT_VERSION, Artifact


def artifact_schema() -> dict[str, Any]:
    """The JSON Schema of the artifact (by field aliases, as the file spells them)."""
    schema = Artifact.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["description"] = (f"A policyc monitor artifact, format version {FORMAT_VERSION}: what `policyc compile` "
                             "writes and `Monitor.load` verifies.")
    return schema


def schema_text() -> str:
    return json.dumps(artifact_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
