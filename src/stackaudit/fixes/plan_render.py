"""A fix plan as a bash script, and as a document (render.document) drawn as Markdown (for a ticket) and JSON
(docs/fix.md).

The script runs nothing when it is run whole: each group is a function and the last lines run the
one group named on the command line (`bash plan.sh now`); with no name they print the groups and
exit 2. Commands are the fix data's lines, verbatim; a command with a `<placeholder>` left in it, a
persistent form, a BIOS step and a verification after a restart are comments. Every value read from
the host (observed values, the hostname) is a bash word or a comment that cannot break its line.
"""

from __future__ import annotations

from typing import Any

from stackaudit.fixes.kernel_cmdline import systemd_boot_form
from stackaudit.fixes.model import COST_WORDS, PLACEHOLDER, Command, Persist
from stackaudit.fixes.plan import (
    GROUPS,
    Plan,
    PlanStep,
    has_placeholder,
    observed_text,
)
from stackaudit.fixes.shell_quote import bash_word, comment_text
from stackaudit.render.document import Block, Code, Document, Notes, Paragraph, Section, draw

_INDENT = "  "
_LOADER_WORDS = {"grub": "GRUB", "systemd-boot": "systemd-boot"}
_AFTER = {"restart": "after the engine restarts", "driver-reload": "after the driver is reloaded",
          "reboot": "after the reboot", "bios": "after the firmware change and the reboot",
          "container-host": "then, in the container"}


def _function(group: str, undo: bool = False) -> str:
    return ("undo_" if undo else "group_") + group.replace("-", "_")


def _comment(text: str, depth: int = 1) -> str:
    return f"{_INDENT * depth}# {comment_text(text)}".rstrip()


def _runnable(command: Command, group: str) -> bool:
    return group != "bios" and not has_placeholder(command)


def _command_lines(commands: tuple[Command, ...], group: str) -> list[str]:
    out: list[str] = []
    for c in commands:
        if _runnable(c, group):
            out.append(f"{_INDENT}{c.line}")
        else:
            held = sorted(set(_placeholders(c.line)))
            why = "fill in " + ", ".join(held) + ", then run" if held else "a person runs"
            out += [_comment(f"{why}:"), _comment(f"  {c.line}")]
    return out


def _placeholders(line: str) -> list[str]:
    return PLACEHOLDER.findall(line)


def _persist_lines(p: Persist, depth: int = 1) -> list[str]:
    label = f" ({p.label})" if p.label else ""
    out: list[str] = []
    if p.command is not None:
        out += [_comment(f"keep{label}:", depth), _comment(f"  {p.command.line}", depth)]
    elif p.line:
        where = f", in {p.file}" if p.file else ""
        out += [_comment(f"keep{label}{where}:", depth), _comment(f"  {p.line}", depth)]
    if p.text and (p.command is not None or p.line):
        out.append(_comment(f"  {p.text}", depth))
    elif p.text:
        out.append(_comment(f"keep{label}: {p.text}", depth))
    return out


def _keep_forms(plan: Plan, s: PlanStep) -> list[Persist]:
    """The step's persistent forms; a kernel-command-line form for the boot loader in use (both when
    the source does not show it)."""
    cmdline = dict((id(p), params) for p, params in s.kernel_cmdline)
    out: list[Persist] = []
    for p in s.step.persistent:
        if id(p) not in cmdline:
            out.append(p)
            continue
        if plan.boot_loader in ("", "grub"):
            out.append(p)
        if plan.boot_loader in ("", "systemd-boot"):
            out.append(systemd_boot_form(cmdline[id(p)]))
    return out


def _takes(plan: Plan, s: PlanStep) -> str:
    """What the step costs in words; in a Kubernetes pod, restarting the engine is redeploying the pod."""
    if s.step.takes:
        return s.step.takes
    if plan.container == "kubernetes" and s.step.cost == "restart" and s.step.scope == "container":
        return "redeploy the pod"
    return COST_WORDS[s.step.cost]


