"""Issue 26: every `@parser` docstring shows a few lines of real input, and its parser reads them.

The block is `Input (WHERE)::` followed by indented lines. WHERE names a corpus capture
(`tests/data/captures/NNN`), a public thread's URL, or says where else the input comes from. A block that names
a capture holds lines of that capture as it holds them. The parser reads a block that names a capture or a URL
without raising, unless NEEDS_MORE says why it cannot.
"""

from __future__ import annotations

import ast
import importlib
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus import body

SRC = Path(__file__).resolve().parents[1] / "src"
INPUT_LINE = re.compile(r"^Input \((?P<where>.*)\)::$")
CAPTURE = re.compile(r"tests/data/captures/(\d+)\b")

# Parsers that need more than a docstring's few lines; each with the reason.
NEEDS_MORE = {
    "containers_from_docker_inspect": "reads whole JSON arrays; a few lines of one are an excerpt "
                                      "(containers_from_inspect_excerpt reads those)",
    "hostname_from_log_prefixes": "reads the host names the importer takes off the log lines' prefixes, "
                                  "not the lines",
    "stated_engines_from_prompts": "reads the prompts' hosts and commands the importer takes off the lines, "
                                   "not the lines",
}


def _parsers() -> list[tuple[str, str]]:
    """(module, function) of every function decorated `@parser(...)` under src/stackaudit."""
    found: list[tuple[str, str]] = []
    for path in sorted((SRC / "stackaudit").rglob("*.py")):
        text = path.read_text()
        if "@parser(" not in text:
            continue  # parsing every module's syntax tree would cost near 2 s of each worker's collection
        module = ".".join(path.relative_to(SRC).with_suffix("").parts)
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "parser"
                    for d in node.decorator_list):
                found.append((module, node.name))
    return found


PARSERS = _parsers()


def input_block(doc: str) -> tuple[str, str] | None:
    """(WHERE, the dedented lines) of a docstring's `Input (WHERE)::` block; None when it has none."""
    lines = textwrap.dedent("\n".join(doc.splitlines()[1:])).splitlines()
    for i, line in enumerate(lines):
        m = INPUT_LINE.match(line.strip())
        if not m:
            continue
        block: list[str] = []
        for raw in lines[i + 1:]:
            if raw.strip() and not raw.startswith(" "):
                break
            block.append(raw)
        text = textwrap.dedent("\n".join(block)).strip("\n")
        return (m.group("where"), text + "\n") if text else None
    return None


def test_the_scan_finds_the_parsers() -> None:
    assert len(PARSERS) >= 41
    assert ("stackaudit.facts.nvidia", "parse_nvsmi_version") in PARSERS
    assert set(NEEDS_MORE) <= {name for _, name in PARSERS}


def test_input_block_reads_the_house_form() -> None:
    doc = '''Summary.

    Input (tests/data/captures/180)::

        NVIDIA-SMI version  : 595.58.03
          indented

    After the block.
    '''
    assert input_block(doc) == ("tests/data/captures/180", "NVIDIA-SMI version  : 595.58.03\n  indented\n")
    assert input_block("Summary.\n\n    No block here.\n") is None


@pytest.mark.parametrize(("module", "name"), PARSERS, ids=[name for _, name in PARSERS])
def test_parser_docstring_shows_its_input(module: str, name: str) -> None:
    func: Callable[[str], Any] = getattr(importlib.import_module(module), name)
    block = input_block(func.__doc__ or "")
    assert block is not None, f"{name}: its docstring has no `Input (...)::` block of real input"
    where, text = block
    assert where.strip() and text.strip(), f"{name}: an empty `Input ({where})::` block"
    m = CAPTURE.search(where)
    if m is not None:
        capture = body(m.group(1))
        for line in text.splitlines():
            assert line.strip() in capture, f"{name}: {line.strip()!r} is not in capture {m.group(1)}"
    if (m is not None or "https://" in where) and name not in NEEDS_MORE:
        func(text)  # a ParseError here: the block is not input this parser reads
