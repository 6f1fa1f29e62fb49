"""Two line shapes the readers missed: llama.cpp's build banner (facts/serving_logs.GGML_BUILD_INFO, GGML_VERSION: its
release once, ServingLog.llamacpp_release, and llama.cpp shown in facts/engines_shown.py), and Ray's log line behind a
log collector's bracketed time (facts/ray_log.RAY_LINE: Ray's /dev/shm warning reaches the shm fact).

Real text: corpus 1399 (ggml-org/llama.cpp#17163), 1301, 1281, 736, 1158 and 903 (vllm-project/vllm PR thread);
counter-examples are modelled where marked.
"""

from __future__ import annotations

import pytest

from corpus import audit_capture, body, capture_checks, corpus_path, fact, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts.ray_log import is_ray_line
from stackaudit.facts.serving_logs import is_log_line, parse_serving_log


@pytest.mark.parametrize(("prefix", "release"), [
    ("1399", "7018"),  # `version: 7018 (ece0f5c17)` over `built with gcc-15 (...) for x86_64-pc-linux-gnu`
    ("1281", "4819"),  # `version: b4819`, a build outside git
    ("736", "9568"),  # `version: b9568 (unknown)` over `built with GNU 14.2.0 for Linux x86_64`
    ("1158", "992"),  # the old `main: build = 992 (0919a0f)`
])
def test_the_banner_gives_llamacpp_release(prefix: str, release: str) -> None:
    log = fact(pasted(body(prefix)), "serving_log")
    assert log.llamacpp_release == release, log


def test_the_one_line_build_form_and_a_bare_version_line() -> None:
    # Modelled on llama-server's start (common.cpp: `build: %d (%s) with %s for %s`) with its timestamped prefix.
    log = parse_serving_log("0.00.012.345 I build: 4273 (abc1234) with cc (Ubuntu 11.4.0) 11.4.0 for x86_64-linux-gnu\n"
                            "0.00.082.906 I system_info: n_threads = 8 | CUDA : ARCHS = 750,800,860 |\n")
    assert (log.llamacpp_release, log.engine) == ("4273", "llamacpp")
    # Modelled: a `version:` line without llama.cpp's `built with` line under it is no banner, nor a log line.
    assert not is_log_line("version: 7018 (ece0f5c17)")
    assert isinstance(fact(pasted("version: 7018 (ece0f5c17)\nbuilt for the demo\n"), "serving_log"), Missing)


def test_a_banner_alone_shows_llamacpp_but_no_run() -> None:
    log = fact(pasted(body("1399")), "serving_log")
    assert log.engine == ""  # the build, not a run: checks reading the log's engine as a run stay as they were
    assert "llamacpp" in fact(pasted(body("1399")), "engines_shown").shown
    result = capture_checks("1399", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "not-applicable", result.message
    assert "llama.cpp" in result.message


def test_a_version_banner_beside_geforce_cards_is_no_host_memory_path() -> None:
    # Corpus 1301: `llama-server --version` printed the device list and the banner; no run copied between the cards.
    result = capture_checks("1301", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "not-applicable", result.message


RAY_903 = ("[2023-10-30 14:14:12] 2023-10-30 06:14:12,055\tWARNING services.py:1832 -- WARNING: The object store is "
           "using /tmp instead of /dev/shm because /dev/shm has only 67043328 bytes available. This will harm "
           "performance!")


def test_ray_behind_a_collectors_time_is_rays() -> None:
    assert is_ray_line(RAY_903)
    # SGLang's own `[DATE TIME] message` stays the server log's (modelled on its scheduler line).
    sglang = "[2024-11-05 10:12:13] Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=60.12 GB"
    assert not is_ray_line(sglang)
    # Modelled: a collector's time alone before Ray's level, without Ray's own date, is not taken.
    assert not is_ray_line("[2023-10-30 14:14:12] WARNING services.py:1832 -- WARNING: ...")
    shm = fact(pasted(body("903")), "shm")
    assert shm.available_bytes == 67043328
    result = capture_checks("903", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "issue", result.message


def test_rays_unhandled_error_report_is_a_ray_line() -> None:
    # Corpus 2362 (verl-project/verl#302): the report under the driver's worker prefix, a Markdown fence glued before
    # it; the paste holds nothing else the tool reads, and was refused whole before.
    first = body("2362").splitlines()[2]
    assert first.startswith("```(main_task pid=1748945) Unhandled error") and is_ray_line(first)
    assert audit_capture(corpus_path("2362")) is not None
    # The same report through Ray's logger, as vLLM's CI printed it (corpus 241, line 14 without the pytest prefix).
    assert is_ray_line("2024-05-13 08:48:35,962\tERROR worker.py:406 -- Unhandled error (suppress with "
                       "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::eager_allreduce() (pid=3040, ip=10.68.0.191)")
    # Counter-examples: the variable a docker run sets (corpus 301), and the words inside a sentence (modelled).
    assert not is_ray_line("  -e RAY_IGNORE_UNHANDLED_ERRORS=1 \\")
    assert not is_ray_line("I set RAY_IGNORE_UNHANDLED_ERRORS=1 but still see Unhandled error (suppress with "
                           "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::f()")


def test_skypilots_log_lines_are_read_with_rays() -> None:
    # Corpus 2387 (skypilot-org/skypilot#3436): its Ray backend's lines and its job log's, around the job's output.
    lines = body("2387").splitlines()
    assert is_ray_line(lines[6]) and lines[6].startswith("I 04-10 18:36:19 cloud_vm_ray_backend.py:3160]")
    assert is_ray_line(lines[9]) and "log_lib.py:407] Start streaming logs" in lines[9]
    # The line the paste cuts after its time names no file: not read.
    assert not is_ray_line(lines[23])
    # Modelled counter-examples: vLLM's spelled-out level, glog's C++ form, a sentence.
    assert not is_ray_line("INFO 04-10 18:36:19 llm_engine.py:3160] Initializing an LLM engine")
    assert not is_ray_line("I0410 18:36:19.123456  3134 store_runner.cc:83] ok")
    assert not is_ray_line("I think 04-10 18:36:19 run.py:12] broke")