def _step_lines(plan: Plan, s: PlanStep) -> list[str]:
    step = s.step
    priority = f" ({s.priority})" if s.priority else ""
    out = [_comment(f"-- {s.check}{priority}: {step.does}")]
    if s.group == "container-host" or _takes(plan, s) != COST_WORDS[step.cost]:
        out.append(_comment(f"   takes: {_takes(plan, s)}"))
    if s.observed is not None:
        out.append(f"{_INDENT}#    observed: {bash_word(observed_text(s.observed))}")
    if step.changes:
        out.append(_comment(f"   changes: {step.changes}"))
    if step.commands:
        out += _command_lines(step.commands, s.group)
    else:
        out.append(_comment("   nothing to run: a person does this"))
    for p in _keep_forms(plan, s):
        out += _persist_lines(p)
    if s.note:
        out.append(_comment(f"note: {s.note}"))
    if s.revert:
        src = "from the observed value" if s.revert_from == "observed" else "as the fix gives it"
        out.append(_comment(f"undo ({src}): bash \"$0\" undo-{s.group}"))
    return out


def _verify_lines(plan: Plan, group: str) -> list[str]:
    ids = plan.verify(group)
    if not ids:
        return []
    line = f"stackaudit audit --select {','.join(ids)}"
    if group == "now":
        return [_comment("afterwards these checks must pass:"), f"{_INDENT}{line}"]
    return [_comment(f"{_AFTER[group]}, these checks must pass:"), _comment(f"  {line}")]


def _group_lines(plan: Plan, group: str) -> list[str]:
    out = [f"# == {group}: {comment_text(plan.group_title(group))} =="]
    if group == "container-host":
        out.append(f"# Run on {plan.container_host}, before the container's own steps; not in the container "
                   f"({plan.container}) {comment_text(plan.hostname)} this plan was made in.".replace("  ", " "))
    body: list[str] = []
    for s in plan.group(group):
        body += _step_lines(plan, s)
    out += _function_block(_function(group), body + _verify_lines(plan, group))
    reverts = [s for s in plan.group(group) if s.revert]
    if reverts:
        undo: list[str] = []
        for s in reversed(reverts):
            undo.append(_comment(f"-- {s.check}: undo {s.step.does}"))
            if s.observed is not None:
                undo.append(f"{_INDENT}#    observed: {bash_word(observed_text(s.observed))}")
            undo += _command_lines(s.revert, group)
        out += ["", *_function_block(_function(group, undo=True), undo)]
    return out


def _function_block(name: str, body: list[str]) -> list[str]:
    """A bash function of `body`; one whose every line is a comment (each command held for a person) gets a no-op,
    since bash refuses a function with no command."""
    if not any(not line.lstrip().startswith("#") for line in body):
        body = [*body, f"{_INDENT}:  # nothing here runs by itself"]
    return [f"{name}() {{", *body, "}"]


def _source_words(plan: Plan) -> str:
    src = plan.source
    files = ", ".join(str(f) for f in src.get("files") or [])
    words = f"{src.get('kind', '?')} {files}".strip()
    audited = src.get("audited")
    if isinstance(audited, dict):
        inner = ", ".join(str(f) for f in audited.get("files") or [])
        words += f" (an audit of {audited.get('kind', '?')} {inner})".replace(" )", ")")
    return words


def _header_facts(plan: Plan) -> list[str]:
    version = plan.tool.get("version", "?")
    out = [f"stackaudit fix plan (stackaudit {version})",
           f"source: {_source_words(plan)}" + (f", host {plan.hostname}" if plan.hostname else "")]
    if plan.container:
        out.append(f"audited inside a container ({plan.container}): host-level steps go on {plan.container_host}")
    out.append(f"audit: {plan.report_generated_at or '?'}; plan: {plan.generated_at or '?'}")
    loader = (f"boot loader: {_LOADER_WORDS[plan.boot_loader]} ({plan.boot_evidence})" if plan.boot_loader else
              "boot loader: not shown by the source (GRUB and systemd-boot forms both given)")
    out.append(loader)
    chosen = []
    if plan.only:
        chosen.append(f"--only {','.join(plan.only)}")
    if plan.priority:
        chosen.append(f"--priority {plan.priority}")
    if chosen:
        out.append("filters: " + " ".join(chosen))
    if plan.waived:
        out.append(f"{plan.waived} waived issue(s) left out")
    if plan.fix_replaced:
        out.append(f"the report's fix text is not the catalogue's for {', '.join(plan.fix_replaced)}: ignored "
                   "(the catalogue's steps are given; a check the catalogue does not know is left out)")
    return out


