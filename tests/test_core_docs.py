"""Every check documented in one place; docs/checks.md generated from it and current."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stackaudit.catalogue import render_docs_markdown
from stackaudit.checks.registry import load_all

REPO = Path(__file__).resolve().parents[1]
KB = REPO.parent / "shared" / "knowledge-base.md"
# The domains built so far and how many entries the knowledge base has for each of them there.
ISSUE_2_IDS_FW = {"FW-IOMMU-MODE", "FW-VM", "FW-NUMA-NPS"}


def test_docs_checks_md_is_current() -> None:
    current = (REPO / "docs" / "checks.md").read_text()
    assert current == render_docs_markdown(), "docs/checks.md is stale: run `make docs`"


@pytest.mark.parametrize("spec", sorted(load_all().values(), key=lambda s: s.id), ids=lambda s: s.id)
def test_every_check_has_its_documentation_sections(spec) -> None:  # type: ignore[no-untyped-def]
    for section in ("Reads:", "Bad value:", "Why:", "Traps:"):
        assert section in spec.doc, f"{spec.id} docstring lacks {section}"
    assert spec.title and spec.fix.cost


def test_check_ids_are_the_knowledge_base_ids() -> None:
    if not KB.exists():
        pytest.skip("../shared/knowledge-base.md is not present")
    kb_ids = set(re.findall(r"^### ([A-Z]+-[A-Z0-9-]+) —", KB.read_text(), re.MULTILINE))
    registered = set(load_all())
    assert registered <= kb_ids, f"IDs not in the knowledge base: {sorted(registered - kb_ids)}"
    built_domains = {"KERN", "KVER", "CTR", "RT"}
    expected = {i for i in kb_ids if i.split("-")[0] in built_domains} | ISSUE_2_IDS_FW
    assert expected <= registered, f"knowledge-base checks missing: {sorted(expected - registered)}"
