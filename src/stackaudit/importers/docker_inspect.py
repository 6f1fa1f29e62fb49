"""A pasted `docker inspect <container>` (a JSON array, often inside chatter or a code fence), recorded
verbatim as a pasted `docker inspect` document (the docker fact parses it: facts/docker.py
`containers_from_docker_inspect`).

Secrets in Env, Args and Cmd are redacted here already, as the host layer does for a live `docker
inspect`, but in place: each secret string is replaced where it stands, so the rest stays as pasted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from stackaudit.facts._parse import ParseError
from stackaudit.facts.docker import extract_json_array, parse_docker_inspect
from stackaudit.facts.sources import DOCKER_INSPECT
from stackaudit.host.limits import load_json
from stackaudit.host.redact import redact_command_output
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, document_appended, importer

_START = re.compile(r"^\s*\[\s*(\{.*)?$")


def _changed_strings(original: Any, redacted: Any, out: list[tuple[str, str]]) -> None:
    """The (original, redacted) string leaves that redaction changed (it changes strings only)."""
    if isinstance(original, dict) and isinstance(redacted, dict):
        for key, value in original.items():
            _changed_strings(value, redacted.get(key), out)
    elif isinstance(original, list) and isinstance(redacted, list):
        for a, b in zip(original, redacted, strict=False):
            _changed_strings(a, b, out)
    elif isinstance(original, str) and isinstance(redacted, str) and original != redacted:
        out.append((original, redacted))


def redact_in_place(array: str) -> str:
    """The JSON text with each secret replaced where it stands; re-serialised (still redacted) where a
    secret is spelled in a way the replacement cannot find (escapes)."""
    argv = ("docker", "inspect")
    redacted_text = redact_command_output(argv, array)
    try:
        original, redacted = load_json(array, "docker inspect"), load_json(redacted_text, "docker inspect")
    except ValueError:
        return redacted_text
    changes: list[tuple[str, str]] = []
    _changed_strings(original, redacted, changes)
    text = array
    for old, new in sorted(changes, key=lambda c: -len(c[0])):
        for dumps in (json.dumps(old, ensure_ascii=False), json.dumps(old)):
            text = text.replace(dumps, json.dumps(new, ensure_ascii=False))
    try:
        if load_json(text, "docker inspect") == redacted:
            return text
    except ValueError:
        pass
    return redacted_text


@importer("docker inspect", "`docker inspect <container>` (JSON)", needles=("[",), per_line=True)
def docker_inspect(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _START.match(lines[i]):
            continue
        text = "\n".join(lines[i:])
        try:
            array = extract_json_array(text)
            objects = load_json(array, "docker inspect")
            parse_docker_inspect(array)
        except (ParseError, ValueError):
            continue
        if not isinstance(objects, list) or not objects:
            continue
        end = i + array.count("\n") + 1
        # Whole: the array from its `[` to its matching `]` (a cut one does not parse).
        yield Found("docker inspect", i, end, document_appended(DOCKER_INSPECT.name, redact_in_place(array) + "\n", sep="\n"), whole=True)
        scan.skip(end)