def _run_words(plan: Plan) -> list[str]:
    if not plan.steps:
        return ["No issue to fix" + (" with these filters." if plan.only or plan.priority else
                                     ": the audit found none.")]
    names = [*plan.groups, *(f"undo-{g}" for g in plan.groups if any(s.revert for s in plan.group(g)))]
    return ["Read it before running anything. Running the whole file runs nothing: each group is a",
            "function; run one group at a time, as root, on the machine it names, e.g.",
            f"  bash plan.sh {plan.groups[0]}",
            f"Groups: {', '.join(names)}."]


def render_bash(plan: Plan) -> str:
    out = ["#!/usr/bin/env bash"]
    out += [f"# {comment_text(line)}" for line in _header_facts(plan)]
    out += ["#", *[f"# {line}".rstrip() for line in _run_words(plan)], "set -euo pipefail"]
    for group in plan.groups:
        out += ["", *_group_lines(plan, group)]
    names = [(g, _function(g)) for g in plan.groups]
    names += [(f"undo-{g}", _function(g, undo=True)) for g in plan.groups if any(s.revert for s in plan.group(g))]
    choices = ", ".join(n for n, _ in names) or "none: there is nothing to fix"
    out += ["", 'case "${1:-}" in']
    out += [f"  {name}) {func} ;;" for name, func in names]
    out += [f'  *) echo "usage: bash $0 GROUP, one at a time, after reading the plan; groups: {choices}" >&2',
            "     exit 2 ;;", "esac", ""]
    return "\n".join(out)


def document(plan: Plan) -> Document:
    """The plan for a ticket: its facts, how to run it, and each group's checks and script."""
    facts, words = _header_facts(plan), _run_words(plan)
    head: tuple[Block, ...] = (Notes(tuple(facts[1:])), Paragraph(words[0])) if len(words) == 1 else (
        Notes(tuple(facts[1:])), Paragraph(f"{words[0]} {words[1]}"), Code(words[2].strip(), "bash"), Paragraph(words[3]))
    groups = tuple(Section(f"{group}: {plan.group_title(group)}", (
        Paragraph("Checks: " + ", ".join(f"`{c}`" for c in sorted({s.check for s in plan.group(group)}))),
        Code("\n".join(_group_lines(plan, group)[1:]), "bash"))) for group in plan.groups)
    return Document("fix-plan", facts[0], "", (Section("", head), *groups), plan_to_json(plan))


def _commands_json(commands: tuple[Command, ...], group: str) -> list[dict[str, Any]]:
    return [{**c.to_json(), "runs": _runnable(c, group)} for c in commands]


def plan_to_json(plan: Plan) -> dict[str, Any]:
    groups = []
    for group in plan.groups:
        steps = []
        for s in plan.group(group):
            steps.append({
                "check": s.check, "priority": s.priority, "title": s.title, "does": s.step.does,
                "cost": s.step.cost, "scope": s.step.scope, "takes": _takes(plan, s),
                "changes": s.step.changes, "observed": s.observed, "note": s.note or None,
                "commands": _commands_json(s.step.commands, group),
                "persistent": [p.to_json() for p in _keep_forms(plan, s)],
                "revert": _commands_json(s.revert, group), "revert_from": s.revert_from or None,
            })
        groups.append({"id": group, "title": plan.group_title(group), "function": _function(group),
                       "steps": steps, "verify": plan.verify(group)})
    return {
        "tool": dict(plan.tool),
        "source": dict(plan.source),
        "generated_at": plan.generated_at,
        "audit_generated_at": plan.report_generated_at,
        "host": {"hostname": plan.hostname, "container": plan.container or None,
                 "container_host": plan.container_host or None},
        "boot_loader": {"name": plan.boot_loader, "evidence": plan.boot_evidence} if plan.boot_loader else None,
        "filters": {"only": list(plan.only), "priority": plan.priority or None},
        "waived": plan.waived,
        "fix_text_ignored": list(plan.fix_replaced),
        "groups": groups,
    }


def render(plan: Plan, fmt: str) -> str:
    """The plan as a bash script (text), or its document drawn as Markdown or JSON."""
    return render_bash(plan) if fmt == "text" else draw(document(plan), fmt)


__all__ = ["GROUPS", "document", "plan_to_json", "render", "render_bash"]
