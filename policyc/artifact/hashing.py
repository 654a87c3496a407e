"""The artifact's two hashes: of the policy sources, and of the artifact's own content.

>>> canonical_json({"b": 1, "a": [1.5, "é"]})
'{"a":[1.5,"é"],"b":1}'
>>> content_hash({"a": 1}) == content_hash({"a": 1}) != content_hash({"a": 2})
True
>>> signature = sign({"a": 1}, b"secret")
>>> signature.startswith("hmac-sha256:"), signature_matches({"a": 1}, b"secret", signature)
(True, True)
>>> signature_matches({"a": 2}, b"secret", signature), signature_matches({"a": 1}, b"other", signature)
(False, False)
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Iterable


def canonical_json(value: object) -> str:
    """One text per JSON value: sorted keys, no spaces, no escaping of non-ASCII."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(body: object) -> str:
    """`sha256:` and the hex digest of the canonical JSON of `body`."""
    return "sha256:" + hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


SIGNATURE_PREFIX = "hmac-sha256:"


def sign(body: object, key: bytes) -> str:
    """`hmac-sha256:` and the hex HMAC-SHA256 of the canonical JSON of `body` under `key`:
    only who holds the key can make it, so a signed artifact is one the key's holder compiled."""
    return SIGNATURE_PREFIX + hmac.new(key, canonical_json(body).encode("utf-8"), hashlib.sha256).hexdigest()


def signature_matches(body: object, key: bytes, signature: object) -> bool:
    """Whether `signature` is `sign(body, key)` (compared in constant time)."""
    return isinstance(signature, str) and hmac.compare_digest(signature.encode("utf-8", "replace"),
                                                              sign(body, key).encode("utf-8"))


def source_hash(texts: Iterable[tuple[str, str]]) -> str:
    """The hash of policy sources given as (file name, text) pairs, root first.

    Only the file's name takes part, not its directory, so moving a checkout keeps the hash.

    >>> source_hash([("p.altl", "rule r: called(a)")]) == source_hash([("p.altl", "rule r: called(a)")])
    True
    """
    digest = hashlib.sha256()
    for name, text in texts:
        for part in (Path(name).name, text):
            data = part.encode("utf-8")
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)
    return "sha256:" + digest.hexdigest()
