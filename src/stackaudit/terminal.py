"""Text from a host is data: its control characters never reach a terminal as control characters.

A hostname, a GPU name or an environment value may hold ESC sequences that clear the screen, move the
cursor, set the window title or write the clipboard (OSC 52). `escape_terminal` shows every C0 and C1
control character (but newline and tab) and DEL as a visible `\\xNN` escape.
"""

from __future__ import annotations

import re

# C0 (but \t and \n), DEL, C1; and U+2028/2029 and bidi overrides, which reorder what a terminal shows.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# The renderer's own colours: SGR sequences only (`ESC [ digits ; ... m`).
_SGR = re.compile(r"\x1b\[[0-9;]{0,32}m")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_terminal(text: str, keep_colour: bool = False) -> str:
    """`text` with every control character shown as an escape. With `keep_colour`, SGR colour sequences
    (what the text renderer itself writes) stay; cursor moves, screen clears, OSC and \\r never do."""
    if not keep_colour:
        return _CONTROL.sub(_visible, text)
    out: list[str] = []
    last = 0
    for m in _SGR.finditer(text):
        out.append(_CONTROL.sub(_visible, text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_CONTROL.sub(_visible, text[last:]))
    return "".join(out)
