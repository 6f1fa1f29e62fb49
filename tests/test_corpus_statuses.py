"""The corpus (tests/data/captures): every real paste's expected statuses, written from its public
thread before the tool ran, hold — except the gaps listed in tests/data/corpus_gaps.toml, each with
the reason and the issue that closes it.

A gap that starts matching fails this test too: remove it from the list, so that the list only
shrinks and a fixed behaviour cannot silently break again.
"""

from __future__ import annotations

import re

import pytest

from corpus import GAPS_FILE, CorpusEntry, corpus_gaps, load_corpus, report_spans
from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report

GAPS: dict[str, dict[str, str]] = corpus_gaps("gap")
# Labelled ranges not recognised as their kind yet: file -> "KIND A-B" -> why.
KIND_GAPS: dict[str, dict[str, str]] = corpus_gaps("kind_gap")
NOT_RECOGNISED = "not-recognised"
ENTRIES = load_corpus()


def _results(entry: CorpusEntry, report: Report | None) -> dict[str, Result | None]:
    """The expected checks' results in the file's audit (`audit --from FILE`); None each where it is refused."""
    by_id = {r.id: r for r in report.results} if report is not None else {}
    return {cid: by_id[cid] if report is not None else None for cid in entry.expect}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_expected_statuses_hold(entry: CorpusEntry, corpus_reports: dict[str, Report | None]) -> None:
    # The file's audit, shared with the other tests that read every report (conftest.py).
    results = _results(entry, corpus_reports[entry.path.name])
    got = {cid: r.status if r is not None else NOT_RECOGNISED for cid, r in results.items()}
    gaps = GAPS.get(entry.path.name, {})
    wrong = {cid: (want, got[cid]) for cid, (want, _) in entry.expect.items() if got[cid] != want and cid not in gaps}
    assert not wrong, f"{entry.path.name}: expected vs got {wrong}"
    # A verdict from an excerpt states its coverage: the result's must be the one the expectation names.
    covers = {cid: _coverage(results[cid]) for cid in entry.expect}
    fixed = [cid for cid, (want, _) in entry.expect.items()
             if cid in gaps and got[cid] == want and _same_coverage(entry.coverage(cid), covers[cid])]
    assert not fixed, f"{entry.path.name}: {fixed} now match their expectation: remove them from {GAPS_FILE.name}"
    for cid in entry.expect:
        stated = entry.coverage(cid)
        if cid not in gaps and results[cid] is not None:
            shown = covers[cid] or "no coverage"
            assert _same_coverage(stated, covers[cid]), f"{entry.path.name}: {cid} covers {shown!r}, the expectation says {stated!r}"


def _coverage(result: Result | None) -> str:
    """The coverage a result states (`1 of 8 GPUs shown`), or "" when it states none."""
    return result.coverage.text() if result is not None and result.coverage is not None else ""


_EVERY = re.compile(r"^(\d+) of \1 ")


def _same_coverage(stated: str, shown: str) -> bool:
    """Whether a result's coverage is the one an expectation states. `K of K GPUs shown` and `K GPUs shown` say
    the same K GPUs; a verdict without coverage covers the host, as a stated `K of K` does."""
    if not stated:
        return True
    if not shown:
        return bool(_EVERY.match(stated))
    return _EVERY.sub(r"\1 ", stated).replace(" GPU ", " GPUs ") == _EVERY.sub(r"\1 ", shown).replace(" GPU ", " GPUs ")


# Which fact each hand-labelled kind of the corpus shows (tests/corpus.py lists the kinds).
KIND_FEEDS = {"lscpu": {"cpu"}, "numactl -H": {"numa"}, "uname -a": {"kernel"}, "/proc/cmdline": {"cmdline"},
              "dmesg": {"kernel_log"}, "journal": {"kernel_log"}, "lsmod": {"modules"}, "sysctl": {"sysctls"},
              "nvidia-smi": {"nvidia"}, "nvidia-smi -q": {"nvidia"}, "nvidia-smi -q -x": {"nvidia"},
              "topo -m": {"gpu_topology"}, "topo -p2p": {"gpu_p2p"}, "nvlink -s": {"nvlink_status"},
              "nvidia-smi -L": {"gpus"}, "nccl-log": {"serving_log"}, "vllm-log": {"serving_log"}, "sglang-log": {"serving_log"},
              "collect_env": {"collect_env"}, "check_env": {"collect_env"}, "lspci": {"pcie"},
              "docker inspect": {"docker_containers"}, "ulimit": {"self_limits"}, "df": {"shm"},
              "cpupower": {"cpufreq"}, "lxc config": {"lxc_configs"}, "engine command": {"engine_commands"},
              "empty grep": {"empty_greps"}}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_no_fact_is_not_in_the_source_when_its_lines_are(entry: CorpusEntry,
                                                         corpus_reports: dict[str, Report | None]) -> None:
    """The property of the corpus: a check never says "not in the source" of a fact the paste shows, and no
    check ends in an error on a real paste."""
    # The file's audit (`audit --from FILE`), shared with the other tests that read every report (conftest.py).
    report = corpus_reports[entry.path.name]
    if report is None:
        pytest.skip("not recognised yet (a gap of tests/data/corpus_gaps.toml)")
    assert [(r.id, r.message) for r in report.results if r.status == "error"] == []
    known = KIND_GAPS.get(entry.path.name, {})
    read = [kind for kind, ranges in entry.kinds.items() if any(f"{kind} {a}-{b}" not in known for a, b in ranges)]
    shown = set().union(*(KIND_FEEDS.get(kind, set()) for kind in read))
    wrong = [(r.id, fact) for r in report.results if r.status == "unknown" and "not in the source" in r.message
             for fact in r.facts_missing if fact in shown]
    assert not wrong, f"{entry.path.name}: {wrong}"


