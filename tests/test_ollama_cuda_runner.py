"""Issue 28 (a verdict where the text suffices): what ollama's GPU discovery says of the CUDA versions.

ollama's `inference compute` line carries the CUDA the driver supports (`driver=12.3`, the driver API's answer)
and, since 0.5, the CUDA runner it chose for the GPU (`variant=v12`); older releases list the runners they ship
(`Dynamic LLM libraries [cuda_v11 ...]`). DRV-CUDA-COMPAT judges the runner's CUDA major against the driver's: the
same major is ok (minor-version compatibility), an older one ok too (a newer driver runs it), a newer one
the issue. The verdict covers the GPUs discovered (`device count N` of its CUDA probe gives the host's count).

Real lines are quoted from the thread named beside each; the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

# https://github.com/ollama/ollama/pull/10569 (dhiltgen: the oldest driver ollama supports, 531.79 / CUDA 12.1).
OLLAMA_10569 = (
    'time=2025-05-05T16:11:49.763-07:00 level=INFO source=types.go:130 msg="inference compute" '
    'id=GPU-d6de3398-9932-6902-11ec-fee8e424c8a2 library=cuda variant=v12 compute=7.5 driver=12.1 '
    'name="NVIDIA GeForce RTX 2080 Ti" total="11.0 GiB" available="9.9 GiB"\n')


def _compat(prefix: str) -> tuple[str, str, str]:
    r = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message, r.coverage.text() if r.coverage else ""


def test_the_chosen_runner_of_the_drivers_major_is_ok() -> None:
    status, message, coverage = _compat("261")  # corpus 261 (ollama/ollama#9245): variant=v12, driver=12.3
    assert status == "ok" and "cuda v12 runner" in message
    assert coverage == "1 of 1 GPU shown"  # `device count 1` of the CUDA probe


def test_the_oldest_supported_driver_runs_the_v12_runner(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, OLLAMA_10569, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "CUDA 12.1" in r.message


def test_an_older_runner_than_the_driver_is_ok() -> None:
    status, message, coverage = _compat("244")  # corpus 244: cuda_v11 shipped, driver=12.2, four GTX 1070
    assert status == "ok" and "cuda v11" in message and "older" in message
    assert coverage == "4 GPUs shown"


def test_modelled_a_runner_newer_than_the_driver_is_the_issue(tmp_path: Path) -> None:
    # Modelled: the 10569 line on a driver that supports CUDA 11.4 only.
    r = paste_checks(tmp_path, OLLAMA_10569.replace("driver=12.1", "driver=11.4"), "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "needs a driver for CUDA 12" in r.message


def test_corpus_659_ollama_client_at_a_prompt_shows_ollama(tmp_path: Path) -> None:
    # ollama/ollama#8963: `$ ./ollama ps` (its server answered with the model it loaded) above nvidia-smi's driver
    # 535.54.03 (CUDA 12.2): ollama picks its CUDA 12 runner on a driver for CUDA 12.1 or newer.
    r = capture_checks("659", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "ollama" in r.message and "535.54.03" in r.message
    # Modelled: the same table under a prompt that ran no ollama client names no engine.
    text = "$ nvidia-smi\n" + body("659").split("$ nvidia-smi\n", 1)[1]
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message
