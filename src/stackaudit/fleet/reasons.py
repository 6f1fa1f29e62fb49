"""One line of reason for a node that gave no snapshot, as the fleet report prints it."""

from __future__ import annotations

import re

MAX_REASON_CHARS = 300


def reason_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """`text` (an engine's message, a program's stderr) as one visible line: secrets redacted, control
    characters escaped, whitespace runs folded, cut at `limit` characters."""
    from stackaudit.host.redact import redact_text
    from stackaudit.render.text import one_line

    return one_line(redact_text(text), limit)


def node_file_name(node: str) -> str:
    """The file name a node's snapshot gets in the gathering directory: `node` with anything but letters,
    digits, '.', '_' and '-' replaced by '_' and never starting with '.' (no path, no hidden file).
    fleet/ansible.py's playbook applies the same rule in Jinja (`regex_replace`)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", node) or "_"
    return ("_" + safe[1:] if safe.startswith(".") else safe) + ".tar.gz"
