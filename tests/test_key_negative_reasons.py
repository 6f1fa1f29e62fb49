"""A key negative result says why it is fine in every format, not only with --verbose (the expert reader's finding:
320's answer, GeForce cards have no P2P by design, showed only as a title)."""
from corpus import CAPTURES_DIR, capture_checks
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.header import finding_reason, finding_title
from stackaudit.report.render import render


def test_a_key_negative_shows_its_reason_in_text_and_markdown() -> None:
    # Real: tests/data/captures/320 (huggingface/text-generation-inference#515), two GeForce cards in nvidia-smi.
    path = next(CAPTURES_DIR.glob("320-*.txt"))
    report = run_audit(load_pasted([str(path)]), AuditOptions())
    for fmt in ("text", "markdown"):
        negatives = render(report, fmt).split("Key negative results", 1)[1]
        assert "no PCIe P2P from the stock" in " ".join(negatives.split()), fmt


def test_the_reason_is_the_message_after_the_title() -> None:
    # Real: tests/data/captures/320: the title is the first clause, the reason the rest, each shown once.
    r = capture_checks("320", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert r.status == "not-an-issue"
    title, reason = finding_title(r), finding_reason(r)
    assert reason and title not in reason and r.message.startswith(title)
