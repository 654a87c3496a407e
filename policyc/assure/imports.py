"""Evidence from other methods, read from JSON files: a monitor's recall at a false-alarm rate,
a support checker's counts, a risk estimator's bound, capabilities configured but not run, and
obligations of one's own.

A file is a JSON object `{"evidence": [...], "capabilities": [...], "obligations": [...]}`
(every key optional), or a bare array of evidence records. Each record is validated on its
own (`policyc.assure.models`); a bad record is an `EvidenceProblem` naming the file, the line
and the field, and the file's other records are still read: nothing is dropped silently.

>>> read = read_evidence_text('{"evidence": [{"method": "monitor", "deployment": "prod", '
...                           '"target": "c7", "claim": "descriptive", "value": "recall 22/30"}]}', "e.json")
>>> [e.summary() for e in read.file.evidence], read.problems
(['monitor: recall 22/30'], [])
>>> read_evidence_text('[{"method": "m", "deployment": "d", "target": "t", "claim": "certain"}]', "e.json").problems
[EvidenceProblem(file='e.json', line=1, field='[0].claim', message="input should be 'exact', 'suite', \
'upper_bound', 'lower_bound' or 'descriptive'")]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from policyc.assure.models import Capability, Evidence, EvidenceFile, MethodRules, Obligation
from policyc.inputs import InputError, read_input
from policyc.trace.errors import field_path
from policyc.jsontext import array_elements, decode, line_of, locate, member

_KINDS: dict[str, type[BaseModel]] = {"evidence": Evidence, "capabilities": Capability, "obligations": Obligation,
                                    "methods": MethodRules}


@dataclass(frozen=True)
class EvidenceProblem:
    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: `{self.field}`: {self.message}" if self.field else f"{where}: {self.message}"


@dataclass(frozen=True)
class ReadEvidence:
    file: EvidenceFile
    problems: list[EvidenceProblem] = field(default_factory=list)


def read_evidence(path: str) -> ReadEvidence:
    """Read an evidence file (or `-`); an unreadable file is one problem and no records."""
    try:
        data = read_input(path)
    except InputError as exc:
        return ReadEvidence(EvidenceFile(), [EvidenceProblem(path, None, None, exc.reason)])
    return read_evidence_text(data.decode("utf-8", errors="surrogateescape"), path)


def read_evidence_text(text: str, path: str = "<evidence>") -> ReadEvidence:
    if not text.strip():
        return ReadEvidence(EvidenceFile(), [EvidenceProblem(path, None, None, "it is empty; expected a JSON object "
                                                                               "with `evidence`, `capabilities`, "
                                                                               "`obligations` or `methods`, or an array "
                                                                               "of evidence")])
    value, error, at = decode(text)
    if error is not None:
        return ReadEvidence(EvidenceFile(), [EvidenceProblem(path, None if at is None else line_of(text, at), None,
                                                             error)])
    start = len(text) - len(text.lstrip())
    if isinstance(value, list):
        sections: dict[str, tuple[list, int]] = {"evidence": (value, start)}
        prefix: tuple = ()
    elif isinstance(value, dict):
        unknown = sorted(set(value) - set(_KINDS))
        if unknown:
            pos = member(text, start, unknown[0]) or start
            return ReadEvidence(EvidenceFile(), [EvidenceProblem(
                path, line_of(text, pos), unknown[0][:80],
                "unknown key; an evidence file has `evidence`, `capabilities`, `obligations` and `methods`")])
        sections = {}
        for key in _KINDS:
            if key in value:
                items = value[key]
                pos = member(text, start, key) or start
                if not isinstance(items, list):
                    return ReadEvidence(EvidenceFile(), [EvidenceProblem(path, line_of(text, pos), key,
                                                                         "expected an array of records")])
                sections[key] = (items, pos)
        prefix = ("",)
    else:
        return ReadEvidence(EvidenceFile(), [EvidenceProblem(path, line_of(text, start), None,
                                                             "expected a JSON object or an array of evidence")])
    out: dict[str, list] = {key: [] for key in _KINDS}
    problems: list[EvidenceProblem] = []
    for key, (items, pos) in sections.items():
        elements = array_elements(text, pos)
        for i, item in enumerate(items):
            here = elements[i][0] if i < len(elements) else pos
            try:
                out[key].append(_KINDS[key].model_validate(item))
            except ValidationError as exc:
                for err in exc.errors()[:10]:
                    loc = tuple(err["loc"])
                    shown = field_path(((key,) if prefix else ()) + (i, *loc))
                    message = (err["msg"][:1].lower() + err["msg"][1:]).removeprefix("value error, ")
                    problems.append(EvidenceProblem(path, line_of(text, locate(text, here, loc)), shown, message))
    return ReadEvidence(EvidenceFile(evidence=out["evidence"], capabilities=out["capabilities"],
                                     obligations=out["obligations"], methods=out["methods"]), problems)
