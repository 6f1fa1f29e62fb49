"""Property-based: no parser raises anything but its documented ParseError, on any input."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pkgutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stackaudit.facts
from stackaudit.facts._parse import ParseError
from stackaudit.importers.recognition import recognise


def _parsers() -> list:  # type: ignore[type-arg]
    found = []
    for info in pkgutil.iter_modules(stackaudit.facts.__path__):
        module = importlib.import_module(f"stackaudit.facts.{info.name}")
        for name, func in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("parse_") or func.__module__ != module.__name__:
                continue
            params = [p for p in inspect.signature(func).parameters.values() if p.default is inspect.Parameter.empty]
            # Parsers of one text (a parser of several files, `parse_grub_default(files)`, is not one).
            if len(params) == 1 and params[0].annotation in ("str", str):
                found.append(func)
    return found


PARSERS = _parsers()
# Text that looks like the outputs the parsers read: fragments mixed with noise and bad bytes.
FRAGMENTS = st.sampled_from([
    "Architecture:", "CPU(s):", " x86_64", "Model name:", "\n", ": ", "=", "\x00", "0-3,8", "node 0 cpus:",
    "Linux host 6.8.0-45-generic #45 SMP x86_64", "Max open files", "unlimited", "65536", "[always] madvise never",
    "BOOT_IMAGE=/vmlinuz", "root=UUID=x", "\ufffd", "-1", "9" * 30, "cpu", "\t", "kB", "Module Size Used by",
])
TEXTS = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=12)), max_size=60).map("".join),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", errors="replace")),
)


def test_parsers_were_found() -> None:
    names = {p.__name__ for p in PARSERS}
    assert {"parse_cmdline", "parse_lscpu", "parse_uname", "parse_proc_modules", "parse_cpulist"} <= names


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: f"{p.__module__.rsplit('.', 1)[-1]}.{p.__name__}")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_parser_raises_only_parse_error(parser, text: str) -> None:  # type: ignore[no-untyped-def]
    [param] = [p for p in inspect.signature(parser).parameters.values() if p.default is inspect.Parameter.empty]
    takes_bytes = param.annotation in (bytes, "bytes")
    with contextlib.suppress(ParseError):
        parser(text.encode("utf-8", errors="surrogateescape") if takes_bytes else text)


@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_recognise_never_raises(text: str) -> None:
    recognise(text)
