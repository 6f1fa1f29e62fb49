"""The needle gate of the paste reader (importers/registry.py `needles=`): it must change nothing.

Each recogniser's needles are strings one of which every output it accepts holds (case ignored); the
recognition loop (importers/recognition.py) scans the text once for all of them, skips a recogniser
whose needles are absent and hands a per-line one its candidate lines. A needle set that is not a
necessary condition would lose recognition: these tests compare the gated reader with the ungated one
(`recognition.GATED = False`) on the corpus and on random mixes of its fragments, and check every
accepted example holds a needle.
"""

from __future__ import annotations

import importlib
import random
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import load_corpus
from stackaudit import importers
from stackaudit.facts import serving_logs
from stackaudit.facts.engine_command import ENGINE_WORDS
from stackaudit.importers import _paste, recognition, registry
from stackaudit.importers._scan import Candidates, candidate_lines, next_candidate

importers.import_all()
CORPUS = load_corpus()

# Outputs of the kinds no corpus file shows (modelled on the tools' output formats).
MODELLED = {
    "cpupower-idle-info": "CPUidle driver: intel_idle\nCPUidle governor: menu\nanalyzing CPU 0:\n\n"
                          "Number of idle states: 2\nAvailable idle states: POLL C1\nPOLL:\nFlags/Description: "
                          "CPUIDLE CORE POLL IDLE\nLatency: 0\nUsage: 1\nDuration: 2\nC1:\nFlags/Description: MWAIT 0x00\n"
                          "Latency: 2\nUsage: 3\nDuration: 4\n",
    "docker inspect": '[\n  {\n    "Id": "abc",\n    "Name": "/vllm",\n    "Config": {"Env": ["A=1"]},\n'
                      '    "HostConfig": {"ShmSize": 67108864, "IpcMode": "private"}\n  }\n]\n',
    # Real, not modelled (https://github.com/ikawrakow/ik_llama.cpp/pull/370); no corpus file shows the kind.
    "ggml_cuda_init devices": "ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no\nggml_cuda_init: found 1 CUDA devices:\n"
                              "  Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes\n",
    "vllm p2p cache": '$ cat ~/.cache/vllm/gpu_p2p_access_cache_for_0,1.json\n{\n    "0->0": true,\n'
                      '    "0->1": false,\n    "1->0": false,\n    "1->1": true\n}\n',
}


@contextmanager
def ungated() -> Iterator[None]:
    recognition.GATED = False
    try:
        yield
    finally:
        recognition.GATED = True


def spans(lines: list[str]) -> tuple[list[tuple[str, int, int, bool]], list[tuple[str, int, int]]]:
    found, probes = recognition._run_importers(lines)
    return (sorted((f.kind, f.start, f.end, f.whole) for f in found),
            sorted((f.kind, f.start, f.end) for f in probes))


def view_lines(text: str) -> list[str]:
    return _paste.view(recognition.strip_header(text)).lines


def both(text: str) -> tuple[object, object]:
    gated = recognition.recognise(text, "paste.txt")
    with ungated():
        plain = recognition.recognise(text, "paste.txt")
    return tuple((r.recognised, r.set_aside, r.record.commands, r.record.files, r.record.dirs, r.record.docs,
                  r.record.provenance) for r in (gated, plain))  # type: ignore[return-value]


# --- the scan -----------------------------------------------------------------------------------


def test_needle_lines_finds_what_a_search_of_each_lowercased_line_finds() -> None:
    rng = random.Random(7)
    # ASCII needles (the registry takes no other) in lines with other characters, which UTF-8 makes longer.
    words = ["[", "GPU0", "gpu", "NCCL INFO", "x", "ÜnïGPU", "ЖЖ", "é" * 5, "] ", "-[", "NvRm: ", "|", "+", "{", "İ"]
    # Long enough for a frequent needle to switch to testing each line, with pieces of the scan to cross.
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 5))) + (" [ts]" if rng.random() < 0.7 else "")
             for _ in range(3000)]  # a `[` on most lines, as in a kernel log
    needles = ["[", "gpu", "nccl info", "nvrm: ", "|", "{", "absent", "-["]
    old = recognition._SCAN_LINES
    recognition._SCAN_LINES = 700
    try:
        found = recognition.needle_lines(lines, needles)
    finally:
        recognition._SCAN_LINES = old
    dense = 0
    for needle in needles:
        expected = [i for i, line in enumerate(lines) if needle in line.lower()]
        hits = found[needle]
        if hits is None:  # on more than half the lines: not kept
            assert len(expected) > len(lines) // 2, needle
            dense += 1
        else:
            assert list(hits) == expected, needle
    assert 0 < dense < len(needles)
    with pytest.raises(ValueError, match="ASCII"):
        registry.importer("_x", "", needles=("ünï",))


