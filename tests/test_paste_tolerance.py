"""Pastes as people write them: fences, quotes, prompts, gap lines, CR line ends, trailing blanks.

The outputs are real (tests/data/captures, each file naming its public thread); the markup around them
is what GitHub threads wrap outputs in. Whatever the wrapping, the recognisers must record the same
text, and the provenance must name the lines of the user's file.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import CAPTURES_DIR, body, load_corpus, parse_header
from stackaudit.facts.sources import PROMPT_ENVS, PROMPT_HOSTS
from stackaudit.importers import _paste, import_all
from stackaudit.importers.recognition import ImportResult, recognise
from stackaudit.importers.registry import IMPORTERS, recognised_kinds


def _lines(prefix: str, kind: str) -> list[str]:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return parse_header(path).lines_of(kind)


# Real outputs: whole ones (numactl -H of 26, the XML of 04) and excerpts (lscpu 49, nvidia-smi 92, cmdline 28).
FRAGMENTS = {
    "numactl -H": _lines("26", "numactl -H"),
    "nvidia-smi -q -x": _lines("04", "nvidia-smi -q -x"),
    "lscpu": _lines("49", "lscpu"),
    "nvidia-smi": _lines("92", "nvidia-smi"),
    "/proc/cmdline": _lines("28", "/proc/cmdline"),
}

Wrap = Callable[[list[str]], tuple[list[str], int]]  # the wrapped lines, and how many lines come before the output


def _quote(marker: str) -> Wrap:
    return lambda ls: ([(marker + line).rstrip() if line else marker.rstrip() for line in ls], 0)


WRAPS: dict[str, Wrap] = {
    "bare": lambda ls: (ls, 0),
    "fence": lambda ls: (["Here is what it prints:", "```", *ls, "```", "Any idea?"], 2),
    "fence with a language": lambda ls: (["```console", *ls, "```"], 1),
    "tilde fence": lambda ls: (["~~~text", *ls, "~~~"], 1),
    "fence in a list item": lambda ls: (["1. the output:", "   ```"] + ["   " + x if x else x for x in ls] + ["   ```"], 2),
    "quote": _quote("> "),
    "nested quote": _quote("> > "),
    "trailing whitespace": lambda ls: ([x + "  \t " for x in ls], 0),
    "prompt line before": lambda ls: (["(venv) root@box:/# some-command --flag", *ls], 1),
}


def _record_text(result: ImportResult) -> dict[str, str]:
    rec = result.record
    out = {f"cmd:{' '.join(a)}": r.stdout for a, r in rec.commands.items()}
    out.update({f"fs:{p}": v.decode() for p, v in rec.files.items()})
    # The prompts the paste was typed at (PROMPT_HOSTS, and the environments they name: PROMPT_ENVS): the "prompt line
    # before" wrap adds one of its own.
    out.update({f"doc:{n}": t for n, t in rec.docs.items() if n not in (PROMPT_HOSTS.name, PROMPT_ENVS.name)})
    return out


@pytest.mark.parametrize("wrap_name", list(WRAPS))
@pytest.mark.parametrize("kind", list(FRAGMENTS))
def test_markup_around_an_output_changes_nothing_but_the_line_numbers(kind: str, wrap_name: str) -> None:
    fragment = FRAGMENTS[kind]
    plain = recognise("\n".join(fragment))
    wrapped_lines, before = WRAPS[wrap_name](fragment)
    wrapped = recognise("\n".join(wrapped_lines))
    assert _record_text(wrapped) == _record_text(plain)
    assert [k for k, _, _ in wrapped.recognised] == [k for k, _, _ in plain.recognised]
    assert [(a + before, b + before) for _, a, b in plain.recognised] == [(a, b) for _, a, b in wrapped.recognised]
    for key, prov in plain.record.provenance.items():
        got = wrapped.record.provenance[key]
        assert got.whole == prov.whole
        assert prov.lines is not None and got.lines == (prov.lines[0] + before, prov.lines[1] + before)


@pytest.mark.parametrize("line_end", ["\r\n", "\r\r\n", "\r"])
def test_windows_line_ends_keep_the_line_numbers(line_end: str) -> None:
    lines = ["Numa settings:", ""] + FRAGMENTS["numactl -H"] + ["", "and the XML:"] + FRAGMENTS["nvidia-smi -q -x"]
    plain = recognise("\n".join(lines))
    odd = recognise(line_end.join(lines) + line_end)
    assert odd.recognised == plain.recognised
    assert odd.record.provenance == plain.record.provenance
    assert _record_text(odd) == _record_text(plain)


@pytest.mark.parametrize("gap", ["[...]", "...", "<snip>", "[...snip...]", "--", "…", "(... 40 lines omitted ...)"])
@pytest.mark.parametrize("kind", ["numactl -H", "nvidia-smi -q -x"])
def test_a_gap_inside_a_whole_output_makes_it_an_excerpt_on_the_users_lines(kind: str, gap: str) -> None:
    fragment = FRAGMENTS[kind]
    whole = recognise("\n".join(fragment))
    assert all(p.whole for p in whole.record.provenance.values())  # the uncut output is whole
    middle = len(fragment) // 2
    cut = [*fragment[:middle], gap, *fragment[middle + 1:]]  # one line replaced by the user's gap mark
    result = recognise("\n".join(cut))
    [(got_kind, a, b)] = result.recognised
    [(_, first, last)] = whole.recognised
    assert got_kind == kind and (a, b) == (first, last)  # the gap line is inside the span, on the same lines
    [prov] = result.record.provenance.values()
    assert not prov.whole and prov.lines == (first, last)


def test_a_gap_between_two_outputs_cuts_neither() -> None:
    text = "\n".join(FRAGMENTS["/proc/cmdline"] + ["[...]"] + FRAGMENTS["numactl -H"])
    result = recognise(text)
    assert [k for k, _, _ in result.recognised] == ["/proc/cmdline", "numactl -H"]
    assert all(p.whole for p in result.record.provenance.values())
    # its first line (4) follows the command line `numactl --hardware` (3) the user pasted with it
    assert result.record.provenance["cmd:numactl -H"].lines == (4, 2 + len(FRAGMENTS["numactl -H"]))


def test_a_gap_between_kernel_log_lines_joins_them_as_an_excerpt() -> None:
    # Real lines (40: an open-module 570 host whose GPU fell off the bus), with the user's cut between them.
    dmesg = _lines("40", "dmesg")
    result = recognise("\n".join([*dmesg[:2], "[...]", *dmesg[2:]]))
    assert not result.record.provenance["cmd:dmesg"].whole
    assert result.record.commands[("dmesg",)].stdout.count("\n") == len(dmesg)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("user@host:~$ nvidia-smi", "nvidia-smi"),
        ("(venv) root@box:/# cat /proc/cmdline", "cat /proc/cmdline"),
        ("[root@node1 ~]# lspci -vvv", "lspci -vvv"),
        ("$ lscpu", "lscpu"),
        ("# dmesg -T", "dmesg -T"),
        ("root@<redacted>:/home/<redacted># cat /var/log/kern.log |grep NVRM", "cat /var/log/kern.log |grep NVRM"),
        ("# this is a comment", None),  # a comment, not a root prompt
        ("# lxc.cgroup2.devices.allow: c 195:* rwm", None),
        ("foo@example.com wrote:", None),
        # bash's and sh's default prompt (`\s-\v\$ `), real lines: bottlerocket-os/bottlerocket#4087 (corpus 1586),
        # awslabs/amazon-eks-ami#1985 (688), a login shell's `-bash` in AbdBarho/stable-diffusion-webui-docker#474
        # (1509), the prompt alone in NVIDIA/gpu-operator#1947 (1148). Modelled counter-examples: a tarball's name, prose.
        ("bash-5.1# lsmod | grep nvidia", "lsmod | grep nvidia"),
        ("sh-4.2$ nvidia-smi -q -d CLOCK", "nvidia-smi -q -d CLOCK"),
        ("-bash-4.2$ nvidia-smi", "nvidia-smi"),
        ("sh-5.1# ", ""),
        ("bash-5.1.tar.gz", None),
        ("sh-4.2 is old", None),
        ("bash-5.1#include", None),
    ],
)
def test_prompts_are_peeled_and_comments_are_not(line: str, command: str | None) -> None:
    assert _paste.strip_prompt_line(line) == command


def test_bash_default_prompt_names_no_host_and_ends_the_grep_above() -> None:
    # Real: `bash-5.1# lsmod | grep nvidia` with its output (bottlerocket-os/bottlerocket#4087, corpus 1586), then the
    # whole `uname -a` line of aikitoria/open-gpu-kernel-modules#18 (corpus 180) under the same prompt: the prompt ends
    # the grep's excerpt, so the uname line is whole.
    grep = body("1586").splitlines()[21:29]
    assert grep[0] == "bash-5.1# lsmod | grep nvidia"
    shown = _paste.view("\n".join(grep))
    assert shown.lines[0] == "lsmod | grep nvidia" and shown.prompt_hosts == {0: ""}
    text = "\n".join([*grep, "bash-5.1# uname -a", *_lines("180", "uname -a")])
    provenance = recognise(text).record.provenance
    assert not provenance["cmd:lsmod"].whole and provenance["cmd:uname -a"].whole
    # Modelled counter-example: a line naming bash's tarball is no prompt, the grep's excerpt goes on under it.
    text = "\n".join([*grep, "bash-5.1.tar.gz", *_lines("180", "uname -a")])
    assert not recognise(text).record.provenance["cmd:uname -a"].whole


def test_a_prompt_glued_cmdline_paste_is_recognised_on_its_line() -> None:
    text = "(venv) root@box:/# cat /proc/cmdline\n" + FRAGMENTS["/proc/cmdline"][0] + "\nroot@box:/# \n"
    result = recognise(text)
    assert result.recognised == [("/proc/cmdline", 2, 2)]


def test_a_command_on_a_fence_opening_line_after_a_space_is_read() -> None:
    # Real: LostRuins/koboldcpp#1223 (corpus 2132), the command after "``` " on the fence's own line.
    text = ("``` ./koboldcpp-linux-x64-cuda1210 --model ~/models/x.gguf --contextsize 8192  --threads 16 --gpulayers 99 "
            "--tensor_split 1 0  --port 12000 --flashattention \n***\nWelcome to KoboldCpp - Version 1.78\n```\n")
    assert ("engine command", 1, 1) in recognise(text).recognised
    # Modelled counter-examples: a language tag after a space, or an attribute block, is no content.
    for opening in ("``` bash", "```{.bash}", "``` {.bash .numberLines}"):
        assert ("engine command", 2, 2) in recognise(opening + "\nllama-server -m x.gguf -ngl 99\n```\n").recognised


def test_unrecognisable_text_is_one_line_listing_the_registered_kinds(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "notes.txt"
    path.write_text("I restarted the server and it still hangs.\nAny idea?\n")
    run = cli("audit", "--from", str(path))
    assert run.rc == 2
    assert run.err.strip().count("\n") == 0 and "Traceback" not in run.err
    assert "nothing recognisable" in run.err
    import_all()
    kinds = [k for k in IMPORTERS if not k.startswith("_")]
    assert kinds == recognised_kinds() and len(kinds) >= 20
    listed = run.err.split("recognised kinds: ", 1)[1].strip()
    assert listed.split(", ") == kinds


# --- fuzzing every recogniser ------------------------------------------------------------------------

_CORPUS_LINES = sorted({line for e in load_corpus() for line in e.body_lines})
_MARKUP = ["```", "```console", "~~~", "> ", "> > ", "[...]", "...", "--", "<snip>", "$ ", "# ", "root@h:~# ", "\r", ""]
_LINE = st.one_of(st.sampled_from(_CORPUS_LINES), st.sampled_from(_MARKUP), st.text(max_size=30))
_TEXT = st.one_of(
    st.lists(_LINE, max_size=120).map("\n".join),
    st.lists(st.tuples(st.sampled_from(_MARKUP), st.sampled_from(_CORPUS_LINES)).map("".join), max_size=80)
    .map("\r\n".join),
    st.text(max_size=300),
)
import_all()
SPECS = sorted(IMPORTERS.values(), key=lambda s: s.kind)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kind)
@settings(max_examples=60, deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT)
def test_every_recogniser_stays_inside_the_text(spec, text: str) -> None:  # type: ignore[no-untyped-def]
    lines = _paste.view(text).lines
    for found in spec.func(lines):
        assert 0 <= found.start < found.end <= len(lines), (spec.kind, found.start, found.end, len(lines))


@settings(max_examples=150, deadline=timedelta(seconds=5), suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT)
def test_recognise_gives_spans_of_the_users_file(text: str) -> None:
    total = len(_paste.split_lines(text))
    result = recognise(text, "fuzz.txt")
    for _, a, b in result.recognised:
        assert 1 <= a <= b <= total
    for prov in result.record.provenance.values():
        assert prov.lines is None or 1 <= prov.lines[0] <= prov.lines[1] <= total


def test_a_long_paste_read_on_two_cores_gives_what_one_core_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    from stackaudit.importers import recognition

    # Real outputs of every third corpus file in one text (every era's shapes, a bounded time as the corpus grows);
    # the fork threshold lowered so that it is forked.
    text = "\n\n".join(e.body for e in load_corpus()[::3])
    serial = recognise(text, "all.txt")
    monkeypatch.setattr(recognition, "PARALLEL_MIN_LINES", 1)
    forked = recognise(text, "all.txt")
    assert forked.recognised == serial.recognised
    assert forked.record.provenance == serial.record.provenance
    assert _record_text(forked) == _record_text(serial)
