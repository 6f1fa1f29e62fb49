"""What every report says first: who made it, when, from what, and one sentence of verdict.

Also the words of each finding that the renderers share: its title (the finding itself, the check
ID as a tag), its one line of evidence, and where its fix must be applied.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.facts.serving_logs import nccl_warning_at
from stackaudit.render.text import cut_at_word, show_value

NOTHING_FOUND = "nothing found that explains low throughput; next: measure against the ceiling"
# A paste that shows no serving engine and no token rate (a GPU table, a plugin's log, a container's failure): the
# user did not come with a throughput question the paste shows, so no `stackaudit ceiling` of placeholders.
NOTHING_SHOWN = "no fault found in what this paste shows; next: the steps below settle what it could not tell"
# An nccl-tests (or rccl-tests) run with no engine: its question is the collective's time or bandwidth, which a
# tokens-per-second ceiling does not answer; NCCL's own INFO lines name the transport each channel takes.
NOTHING_IN_COLLECTIVE = ("nothing found that explains the collective's time or bandwidth; next: rerun it with "
                         "NCCL_DEBUG=INFO, whose channel lines name the transport each pair of ranks takes (NVLink or "
                         "P2P, SHM, NET/IB, NET/Socket)")

# What settles a job's network between nodes where NCCL's log shows it to be TCP sockets and no fault.
NCCL_TESTS_ACROSS = ("run nccl-tests across the nodes (`all_reduce_perf -b 8M -e 1G -f 2 -g 1` under mpirun, one rank "
                     "per GPU) with NCCL_DEBUG=INFO: its bus bandwidth, run after run, is what this network gives the "
                     "job")


def redact_argv(argv: Sequence[str]) -> list[str]:
    """The command line as run, fit to paste: secrets hidden as a snapshot hides them (host/redact.py), and a
    path, alone or as a flag's `=value`, cut to its last component, since a report never names a path of the
    machine that ran it."""
    from stackaudit.host.redact import redact_argv as hide_secrets

    out: list[str] = []
    for arg in hide_secrets(list(argv)):
        name, eq, value = arg.partition("=")
        out.append(f"{name}={_strip_path(value)}" if eq and arg.startswith("-") else _strip_path(arg))
    return out


def _strip_path(arg: str) -> str:
    """A path argument as its last component; each item of a comma list (`--from a/x.txt,b/y.txt`) alike."""
    if "," in arg:
        return ",".join(_strip_path(part) for part in arg.split(","))
    if "/" not in arg or "://" in arg:
        return arg
    base = os.path.basename(arg.rstrip("/"))
    return base or arg


def command_line(argv: Sequence[str] | None) -> str:
    """`stackaudit audit --from report.txt`; empty when the caller did not say how it ran."""
    if argv is None:
        return ""
    return " ".join(_quote(a) for a in ["stackaudit", *redact_argv(argv)])


def _quote(arg: str) -> str:
    if arg and re.fullmatch(r"[\w@%+=:,./*-]+", arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def source_text(report: Report) -> str:
    """`snapshot proxmox-lxc.tar.gz`, `pasted report.txt, lscpu.txt`, `live host gpu-01`: names only."""
    kind = str(report.source.get("kind", "live"))
    if kind == "live":
        host = report.host.get("hostname") or "?"
        return f"live host {host}"
    files = [os.path.basename(str(f)) for f in report.source.get("files", [])]
    return f"{kind} {', '.join(files)}" if files else kind


def identity_line(report: Report) -> str:
    """`stackaudit 0.1.0 · 2026-12-01T12:00:00Z · snapshot proxmox-lxc.tar.gz`."""
    version = report.tool.get("version", "?")
    return f"{report.tool.get('name', 'stackaudit')} {version} · {report.generated_at} · {source_text(report)}"


def host_of_container(report: Report) -> str:
    """What the container's host is called, for "apply on the …": the Proxmox node, the Docker host."""
    kind = report.host.get("container")
    kernel = str(report.host.get("kernel") or "")
    if kind == "lxc" and kernel.endswith("-pve"):
        return "the Proxmox node"
    return {"lxc": "the LXC host", "docker": "the Docker host", "podman": "the Podman host",
            "kubernetes": "the Kubernetes node", "systemd-nspawn": "the nspawn host"}.get(str(kind), "the container's host")


