"""`stackaudit checks` and `explain`: the catalogue, from each check's one documentation source."""

from __future__ import annotations

from stackaudit.checks.registry import DOMAINS, CheckSpec, load_all
from stackaudit.errors import UsageError
from stackaudit.facts.applicability import (
    CPU_SUBJECTS,
    ENGINE_SUBJECTS,
    ENGINES_WITHOUT,
    GGML_ENGINE_NAMES,
    GGML_STATES,
    SUBJECTS,
)
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.render.document import Document, Notes, Paragraph, Section, Table, draw


def _ordered() -> list[CheckSpec]:
    return sorted(load_all().values(), key=lambda s: (DOMAINS.index(s.domain), s.id))


def render_catalogue(fmt: str) -> str:
    """The catalogue in `fmt`: Markdown is docs/checks.md; text and JSON are drawn from its document."""
    specs = _ordered()
    if fmt == "markdown":
        return render_docs_markdown(specs)
    table = Table(("ID", "DOMAIN", "SEVERITY", "SUMMARY"), tuple((s.id, s.domain, s.severity, s.title) for s in specs))
    payload = {"checks": [{"id": s.id, "domain": s.domain, "severity": s.severity, "confidence": s.confidence,
                           "fix_cost": s.fix.cost, "summary": s.title} for s in specs]}
    return draw(Document("catalogue", "stackaudit checks", "", (Section("", (table, Paragraph(f"{len(specs)} checks"))),),
                         payload), fmt)


def sources_line(spec: CheckSpec) -> str:
    """`numa: /sys/devices/system/node → `numactl -H` → `lscpu`; cpu (optional): `lscpu``: what each
    fact the check reads can come from, best first — generated from the facts, so it cannot drift."""
    facts = load_facts()
    parts = []
    for name, optional in [*((n, False) for n in spec.facts), *((n, True) for n in spec.optional_read)]:
        fact = facts.get(name)
        titles = " → ".join(a.title for a in fact.alternatives) if fact else "?"
        parts.append(f"{name}{' (optional)' if optional else ''}: {titles}")
    if spec.applies_to in CPU_SUBJECTS:  # the engine's applicability rule reads lscpu's vendor
        parts.append(f"applies to {CPU_SUBJECTS[spec.applies_to][0]}: not applicable where cpu names another vendor "
                     "(facts/applicability.py)")
    elif spec.applies_to in ENGINE_SUBJECTS:  # the engine's applicability rule reads the engines the paste shows
        lacking = {**GGML_ENGINE_NAMES, **ENGINES_WITHOUT.get(spec.applies_to, {})}
        parts.append("applies to the serving engine: not applicable where every engine the paste shows is "
                     f"{' or '.join(lacking.values())}"
                     + (f", unless {GGML_STATES[spec.applies_to][1]}" if spec.applies_to in GGML_STATES else "")
                     + " (facts/applicability.py)")
    elif spec.applies_to:  # the engine's applicability rule reads the GPU inventory and the driver
        parts.append(f"applies to {SUBJECTS[spec.applies_to].words}: not applicable where gpus and nvidia_driver show "
                     "none (facts/applicability.py)")
    if spec.reads is not None:  # a derived rule
        selects = spec.reads
        read = sorted(c.id for c in load_all().values() if c.reads is None and selects(c))
        parts.append(f"the results of {', '.join(read)}")
    return "; ".join(parts)


def explain_document(spec: CheckSpec) -> Document:
    """One check's documentation: what it is, what it reads and why (a paragraph each), where its facts come
    from, its fix's steps (the report's fix blocks) and its references; the JSON is the same, as data."""
    from stackaudit.report.fix_steps import fix_blocks

    fix = spec.fix
    facts = f"domain {spec.domain} · severity {spec.severity} · evidence {spec.confidence} · fix cost: {fix.cost_words()}"
    doc = (" ".join(line.strip() for line in para.splitlines()) for para in spec.doc.split("\n\n"))
    sections = (Section("", (Paragraph(facts),)), Section("", tuple(Paragraph(text) for text in doc if text)),
                Section("", (Paragraph(f"Sources: {sources_line(spec)}"),)),
                Section(f"Fix: {fix.cost_words()}", tuple(fix_blocks(fix))),
                *([Section("References", (Notes(spec.references),))] if spec.references else []))
    payload = {"id": spec.id, "title": spec.title, "domain": spec.domain, "severity": spec.severity,
               "confidence": spec.confidence, "doc": spec.doc, "sources": sources_line(spec), "fix": fix.to_json(),
               "references": list(spec.references)}
    return Document("catalogue", f"{spec.id} — {spec.title}", "", sections, payload)


def explain_check(check_id: str, fmt: str = "text") -> str:
    """The check's documentation (`explain_document`) in `fmt`; an unknown ID is a usage error naming the
    closest."""
    catalogue = load_all()
    spec = catalogue.get(check_id.upper())
    if spec is None:
        import difflib

        close = difflib.get_close_matches(check_id.upper(), list(catalogue), n=3, cutoff=0.5)
        tip = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(f"unknown check ID {check_id!r}{tip}; `stackaudit checks` lists them")
    return draw(explain_document(spec), fmt)


def render_docs_markdown(specs: list[CheckSpec] | None = None) -> str:
    """docs/checks.md: generated from the checks' own documentation (a test keeps it current).

    Every text goes through the one Markdown escaper (render.escape), and every command of a fix
    is a fenced block, so that GitHub shows `<placeholders>` and nested backticks as written.
    """
    from stackaudit.render.document import markdown_blocks
    from stackaudit.render.escape import md_cell, md_inline, md_table
    from stackaudit.report.fix_steps import fix_blocks

    specs = specs if specs is not None else _ordered()
    out = ["# stackaudit checks", "",
           "Generated by `make docs` (`stackaudit checks --format markdown`) from each check's own",
           "documentation; do not edit by hand.", ""]
    out += md_table(["ID", "domain", "severity", "evidence", "fix cost", "summary"],
                    [[f"[{s.id}](#{s.id.lower()})", s.domain, s.severity, s.confidence, s.fix.cost, md_cell(s.title)]
                     for s in specs])
    out.append("")
    for s in specs:
        out += [f"## {s.id}", "", f"**{md_inline(s.title)}** — domain {s.domain}, severity {s.severity}, "
                f"evidence {s.confidence}, fix cost {s.fix.cost}.", ""]
        for para in s.doc.split("\n\n"):
            text = " ".join(line.strip() for line in para.splitlines())
            head, sep, rest = text.partition(":")
            if sep and head in ("Reads", "Bad value", "Why", "Traps"):
                out += [f"**{head}:** {md_inline(rest.strip())}", ""]
                if head == "Reads":
                    out += [f"**Sources:** {md_inline(sources_line(s))}", ""]
            elif text:
                out += [md_inline(text), ""]
        out += [f"**Fix** — {md_inline(s.fix.cost_words())}:", *markdown_blocks(fix_blocks(s.fix)), ""]
        if s.references:
            out += ["**References:** " + " · ".join(f"<{r}>" for r in s.references), ""]
    return "\n".join(out).rstrip() + "\n"
