"""The corpus under tests/data/captures/: every header parses and says only what the format allows.

What the audit makes of each file is the corpus test's business; this one holds the labels to
the format: known kinds, ranges inside the body, registered check IDs, valid statuses, `ok` only
next to a whole source, one file per thread, enough threads and enough files per kind.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from corpus import (
    CAPTURES_DIR,
    EXPECT_STATUSES,
    HOST_WIDE,
    KINDS,
    CorpusEntry,
    corpus_files,
    load_corpus,
    parse_header,
    second_readings,
)
from stackaudit.checks.registry import load_all

FILES = corpus_files()
# A line that is only a markdown fence (``` or ```lang) is chatter around a paste, never part of an output.
BARE_FENCE = re.compile(r"^\s*(```|''')[\w-]*\s*$")
MIN_THREADS = 40
MIN_FILES_PER_KIND = 3  # issue 27: at least 3 real samples of every kind
# Kinds of the list that no public thread found so far shows well enough; each says why.
FEWER_THAN_MIN: dict[str, str] = {}


@pytest.fixture(scope="module")
def corpus() -> list[CorpusEntry]:
    return load_corpus()


def test_the_corpus_is_in_the_repository() -> None:
    assert CAPTURES_DIR.is_dir()
    assert len(FILES) >= MIN_THREADS


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_header_parses_and_ranges_lie_inside_the_body(path: Path) -> None:
    entry = parse_header(path)
    assert entry.body_lines, f"{path.name}: empty body"
    for kind, spans in entry.kinds.items():
        assert kind in KINDS
        for a, b in spans:
            assert b <= len(entry.body_lines), f"{path.name}: {kind} {a}-{b} ends past line {len(entry.body_lines)}"
            # A hand-counted range that starts or ends on a blank line is almost always off by one.
            assert entry.body_lines[a - 1].strip(), f"{path.name}: {kind} range {a}-{b} starts on a blank line"
            assert entry.body_lines[b - 1].strip(), f"{path.name}: {kind} range {a}-{b} ends on a blank line"
            for edge in (a, b):
                line = entry.body_lines[edge - 1]
                assert not BARE_FENCE.match(line), f"{path.name}: {kind} range {a}-{b} has a markdown fence at {edge}"


def test_file_names_are_numbered_lower_case_and_unique() -> None:
    numbers = [p.name.split("-", 1)[0] for p in FILES]
    for p in FILES:
        assert p.name == p.name.lower(), p.name
        assert re.match(r"^\d{2,4}-", p.name), p.name
    assert len(set(numbers)) == len(numbers), Counter(numbers).most_common(3)


def test_expected_ids_are_registered_checks_with_valid_statuses(corpus: list[CorpusEntry]) -> None:
    registered = set(load_all())
    for entry in corpus:
        assert 2 <= len(entry.expect) <= 6, f"{entry.name}: {len(entry.expect)} expectations (2-6 wanted)"
        for check_id, (status, reason) in entry.expect.items():
            assert check_id in registered, f"{entry.name}: {check_id} is not a registered check"
            assert status in EXPECT_STATUSES, f"{entry.name}: {check_id} {status}"
            assert reason, f"{entry.name}: {check_id} has no reason"


# Oks over subjects whose reason states no coverage, resting on a part of an excerpt that lists every subject
# (a report's line naming every GPU, a matrix's rows). They stay as written (blind first).
OK_FROM_A_COMPLETE_PART = {
    "485-sglang052-check-env-4x-gb200-nv18-driver570-cu129.txt": "the matrix's four GPU rows (its other oks say 4 of 4)",
    "499-8x-h200-sglang-check-env-550-cu124-nv18-cut.txt": "check_env's GPU line names every GPU",
    "817-8x-b200-sglang-check-env-580-cu129-nv18.txt": "check_env's GPU line names every GPU",
    "820-8x-h800-sglang-check-env-535-cu128-nvcc-12-4.txt": "check_env's GPU line names every GPU",
    "821-2x8-h100-masked-name-sglang-check-env-535-cu124.txt": "check_env's GPU line names every GPU",
}


def test_ok_only_where_a_whole_source_is_in_the_file_or_its_coverage_is_stated(corpus: list[CorpusEntry]) -> None:
    """An ok from an excerpt is the coverage rule's (issue 28): its reason states which subjects it covers."""
    assert set(load_all()) >= HOST_WIDE
    needed = set()
    for entry in corpus:
        oks = [cid for cid, (status, _) in entry.expect.items()
               if status == "ok" and not entry.coverage(cid) and cid not in HOST_WIDE]
        if oks and not entry.whole:
            needed.add(entry.name)
            assert entry.name in OK_FROM_A_COMPLETE_PART, (
                f"{entry.name}: {', '.join(oks)} expected ok but no kind is listed as whole and the reason states "
                "no coverage ('1 of 8 GPUs shown')")
    assert set(OK_FROM_A_COMPLETE_PART) <= needed, "OK_FROM_A_COMPLETE_PART lists files that no longer need it"