def in_container(report: Report) -> bool:
    return report.host.get("container") not in (None, "none")


def where_to_apply(r: Result, report: Report) -> str:
    """`on the Proxmox node` when a host-level fix was found from inside a container; else empty."""
    if in_container(report) and r.scope == "host":
        return f"on {host_of_container(report)}"
    return ""


def finding_title(r: Result) -> str:
    """The finding in words, from the result's message: its first clause (`open-file hard limit below 65536`),
    whole (a reason is never cut mid-sentence: a check's first clause is short).

    A subject the clause does not name is added when there are at most two (`… — pid 731`).
    """
    first = _first_clause(r.message) or r.title
    if r.subjects and len(r.subjects) <= 2 and not any(s in first for s in r.subjects):
        first += " — " + ", ".join(r.subjects)
    return first


def finding_reason(r: Result) -> str:
    """The message after the clause `finding_title` shows: why the finding holds; "" where the clause is all of it."""
    first = _first_clause(r.message)
    return r.message[len(first):].lstrip(":;. ").strip() if r.message.startswith(first) else r.message


def coverage_note(r: Result) -> str:
    """` (1 of 8 GPUs shown)` after a finding judged on some of its subjects; "" where all of them were judged."""
    return f" ({r.coverage.text()})" if r.coverage is not None and not r.coverage.complete else ""


def _first_clause(message: str) -> str:
    """Up to the first `: `, `; ` or `. ` outside parentheses and outside a quote in backticks (a log line a message
    quotes keeps its own sentences); a clause shorter than 16 characters goes on; an ellipsis, a name the nvidia-smi
    table cut, ends none."""
    depth = 0
    quoted = False
    for i, ch in enumerate(message):
        if ch == "`":
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ":;." and message[i + 1:i + 2] == " " and i >= 16 and message[i - 1:i + 1] != "..":
            return message[:i].strip()
    return message.strip().rstrip(".")


_SIZE_KEYS = re.compile(r"(bytes|_kib|_kb|_mib|size)$", re.IGNORECASE)
_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def human_size(n_bytes: float) -> str:
    """62.5 GiB, 8 MiB, 512 B: binary units, at most one decimal, trailing `.0` dropped."""
    value = float(n_bytes)
    unit = 0
    while abs(value) >= 1024 and unit < len(_UNITS) - 1:
        value /= 1024
        unit += 1
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {_UNITS[unit]}"


def value_text(value: Any, limit: int = 120) -> str:
    """A result's value in words for one line: sizes in units (fields named *bytes, *_kib, *size)."""
    if isinstance(value, dict):
        value = {k: _sized(k, v) for k, v in value.items()}
    return show_value(value, limit)


