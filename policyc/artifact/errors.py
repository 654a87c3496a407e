"""The one error of artifact loading: `ArtifactError`, a message and a help line."""

from __future__ import annotations


class ArtifactError(Exception):
    """An artifact that cannot be used, with a help line saying what to do."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.message = message
        self.help = help

    def __str__(self) -> str:
        return self.message


__all__ = ["ArtifactError"]