def test_candidates_jump_from_one_to_the_next_and_shift_for_a_probe() -> None:
    cands = Candidates([2, 5, 9], 12)
    assert [cands.next(i) for i in (0, 2, 3, 6, 10)] == [2, 2, 5, 9, 12]
    assert next_candidate(None)(4) == 4
    shifted = Candidates([2, 5, 9], 7, offset=5)  # a recogniser run on lines[5:]
    assert shifted.next(0) == 0 and shifted.next(1) == 4 and shifted.next(5) == 7
    assert list(candidate_lines(shifted, 7)) == [0, 4] and list(candidate_lines(None, 3)) == [0, 1, 2]


def test_a_recogniser_whose_needles_are_absent_is_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []

    def spy(lines: list[str], candidates: Candidates | None = None) -> Iterator[registry.Found]:
        calls.append(candidates)
        return iter(())

    monkeypatch.setitem(registry.IMPORTERS, "_spy", registry.ImporterSpec("_spy", "", spy, ("zebra",), True))
    recognition.recognise("uname says nothing here\n")
    assert calls == []
    recognition.recognise("one line\na ZEBRA line\nzebra again\n")
    [cands] = calls
    assert isinstance(cands, Candidates) and list(cands.indices) == [1, 2]
    calls.clear()
    with ungated():
        recognition.recognise("uname says nothing here\n")
    assert calls == [None]


# --- the gate changes nothing -------------------------------------------------------------------


# The ungated reader runs every recogniser on every line (near 20 ms a paste): every other paste of the corpus, by
# its name's checksum, near 1,200 of every kind; the random mixes below read fragments of all of them.
UNGATED_SHARE = [e for e in CORPUS if zlib.crc32(e.path.name.encode()) % 2 == 0]


@pytest.mark.parametrize("entry", UNGATED_SHARE, ids=[e.path.name[:24] for e in UNGATED_SHARE])
def test_corpus_pastes_give_the_same_spans_gated_and_not(entry) -> None:  # type: ignore[no-untyped-def]
    lines = view_lines(entry.path.read_text(encoding="utf-8"))
    gated = spans(lines)
    with ungated():
        assert spans(lines) == gated


def _fragments() -> list[list[str]]:
    out: list[list[str]] = []
    for entry in CORPUS:
        for kind in entry.kinds:
            out.append(entry.lines_of(kind))
    out.extend(text.splitlines() for text in MODELLED.values())
    return out


FRAGMENTS = _fragments()
FILLER = ["", "```", "Here is what I get:", "[...]", "> quoted line", "-- ", "$ nvidia-smi", "GPU 0 looks fine",
          "root@node:~# dmesg | grep -i nvrm"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(FRAGMENTS) - 1), st.integers(0, 400), st.integers(1, 60),
                          st.sampled_from(FILLER)), min_size=1, max_size=6))
def test_random_mixes_of_corpus_fragments_read_the_same_gated_and_not(picks: list[tuple[int, int, int, str]]) -> None:
    parts: list[str] = []
    for index, start, length, filler in picks:
        fragment = FRAGMENTS[index]
        cut = start % max(len(fragment), 1)
        parts.extend(fragment[cut:cut + length])
        parts.append(filler)
    text = "\n".join(parts) + "\n"
    gated, plain = both(text)
    assert gated == plain


# --- each needle set is a necessary condition of what its recogniser accepts ---------------------