def _sized(key: str, value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and _SIZE_KEYS.search(str(key)):
        factor = 1024 if re.search(r"_kib|_kb$", str(key), re.IGNORECASE) else (
            1024 * 1024 if str(key).lower().endswith("_mib") else 1)
        return human_size(value * factor)
    return value


def evidence_line(r: Result, limit: int = 160) -> str:
    """`"/proc/sys/kernel/numa_balancing: 1"` — the verbatim source line the finding names, then the value where
    it adds to the finding's words (never a value its message already says).

    The line is the first that names one of the result's subjects, else the first one (Result.quoted); a long one
    is cut around the words the finding names (quote_cut).
    Without a verbatim line it is the reason the message gives after the title: the numbers that make the
    finding (`TP x PP = 4, at most 1 GPU`) are there, and the title alone drops them.
    """
    value = value_text(r.actual, 80) if r.actual not in (None, "", [], {}) else ""
    if value and _says(r.message + " " + finding_title(r), value):
        value = ""
    if not r.evidence:
        reason = finding_reason(r)
        if reason and reason != finding_title(r):
            return cut_at_word(reason, limit) + (f" → {value}" if value else "")
        return f"observed: {value}" if value else ""
    from stackaudit.facts.symptoms import matched_span

    quote = quote_cut(r.quoted, f"{finding_title(r)} {_own_words(finding_reason(r))}", limit,
                      matched_span(r.quoted, r.id))
    quoted = f"“{quote}”"
    return f"{quoted} → {value}" if value and not _says(quote, value) else quoted


# Words too common to say which part of a line a finding is about.
_COMMON = frozenset({"the", "and", "for", "not", "its", "was", "has", "are", "with", "from", "that", "this", "which",
                     "into", "but", "any", "all", "one", "per", "than", "then", "there", "their", "they", "them",
                     "been", "have", "had", "can", "could", "would", "will", "when", "where", "what", "while",
                     "each", "only", "also", "does", "did", "out", "off"})
# A log line the message repeats in double quotes: not the finding's own words.
_QUOTED_COPY = re.compile(r'"[^"]{30,}"')
# The same, or a command the message repeats in backticks (reason_line).
_COPY_OR_COMMAND = re.compile(rf"{_QUOTED_COPY.pattern}|`[^`]{{30,}}`")


def _own_words(message: str) -> str:
    """The message without the log lines it repeats in double quotes."""
    return _QUOTED_COPY.sub("", message)


def quote_cut(line: str, named: str, limit: int, rule: tuple[int, int] | None = None) -> str:
    """A quoted line at most `limit` characters long, cut so that it keeps the words of `named` (the finding's
    title and reason) a cut at the limit would drop (corpus 1583: `… nvml: Unknown Error`, past the line's first 160
    characters): the line's start, `…`, then the line's end where the last such word lies near it, else the words
    around it. A line that fits, or whose dropped part names none of those words, is cut at the limit as before; so is
    one whose start could not be cut between words. Where the start, so shortened, would lose what the rule matched
    (`rule`, its span in the line: a symptom's words, facts/symptoms.matched_span), the line is quoted from there to
    its end when that fits, else cut at the limit."""
    head = cut_at_word(line, limit)
    if head == line:
        return line
    kept = len(head) - 1
    words = {w.lower() for w in re.findall(r"\w+", named) if len(w) > 2} - _COMMON
    dropped = [m for m in re.finditer(r"\w+", line) if m.start() >= kept and m.group().lower() in words]
    if not dropped:
        return head
    key = dropped[-1].start()
    budget = limit // 2
    if len(line) - key < budget:  # the line's end holds it: the end, from a word's start
        start = len(line) - budget + 2
        space = line.find(" ", start, key)
        tail = line[space + 1 if space >= 0 else key:]
    else:  # the words around it, from a word's start a little before it
        space = line.rfind(" ", max(kept, key - budget // 3), key)
        tail = cut_at_word(line[space + 1 if space >= 0 else key:], budget)
    room = max(1, limit - len(tail) - 3)
    lead = cut_at_word(line, room).removesuffix("…").rstrip()
    if rule is not None and rule[0] < key and len(lead) < rule[1] - 1:
        # The start cannot keep what the rule matched: the line from there on, its prefix (time, host, pid) left out
        # (`… failed to extend /dev/shm/nccl-… bytes, error: No space left on device (28)`, corpus 969).
        space = line.rfind(" ", 0, rule[0])
        rest = line[space + 1 if space >= 0 else rule[0]:]
        return f"… {rest}" if len(rest) <= limit - 2 else head
    if " " not in line[:room]:
        return head
    return f"{lead} … {tail}"


def reason_line(r: Result, limit: int = 300) -> str:
    """Under an issue's title: the reason its message gives (what follows, what it costs: `fell back to TCP sockets
    (`via NET/Socket`)`, corpus 1580), up to the log line it repeats in quotes, where it says what the title and the
    quoted line do not; "" where it adds nothing, and for a finding with no line to quote (evidence_line then shows
    the reason)."""
    if not r.evidence:
        return ""
    reason = finding_reason(r)
    # The line the message repeats, in double quotes or as a command in backticks: the reason is what precedes it,
    # or where nothing does (`CMD`: --enforce-eager (...), corpus 677) what follows it.
    copies = [m for m in _COPY_OR_COMMAND.finditer(reason)
              if m.group().startswith('"') or m.group()[1:-1] in r.quoted]
    if copies:
        before = reason[:copies[0].start()].strip(" :;,.")
        reason = before or reason[copies[0].end():].strip(" :;,.")
    reason = reason.strip().rstrip(":;,. ").strip()
    if not reason or _says(f"{finding_title(r)} {r.quoted}", reason):
        return ""
    return cut_at_word(reason, limit)


def _says(text: str, value: str) -> bool:
    """Whether every word of `value` is already in `text` (so showing it would repeat the text)."""
    words = set(re.findall(r"\w+", text.lower()))
    shown = re.sub(r" and \d+ more$", "", value.removesuffix("…"))  # what is cut off is not shown either
    return set(re.findall(r"\w+", shown.lower())) <= words


def verdict(report: Report, top: Result | None) -> str:
    """One sentence: the top finding and where to apply it, or that nothing found explains slowness. On a box
    with no GPU or no engine that absence leads: the findings are about the host an engine would run on.

    A P2 first finding is said to be minor, so that "fix first" is not read as the cause of the user's trouble.
    """
    scope, partial = serving_scope(report), partial_note(report)
    lead, explains = gap_lead(report)
    if top is None:
        return f"{lead or nothing_found(report)}{scope}{partial}"
    where = where_to_apply(top, report)
    place = f", apply it {where}" if where else ""
    more = len(report.issues()) - 1
    tail = f" ({more} more below)" if more > 0 else ""
    finding = f"{finding_title(top)} [{top.id}, {top.priority}]{place}{tail}"
    # The first is the best-ranked of the highest priority: a P2 first means that every finding is minor.
    finding += "; all findings are minor" if top.priority == "P2" else ""
    if lead:
        return f"{lead}; {'' if explains else 'on the host, '}fix first: {finding}{scope}{partial}"
    if scope:
        return f"{scope.removeprefix('; ')}: before an engine serves here, fix first: {finding}{partial}"
    return f"fix first: {finding}{partial}"


def nothing_found(report: Report) -> str:
    """What the verdict says where no finding stands: the hang, failure or decode stall a pasted log shows, quoted,
    with what the engine's lines show of it and the answer of the check that answers it (facts/trouble.ANSWERED_BY);
    the answer to a question the user asks; NCCL's failed call (`NCCL WARN Cuda failure`), quoted; for a paste with
    no engine and no rate, that nothing shown is at fault (an nccl-tests run: with NCCL_DEBUG=INFO as the next step;
    an NCCL log of a job between nodes over TCP: that network, with nccl-tests across the nodes next); else that
    nothing explains low throughput, with the `stackaudit ceiling` command to measure against."""
    trouble = report.host.get("trouble")
    kind = str(trouble.get("kind", "")) if isinstance(trouble, dict) else ""
    line = str(trouble.get("line", "")) if isinstance(trouble, dict) else ""
    warn_at = nccl_warning_at(line) if kind == "failure" else -1
    nccl = warn_at >= 0
    if kind in _TROUBLE_NEXT and not nccl:
        quote = cut_at_word(line, 100)
        # The check that answers what the failure is about (facts/trouble.ANSWERED_BY), where it judged the host.
        checks = [str(c) for c in trouble.get("checks") or ()] if isinstance(trouble, dict) else []
        r = _answering(report, checks)
        said = f"; {r.id}: {_ANSWERS[r.status]}, {finding_title(r)}" if r and r.status in _ANSWERS else ""
        nexts = {**_FAILURE_NEXT, **_FAILURE_NEXT_FINE} if said else _FAILURE_NEXT
        then = next((nexts[c] for c in checks if c in nexts), _TROUBLE_NEXT[kind])
        # What the engine's own lines show of it (a stall: the prefill beside it), where they show it.
        shows = str(trouble.get("shows") or "") if isinstance(trouble, dict) else ""
        shown = f": the engine's own lines show {shows}" if shows else ""
        return (f"nothing found below the engine that explains the {_TROUBLE_WORDS.get(kind, kind)} (“{quote}”)"
                f"{shown}{said}; next: {then}")
    if answer := question_answer(report):
        return answer
    if nccl:
        # NCCL's own failure (nccl-tests, a training job or an engine's ranks), below a question the user asks: the
        # engine's first error is not the next step where no engine shows, and NCCL's INFO lines before its WARN name
        # the call and the transport. The quote runs from the WARN on: the time, host, pid and thread before it would
        # crowd the failure out of a cut quote.
        below = "below the engine" if report.host.get("engines") else "on the host"
        quote = cut_at_word(line[warn_at:], 100)
        return f"nothing found {below} that explains NCCL's failure (“{quote}”); next: {NCCL_FAILURE_NEXT}"
    if report.source.get("kind") == "pasted" and not report.host.get("engines") \
            and not isinstance(report.host.get("measured"), dict):
        # A paste that shows no engine and no rate (nccl-tests' rank lines, a plugin's log, a GPU table, a container
        # that fails to start): `stackaudit ceiling --model MODEL --measured TOK/S` answers no question it shows, so
        # the verdict points to what settles the rest instead; a collective benchmark to NCCL's own transport lines.
        recognised = [str(r) for r in report.source.get("recognised") or ()]
        # A collect_env (an engine's check_env) is the environment of the engine the user runs: the ceiling fits it.
        if not any(r.startswith("collect_env") for r in recognised):
            if any(r.startswith("nccl-tests") for r in recognised):
                return NOTHING_IN_COLLECTIVE
            # NCCL's log of a job whose traffic between nodes takes TCP (corpus 1578: Google's FastSocket): the
            # network it shows is what the user's slow or stalled steps run over, and nccl-tests measures it.
            if network := str(report.host.get("nccl_network") or ""):
                return (f"no fault found in what this paste shows; {network}, so the job's traffic between nodes "
                        f"takes TCP, not RDMA; next: {NCCL_TESTS_ACROSS}")
            return NOTHING_SHOWN
    return f"{NOTHING_FOUND}: `{ceiling_command(report)}`"


# The words for a check's status where the verdict answers the user's question with it.
_ANSWERS = {"ok": "fine here", "not-an-issue": "looks wrong, is fine here", "not-applicable": "does not apply here",
            "issue": "an issue"}


def question_answer(report: Report) -> str:
    """Where the user's question names a setting a check judges (host.question, facts/question.py): the answer of
    the first of its checks the audit ran, with its message; where that check could not tell, that the source cannot
    settle it, with the step that does (report/next_steps.py). Empty without such a question."""
    question = report.host.get("question")
    checks = question.get("checks") if isinstance(question, dict) else None
    if not isinstance(question, dict) or not isinstance(checks, list) or not checks:
        return ""
    quote = cut_at_word(str(question.get("line", "")), 100)
    r = _answering(report, [str(c) for c in checks])
    if r is None:
        return ""
    if r.status in _ANSWERS:
        # Memory that runs out though no other process holds it (MEM-GPU-SHARED fine): the engine's own budget is next.
        then = f"; next: {_FAILURE_NEXT_FINE[r.id]}" if r.id in _FAILURE_NEXT_FINE and r.status != "issue" else ""
        return f"to the question asked (“{quote}”), {r.id} answers: {_ANSWERS[r.status]}, {finding_title(r)}{then}"
    from stackaudit.report.next_steps import run_next

    step = next((s for s in run_next(report.results, None, host=report.host) if s.command and r.id in s.settles),
                None)
    tail = f"; next: `{step.text}`" if step else ""
    return f"the question asked (“{quote}”) is for {r.id}, which this source cannot settle{tail}"


def _answering(report: Report, checks: Sequence[str]) -> Result | None:
    """The first of `checks` this audit ran (not waived): the others are its fallbacks where a selection left it out."""
    by_id = {r.id: r for r in report.results if not r.waived}
    return next((by_id[c] for c in checks if c in by_id), None)


# What to do next where the host does not explain NCCL's warning of a failed call (facts/trouble.FAILURE).
NCCL_FAILURE_NEXT = ("paste the whole NCCL_DEBUG=INFO log from its start to the first WARN: the lines before it name "
                     "NCCL's version, the call that failed and the transport it was setting up")

# What to do next where the host does not explain a hang or a failure the log shows.
_TROUBLE_NEXT = {"hang": "paste the engine's log with NCCL_DEBUG=INFO from its start to where it stops",
                 "failure": "read the log's first error: it is the engine's, not the host's",
                 # vLLM's docs (Optimization and Tuning, chunked prefill): a smaller max_num_batched_tokens gives
                 # better inter-token latency, as fewer prefill tokens hold up the decodes of a step.
                 "stall": "with chunked prefill, a smaller `--max-num-batched-tokens` lets fewer prompt tokens "
                          "delay each decode step"}
_TROUBLE_WORDS = {"stall": "decode stall"}  # a kind as the verdict says it, where it differs
# What to do next for a failure a check answers (facts/trouble.ANSWERED_BY), by that check: a CUDA that does not
# start is the driver's side on the host (corpus 1565: `cuda driver library init failure: 3` with a new enough
# driver); memory that runs out is what the engine asks for on each GPU against what that GPU has free.
_FAILURE_NEXT = {"DRV-CUDA-COMPAT": "check the driver below CUDA on the host: that `nvidia-smi` runs, that nvidia_uvm "
                                    "is loaded (`lsmod | grep nvidia_uvm`) and what the kernel log says "
                                    "(`sudo dmesg | grep -iE 'nvrm|uvm'`)",
                 "MEM-GPU-SHARED": "run `nvidia-smi` when it fails: whether another process holds that GPU's memory",
                 "DRV-XID": "read the kernel log at the time of the error (`sudo dmesg -T | grep -iE 'xid|nvrm'`): an Xid "
                            "names what the driver saw"}
# The same where the check judged the host fine: memory that no other process holds is the engine's own budget.
_FAILURE_NEXT_FINE = {"MEM-GPU-SHARED": "compare what the engine asks for on each GPU (its load lines: weights, KV "
                                        "cache, buffers) with that GPU's memory: its own budget runs out"}


def ceiling_command(report: Report) -> str:
    """`stackaudit ceiling --model MODEL --gpu H100 --gpus 8 --measured TOK/S`: the GPU and the measured rate the
    source shows filled in (a rate the user asks about is the question: `is 72.8 tok/s normal?`, corpus 1117)."""
    gpus = report.host.get("gpus")
    names = gpus.get("names") if isinstance(gpus, dict) else None
    count = gpus.get("count") if isinstance(gpus, dict) else None
    inferred = isinstance(gpus, dict) and bool(gpus.get("said"))  # a cut name's product is a guess: the user names it
    gpu = f" --gpu {_quote(str(names[0]))}" if isinstance(names, list) and len(names) == 1 and not inferred \
        else " --gpu GPU"
    # A count that is a lower bound (`at least 4`: one rank line on device 3, corpus 1407) is no GPU count to fill in.
    least = isinstance(gpus, dict) and bool(gpus.get("at_least"))
    many = " --gpus N" if least else f" --gpus {count}" if isinstance(count, int) and count > 1 else ""
    measured = report.host.get("measured")
    rate = measured.get("decode_tok_s") if isinstance(measured, dict) else None
    shown = f"{rate:g}" if isinstance(rate, (int, float)) and not isinstance(rate, bool) else "TOK/S"
    return f"stackaudit ceiling --model MODEL{gpu}{many} --measured {shown}"


def gap_lead(report: Report) -> tuple[str, bool]:
    """Where the measured rate's gap to the ceiling lies, when the audit could place it; the question the
    user came with, so it leads the verdict; with whether the host explains it. Empty without a measured rate,
    a ceiling or a placement."""
    measured = report.host.get("measured")
    if not isinstance(measured, dict):
        return "", False
    percent, explains = measured.get("percent_of_ceiling"), measured.get("host_explains")
    if not isinstance(percent, (int, float)) or explains is None:
        return "", False
    if explains:
        return f"the host's findings explain the gap (measured {percent:.0f} % of the ceiling)", True
    return f"the host does not explain the gap (measured {percent:.0f} % of the ceiling): it lies in the engine", False


def partial_note(report: Report) -> str:
    """`; partial: 11 timed out` when the report is not a whole read of its source; else empty."""
    reasons = report.partial()
    return f"; partial: {', '.join(reasons)}" if reasons else ""


def serving_scope(report: Report) -> str:
    """`; no NVIDIA GPU and no serving engine on this host` when the source shows neither (the findings
    are then about the host an engine would run on); empty when it shows both, or cannot tell."""
    gpus = report.host.get("gpus")
    no_gpu = isinstance(gpus, dict) and gpus.get("count") == 0
    no_engine = report.host.get("engine_processes") == []
    missing = [what for what, absent in (("NVIDIA GPU", no_gpu), ("serving engine", no_engine)) if absent]
    if not missing:
        return ""
    place = "on this host" if report.source.get("kind") == "live" else "in this source"
    return f"; no {' and no '.join(missing)} {place}"
