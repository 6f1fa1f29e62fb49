"""A pasted `docker inspect <container>` (a JSON array, often inside chatter or a code fence).

Recorded as the commands the docker fact runs live: `docker ps -q` (the short ids) and
`docker inspect <ids>`. Secrets in Env, Args and Cmd are redacted here already, the same way the
host layer does for a live `docker inspect`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts._parse import ParseError
from stackaudit.facts.docker import DOCKER_PS, extract_json_array, parse_docker_inspect
from stackaudit.host.memory import HostRecord
from stackaudit.host.redact import redact_command_output
from stackaudit.importers.registry import Found, importer, record_command

_START = re.compile(r"^\s*\[\s*(\{.*)?$")


def _apply(objects: list[object], rec: HostRecord) -> None:
    ids = []
    for n, obj in enumerate(objects):
        cid = str(obj.get("Id", "")) if isinstance(obj, dict) else ""
        if not re.fullmatch(r"[0-9a-f]{12,64}", cid):
            cid = f"{n + 1:012x}"  # a pasted excerpt without an Id: give it one the ps line can name
            if isinstance(obj, dict):
                obj["Id"] = cid
        ids.append(cid[:12])
    argv = ("docker", "inspect", *ids)
    text = redact_command_output(argv, json.dumps(objects, indent=4))
    rec.which["docker"] = "/usr/bin/docker"
    existing = rec.commands.get(DOCKER_PS)
    previous = existing.stdout.split() if existing is not None else []
    record_command(rec, DOCKER_PS, "\n".join([*previous, *ids]) + "\n")
    record_command(rec, argv, text)


@importer("docker inspect", "`docker inspect <container>` (JSON)")
def docker_inspect(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if not _START.match(lines[i]):
            i += 1
            continue
        text = "\n".join(lines[i:])
        try:
            array = extract_json_array(text)
            objects = json.loads(array)
            parse_docker_inspect(array)
        except (ParseError, ValueError):
            i += 1
            continue
        if not isinstance(objects, list) or not objects:
            i += 1
            continue
        end = i + array.count("\n") + 1
        yield Found("docker inspect", i, end, partial(_apply, objects))
        i = end