# The importer kinds that recognise each hand-labelled corpus kind (a topology inside a collect_env report
# is that report's; several kinds of log are one engine/NCCL log).
KIND_RECOGNISED_AS = {
    "lscpu": {"lscpu", "collect_env"}, "collect_env": {"collect_env"}, "check_env": {"collect_env"},
    "sysctl": {"sysctl"}, "dmesg": {"dmesg"}, "journal": {"dmesg"}, "nvidia-smi": {"nvidia-smi"},
    "nvidia-smi -q": {"nvidia-smi -q"}, "nvidia-smi -q -x": {"nvidia-smi -q -x"},
    "topo -m": {"nvidia-smi topo -m", "collect_env"}, "topo -p2p": {"nvidia-smi topo -p2p"},
    "nvlink -s": {"nvidia-smi nvlink -s"}, "nvidia-smi -L": {"nvidia-smi -L"}, "empty grep": {"empty grep"}, "lspci": {"lspci"}, "lspci -tv": {"lspci -tv"},
    # `lsmod | grep X` with nothing under it is lsmod's output filtered to nothing: read as an empty grep.
    "lsmod": {"lsmod", "empty grep"},
    "nccl-log": {"server log"}, "vllm-log": {"server log"}, "sglang-log": {"server log"},
    "nccl-tests": {"nccl-tests"}, "docker inspect": {"docker inspect", "docker inspect excerpt"},
    "docker run": {"docker run"}, "compose": {"compose"}, "k8s pod": {"k8s pod", "k8s pod listing", "k8s node"},
    "k8s node": {"k8s node"}, "lxc config": {"lxc config"},
    "df": {"df"}, "ulimit": {"ulimit -a"}, "/proc/cmdline": {"/proc/cmdline"}, "numactl -H": {"numactl -H"},
    "uname -a": {"uname -a"}, "cpupower": {"cpupower-frequency-info", "cpupower-idle-info"},
    # A benchmark's command line (all_reduce_perf, 382) is read with the nccl-tests run it starts, as 351 labels it;
    # an engine's command inside `docker run`/`podman run` (1524) is that run's, where the engine is read too.
    "engine command": {"engine command", "nccl-tests", "docker run"},
    # vLLM's lines a Ray worker prints under its `(RayWorkerWrapper pid=…)` prefix (1529) are vLLM's log.
    "ray-log": {"ray log", "ray status", "server log"},
}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_every_hand_listed_kind_and_range_is_recognised(entry: CorpusEntry,
                                                        corpus_reports: dict[str, Report | None]) -> None:
    """Each range a header lists is (at least partly) recognised as its kind, not as something else."""
    # The spans `audit --from FILE` read, from the file's shared audit (conftest.py): the paste is read once a run.
    report = corpus_reports[entry.path.name]
    if report is None:
        pytest.skip("not recognised yet (a gap of tests/data/corpus_gaps.toml)")
    spans = report_spans(report)
    missed = []
    for kind, ranges in entry.kinds.items():
        wanted = KIND_RECOGNISED_AS.get(kind)
        if wanted is None:
            continue  # an archive kind (nvidia-bug-report): recognised inside its archive, not as a span
        for a, b in ranges:
            if not any(k in wanted and s <= b and a <= e for k, s, e in spans):
                missed.append(f"{kind} {a}-{b}")
    known = KIND_GAPS.get(entry.path.name, {})
    assert not [m for m in missed if m not in known], f"{entry.path.name}: not recognised as labelled: {missed} (recognised: {spans})"
    fixed = [m for m in known if m not in missed]
    assert not fixed, f"{entry.path.name}: {fixed} now recognised: remove them from [kind_gap] in {GAPS_FILE.name}"