def _examples() -> Iterator[tuple[str, list[str]]]:
    for entry in CORPUS:
        yield entry.path.name, view_lines(entry.path.read_text(encoding="utf-8"))
    for kind, text in MODELLED.items():
        yield f"modelled {kind}", view_lines(text)
    # The pastes other test modules hold as constants.
    for name in ("test_verbatim_pastes", "test_kern_importers", "test_core_importers", "test_ctr_importers",
                 "test_pasted_specs", "test_paste_tolerance", "test_measured_rate_sources",
                 "test_measured_rate_pasted_kinds"):
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, str) and value.count("\n") >= 1:
                yield f"{name}.{attr}", view_lines(value)


EXAMPLES = list(_examples())
GATED_SPECS = [s for s in registry.IMPORTERS.values() if s.needles]


@pytest.mark.parametrize("spec", GATED_SPECS, ids=[s.kind for s in GATED_SPECS])
def test_every_output_a_recogniser_accepts_holds_one_of_its_needles(spec: registry.ImporterSpec) -> None:
    accepted = 0
    for n, (name, lines) in enumerate(EXAMPLES):
        gated: set[tuple[int, int]] | None = None  # the gated run's spans, computed once per example
        # A corpus paste's spans: the gated run's, which test_corpus_pastes_give_the_same_spans_gated_and_not
        # holds equal to the ungated run's (every line) on half the corpus; the other examples' ungated.
        found_all = recognition._call(spec, lines, recognition._candidates(lines, [spec])) if n < len(CORPUS) \
            else spec.func(lines)
        for found in found_all:
            text = "\n".join(lines[found.start:found.end]).lower()
            assert any(n in text for n in spec.needles), f"{spec.kind} in {name} lines {found.start}-{found.end}"
            accepted += 1
            if spec.per_line:
                # Its trigger line holds one: the gated run, handed the candidates, finds the same span.
                if gated is None:
                    gated = {(f.start, f.end) for f in
                             recognition._call(spec, lines, recognition._candidates(lines, [spec]))}
                assert (found.start, found.end) in gated, name
    assert accepted, f"no example of {spec.kind}"


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern, their escapes dropped and lowercased."""
    depth, parts, cur = 0, [], ""
    for ch in pattern:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.replace("\\", "").lower() for p in [*parts, cur]]


def _needles(kind: str) -> tuple[str, ...]:
    return registry.IMPORTERS[kind].needles


def test_server_log_needles_cover_each_pattern_of_is_log_line() -> None:
    needles = _needles("server log")
    assert "nccl" in needles and "NCCL" in serving_logs.NCCL_LINE.pattern
    assert ".py:" in needles and r"\.py:" in serving_logs.VLLM_LINE.pattern
    # Its last required text is `] ` (a lookahead after it only refuses NCCL's own timestamped lines).
    assert "] " in needles and serving_logs.SGLANG_LINE.pattern.rsplit("(?!", 1)[0].endswith(r"\] ")
    assert "(apiserver" in needles and serving_logs.VLLM_UVICORN_LINE.pattern.startswith(r"^\(APIServer")
    for phrase in _alternatives(serving_logs.KEY_PHRASES.pattern):
        assert any(n in phrase for n in needles), phrase


def test_nvidia_smi_query_needles_cover_each_anchor() -> None:
    from stackaudit.importers import nvidia_smi

    needles = _needles("nvidia-smi -q")
    for key in (*nvidia_smi._TOP_KEYS, *nvidia_smi._Q_KEY_NAMES, "NVSMI LOG", "GPU 00000000:01:00.0"):
        assert any(n in key.lower() for n in needles), key


def test_engine_command_and_dmesg_and_collect_env_needles_cover_their_triggers() -> None:
    from stackaudit.importers import collect_env, system

    assert all(any(n in w for n in _needles("engine command")) for w in ENGINE_WORDS)
    dmesg = _needles("dmesg")
    assert all(any(n in t.lower() for n in dmesg) for t in system._PAYLOAD_TOKENS)
    for prefix in _alternatives(system._DMESG_LINE.pattern.removeprefix(r"^\s*(").removesuffix(")")):
        assert any(n in prefix for n in dmesg), prefix
    start = _needles("collect_env")
    for alt in _alternatives(collect_env._START.pattern.removeprefix(r"^\s*(").removesuffix(")")):
        # `\[(pip3?|conda)\]\s`: each of its two spellings
        for spelling in ("[pip3]", "[conda]") if alt.startswith("[(pip3?|conda)]") else (alt,):
            assert any(n in spelling for n in start), alt


def test_the_cheap_first_tests_of_ulimit_and_lsmod_let_through_every_line_their_patterns_take() -> None:
    from stackaudit.facts import limits
    from stackaudit.importers import system, ulimit

    names = limits._DASH.pattern.split("(?P<name>")[1].split(")")[0].split("|")
    assert set(names) == set(ulimit.DASH_NAMES)
    for name, lines in EXAMPLES:
        for line in lines:
            if limits.ulimit_line(line) is not None:
                assert ulimit._maybe_row(line), (name, line)
            if any(p.match(line) for p in (system._LSMOD_HEADER, system._PROC_MODULES_ROW, system._GREPPED_ROW)):
                assert system._LSMOD_MAYBE.match(line), (name, line)


def test_the_literal_gates_of_is_log_line_let_through_every_line_its_patterns_take() -> None:
    def any_pattern(line: str) -> bool:
        return any(p.search(line) for p in (serving_logs.NCCL_LINE, serving_logs.NCCL_BANNER, serving_logs.VLLM_LINE,
                                             serving_logs.SGLANG_LINE, serving_logs.KEY_PHRASES)) \
            or serving_logs.GGML_LOG_LINE.match(line) is not None or serving_logs.NCCL_OLD_WARN.match(line) is not None \
            or (serving_logs.OLLAMA_LINE.search(line) is not None and not serving_logs.OLLAMA_DISCOVERY.search(line)) \
            or (serving_logs.is_ollama_cut_line(line) and not serving_logs.OLLAMA_DISCOVERY.search(line)) \
            or serving_logs.VLLM_UVICORN_LINE.match(line) is not None or serving_logs.VLLM_CUT_LINE.match(line) is not None \
            or serving_logs.TRITON_LINE.match(line) is not None or serving_logs.TRTLLM_LINE.match(line) is not None \
            or any(rx.match(line) for rx, _, _ in serving_logs.ENGINE_CONSOLES) \
            or serving_logs.LIBFABRIC_LINE.search(line) is not None \
            or serving_logs.HAMI_CORE_LINE.search(line) is not None \
            or (serving_logs.OLLAMA_GO_LINE.search(line) is not None and not serving_logs.OLLAMA_POOLED_VRAM.search(line))

    tried = 0
    for _name, lines in EXAMPLES:
        for line in lines:
            assert serving_logs.is_log_line(line) == any_pattern(line), line
            tried += 1
    for line in ("INFO 01-02 03:04:05 [gpu_model_runner.py:1234] capturing CUDA GRAPH", "(x) NCCL WARN y",
                 "[2025-01-02 03:04:05 TP0] Load weight end.", "use ENFORCE_EAGER", "Custom allreduce IS DISABLED",
                 "load_tensors: offloaded 5/37 layers to GPU", "       eval time =   23038.87 ms /   275 tokens",
                 'time=2024-08-12T20:24:12.346-06:00 level=INFO source=memory.go:309 msg="offload to cuda"',
                 "(APIServer pid=1) INFO:     Started server process [1]", "(VllmWorker rank=0 pid=401) INFO 07-29 11:31:40",
                 'I0327 13:12:22.342290 146 grpc_server.cc:2558] "Started GRPCInferenceService at 0.0.0.0:8001"',
                 "[TensorRT-LLM][INFO] Loaded engine size: 8745 MiB", "Welcome to KoboldCpp - Version 1.82.4",
                 "7:23PM INF [llama-cpp] Attempting to load",
                 "2023-07-13T13:36:28.050508Z  INFO text_generation_launcher: Starting shard 0",
                 "2024/01/13 16:01:14 gpu.go:94: Nvidia GPU detected",
                 "`[HAMI-core ERROR (utils.c:160)]: host pid is error!`"):
        assert serving_logs.is_log_line(line) and any_pattern(line), line
    assert tried > 1000