def test_one_file_per_thread_and_enough_threads(corpus: list[CorpusEntry]) -> None:
    threads = Counter(e.thread for e in corpus)
    repeated = [t for t, n in threads.items() if n > 1]
    assert not repeated, f"threads used by more than one file: {repeated}"
    discussion_threads = [t for t in threads if "/blob/" not in t]
    assert len(discussion_threads) >= MIN_THREADS


def test_every_kind_has_three_files_or_a_stated_reason(corpus: list[CorpusEntry]) -> None:
    files_per_kind = Counter(kind for e in corpus for kind in e.kinds)
    short = {k for k in KINDS if files_per_kind[k] < MIN_FILES_PER_KIND}
    assert short == set(FEWER_THAN_MIN), (
        f"kinds with fewer than {MIN_FILES_PER_KIND} files: {sorted(short)}, stated: {sorted(FEWER_THAN_MIN)}"
    )


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda t: t.replace("# kinds: ", "# kind: ", 1), "unknown field 'kind'"),
        (lambda t: t.replace("# whole: ", "# wholes: ", 1), "unknown field"),
        (lambda t: t.replace("# ----- end of header", "# ---- end of header", 1), "no end-of-header line"),
        (lambda t: t.replace("nvidia-smi -q -x 1-347", "nvidia-smi -q -x 1-347,2-3", 1), "ascending and disjoint"),
        (lambda t: t.replace("nvidia-smi -q -x 1-347", "nvidia-smi -qx 1-347", 1), "unknown kind"),
        (lambda t: t.replace("DRV-PERSISTENCE ok —", "DRV-PERSISTENCE fine —", 1), "status 'fine'"),
        (lambda t: t.replace("DRV-PERSISTENCE ok —", "DRV-PERSISTENCE ok -", 1), "is not 'CHECK-ID STATUS — reason'"),
        (lambda t: t.replace("DRV-PERSISTENCE ok — ", "DRV-PERSISTENCE ok — as [thread] says, ", 1), "may only start"),
    ],
)
def test_a_malformed_header_raises_naming_the_file(tmp_path: Path, mangle, message: str) -> None:  # type: ignore[no-untyped-def]
    good = CAPTURES_DIR / "04-rtx-pro-6000-blackwell-maxq-gen4-host-nvsmi-xml.txt"
    bad = tmp_path / "99-mangled.txt"
    bad.write_text(mangle(good.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ValueError, match=r"99-mangled\.txt") as caught:
        parse_header(bad)
    assert message in str(caught.value)


def test_body_is_everything_after_the_end_of_header_line() -> None:
    path = CAPTURES_DIR / "26-dual-epyc-9135-rtx4090-numactl-hardware.txt"
    entry = parse_header(path)
    assert entry.body_lines[0] == "Numa settings:"
    assert entry.lines_of("numactl -H")[0] == "numactl --hardware --cpu-compress"
    assert path.read_text(encoding="utf-8").endswith(entry.body)


def test_second_readings_name_first_readings_of_corpus_files(corpus: list[CorpusEntry]) -> None:
    """Each second reading (tests/data/second_readings.toml) is of a check the file's first reader judged from the
    capture (not a [thread] one), with a status an expectation may name and a reason."""
    by_name = {entry.name: entry for entry in corpus}
    second = second_readings()
    assert second, "no second reading"
    for name, checks in second.items():
        assert name in by_name, f"{name}: not a corpus file"
        entry = by_name[name]
        for cid, (status, reason) in checks.items():
            assert cid in entry.expect and not entry.from_thread(cid), f"{name}: {cid} is no first reading from the capture"
            assert status in EXPECT_STATUSES and reason, f"{name}: {cid} = {status!r}"
