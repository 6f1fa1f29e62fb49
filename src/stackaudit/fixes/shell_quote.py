"""Quoting for bash: every value from the host that reaches a fix plan is one bash word that bash reads
back as the value, and never a line break (a plan's comments hold values too)."""

from __future__ import annotations

import shlex

_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a", "\b": "\\b",
            "\f": "\\f", "\v": "\\v", "\x1b": "\\E"}


# In single quotes `$`, backticks and a backslash are literal, but shellcheck takes them for a mistake
# (SC2016; SC1003 for `'\'`, found by the hypothesis test): such a value is written with ANSI-C quoting,
# where they are literal too (the backslash escaped).
_EXPANSIONS = frozenset("$`\\")
# Bash's reserved words: harmless as an argument, but shellcheck (SC1010 and kin) reads a bare one as
# syntax, so they are quoted like any other word that needs it.
_RESERVED = frozenset({"!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function",
                       "if", "in", "select", "then", "time", "until", "while", "{", "}", "[[", "]]"})


def bash_word(value: str) -> str:
    """`value` as one bash word: shlex.quote when every character is printable and none is `$`, a
    backtick or a backslash, else ANSI-C quoting (`$'…'`) with each control or unprintable character escaped. A NUL cannot be in a bash string:
    it is written as the four characters `\\x00`."""
    if value in _RESERVED:
        return f"'{value}'"
    if all(ch.isprintable() for ch in value) and not _EXPANSIONS & set(value):
        return shlex.quote(value)
    out: list[str] = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == "\0":
            out.append("\\\\x00")
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "$'" + "".join(out) + "'"


def comment_text(text: str) -> str:
    """Text for a `# ` comment: as it is when every character is printable, else as a bash word (so a
    newline in it cannot end the comment and start a command)."""
    return text if all(ch.isprintable() for ch in text) else bash_word(text)
