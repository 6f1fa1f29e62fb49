"""A compose file pasted as a Markdown indented code block (every line four spaces in) is read as the file it is,
with that indentation taken off (importers/container_specs.py `compose`); a `services:` key nested in another mapping
(a Helm values file) is no compose file."""

from __future__ import annotations

import pytest

from corpus import CorpusEntry, fact, load_corpus, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.importers.recognition import recognise

CHECKS = ("CTR-GPU-ACCESS", "CTR-SHM-SIZE", "CTR-IPC-ISOLATION")
# The corpus's compose files that start at `services:` (real pastes from their threads).
COMPOSE = [e for e in load_corpus() if "compose" in e.kinds and any(
    line.rstrip() == "services:" for line in e.lines_of("compose"))]


def test_the_corpus_holds_compose_files_to_indent() -> None:
    assert len(COMPOSE) >= 3


@pytest.mark.parametrize("entry", COMPOSE, ids=lambda e: e.path.name[:48])
def test_a_compose_file_indented_four_spaces_gives_the_same_verdicts(entry: CorpusEntry) -> None:
    """Real: each compose file of the corpus, re-pasted indented four spaces below a line of prose."""
    text = "\n".join(entry.lines_of("compose"))
    indented = "Here is my docker-compose.yml:\n\n" + "\n".join("    " + line if line.strip() else ""
                                                              for line in text.splitlines()) + "\n"
    plain = run_checks(pasted(text + "\n"), list(CHECKS))
    moved = run_checks(pasted(indented), list(CHECKS))
    assert {c: plain[c].status for c in CHECKS} == {c: moved[c].status for c in CHECKS}
    assert fact(pasted(indented), "docker_containers") == fact(pasted(text + "\n"), "docker_containers")


def test_ollamas_indented_compose_is_read() -> None:
    """Real: https://github.com/ollama/ollama/issues/7761 (corpus 584), refused before as nothing recognisable."""
    entry = next(e for e in load_corpus() if e.path.name.startswith("584-"))
    results = run_checks(pasted(entry.path.read_text().split("-----\n", 1)[1]), ["CTR-GPU-ACCESS", "CTR-SHM-SIZE"])
    # Its request is read; nothing the tool reads shows the GPU inside (a request alone is unknown, issue 28 h121c).
    assert results["CTR-GPU-ACCESS"].status == "unknown" and "request GPUs: ollama (all)" in results["CTR-GPU-ACCESS"].message
    assert results["CTR-SHM-SIZE"].status == "not-an-issue"


def test_a_services_key_nested_in_another_mapping_is_no_compose_file() -> None:
    """Modelled: a Helm values file's `services:` under `app:` (its lines indented like a code block) is refused."""
    helm = "app:\n    services:\n      web:\n        image: nginx:1.27\n"
    assert recognise(helm).recognised == []
    assert [kind for kind, *_ in recognise(helm.replace("app:\n", "")).recognised] == ["compose"]
