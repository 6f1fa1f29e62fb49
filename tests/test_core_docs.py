"""Every check documented in one place; docs/checks.md generated from it and current."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.catalogue import render_docs_markdown
from stackaudit.checks.registry import load_all

REPO = Path(__file__).resolve().parents[1]


def test_docs_checks_md_is_current() -> None:
    current = (REPO / "docs" / "checks.md").read_text()
    assert current == render_docs_markdown(), "docs/checks.md is stale: run `make docs`"


@pytest.mark.parametrize("spec", sorted(load_all().values(), key=lambda s: s.id), ids=lambda s: s.id)
def test_every_check_has_its_documentation_sections(spec) -> None:  # type: ignore[no-untyped-def]
    for section in ("Reads:", "Bad value:", "Why:", "Traps:"):
        assert section in spec.doc, f"{spec.id} docstring lacks {section}"
    assert spec.title and spec.fix.cost

