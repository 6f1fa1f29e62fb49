"""RT-KERNEL-ARCH from a llama-bench table run on ggml's CUDA backend, where no command line is shown: its columns
give the run's settings, and no KERNEL_RULES row is llama.cpp's, so it stands for a complete llama.cpp command
(checks/rt._ggml_run_lines): ok over GPUs of compute capability 7.5 to 9.0, unknown outside them. Its tg rows read
`tg 128` in the releases of early 2024 as well as `tg128` (facts/serving_rate._LLAMA_BENCH_TG).
"""

from __future__ import annotations

from pathlib import Path

from corpus import paste_checks
from stackaudit.facts.serving_rate import parse_bench_rate

_HEAD = """\
| model                          |       size |     params | backend    | ngl | test       |              t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ---------- | ---------------: |
"""
# Real: https://github.com/ggml-org/llama.cpp/pull/4766 (comment by ggerganov, 2024-01-10), two of its rows.
PR_4766 = """\
ggml_init_cublas: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
""" + _HEAD + """\
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | pp 512     | 11048.22 ± 269.74 |
| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | tg 128     |     61.03 ± 0.07 |
"""
# Real: https://github.com/ggml-org/llama.cpp/pull/4560 (comment by FantasyGmm, 2023-12-21), two of its rows: a
# Tegra X2, compute capability 6.2, outside what every toolkit builds for.
PR_4560 = """\
ggml_init_cublas: found 1 CUDA devices:
  Device 0: NVIDIA Tegra X2, compute capability 6.2
""" + _HEAD + """\
| llama 7B Q4_K - Medium         |   4.43 GiB |     7.72 B | CUDA       |  10 | pp 512     |      2.97 ± 0.05 |
| llama 7B Q4_K - Medium         |   4.43 GiB |     7.72 B | CUDA       |  10 | tg 128     |      0.65 ± 0.00 |
"""
# Real: https://github.com/ggml-org/llama.cpp/pull/4812 (the description by slaren, corpus 2038), its first rows.
PR_4812_ROW = "| llama 7B Q4_0                  |   3.56 GiB |     6.74 B | CUDA       |  99 |             0 | tg 128 " \
              "    |    127.43 ± 0.18 |"


def test_a_spaced_tg_row_is_the_decode_rate() -> None:
    rate = parse_bench_rate(PR_4812_ROW + "\n")
    assert rate.tokens_per_s == 127.43 and rate.on_cuda


def test_a_cuda_run_on_a_gpu_every_toolkit_builds_for_is_ok(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, PR_4766, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert got.status == "ok", got.message
    assert "RTX 4090 (compute capability 8.9)" in got.message


def test_a_gpu_outside_every_toolkit_stays_unknown(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, PR_4560, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert got.status == "unknown", got.message


def test_another_backend_is_no_cuda_run(tmp_path: Path) -> None:
    # Modelled: the same table run on Metal beside a CUDA device line: the rows ran no CUDA kernel.
    metal = PR_4766.replace("CUDA       |", "Metal      |")
    assert not parse_bench_rate(metal).on_cuda
    got = paste_checks(tmp_path, metal, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert got.status != "ok", got.message
