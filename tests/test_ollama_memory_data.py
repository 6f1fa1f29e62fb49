"""ollama's debug log (OLLAMA_DEBUG) reads each GPU's memory as it schedules a model: `msg="updating cuda memory
data" gpu=GPU-… name="NVIDIA …" … before.free=… now.total=… now.free=… now.used=…`. The line names the GPU through
the driver API (a MIG instance would read `MIG …` with a MIG- UUID and its slice's memory), so it is a GPU fact:
the inventory, ollama's discovered GPUs, the memory free on each GPU. Lines are from the corpus captures named.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Corpus 1353 (ollama/ollama#6092), line 4: the runner was released, 2.0 GiB free before, 7.5 GiB now.
RELEASED = ('time=2024-07-31T15:27:42.644+08:00 level=DEBUG source=gpu.go:406 msg="updating cuda memory data" '
            'gpu=GPU-66762d9a-49a1-11ef-a56b-0f40675dcf0a name="NVIDIA A40-8Q" overhead="0 B" before.total="7.8 GiB" '
            'before.free="2.0 GiB" now.total="7.8 GiB" now.free="7.5 GiB" now.used="385.8 MiB"\n')


def test_whole_a100_in_ollamas_debug_log_is_ok_for_mig_memory_and_driver() -> None:
    # Corpus 1349: the line broken inside `before.total` by the paste, the readings on the next line.
    results = capture_checks("1349", "MEM-MIG", "MEM-GPU-SHARED", "DRV-CUDA-COMPAT")
    assert {k: r.status for k, r in results.items()} == {
        "MEM-MIG": "ok", "MEM-GPU-SHARED": "ok", "DRV-CUDA-COMPAT": "ok"}
    assert "A100-SXM4-80GB" in results["MEM-MIG"].message


def test_memory_freed_since_ollamas_previous_reading_is_its_own_runner(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, "CUDA driver version: 11.4\n" + RELEASED, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue", result.message
    assert "5.5 GiB" in result.message


def test_a_reading_with_nothing_freed_and_nothing_held_is_ok(tmp_path: Path) -> None:
    # Modelled on RELEASED: before.free equal to now.free.
    text = RELEASED.replace('before.free="2.0 GiB"', 'before.free="7.5 GiB"')
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok", result.message


def test_a_mig_slice_named_by_ollama_is_not_a_whole_gpu(tmp_path: Path) -> None:
    # Modelled on corpus 1349's line: a MIG instance, as the driver API names it, with its MIG- UUID and slice memory.
    text = ('time=2025-08-11T11:31:31.002+02:00 level=DEBUG source=gpu.go:441 msg="updating cuda memory data" '
            'gpu=MIG-974624fb-16fe-4613-6582-286897a53b6a name="NVIDIA A100-SXM4-80GB MIG 1g.10gb" overhead="0 B" '
            'before.total="9.5 GiB" before.free="9.3 GiB" now.total="9.5 GiB" now.free="9.3 GiB" now.used="200.0 MiB"\n')
    result = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert result.status != "ok", result.message


def test_cuda_11_driver_under_a_log_dated_before_ollama_dropped_v11_is_ok() -> None:
    # Corpus 1353: `CUDA driver version: 11.4`, its log dated 2024-07-31: that release shipped its CUDA v11 runner.
    result = capture_checks("1353", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "2024-07-31" in result.message


def test_cuda_11_driver_under_a_log_dated_after_ollama_dropped_v11_is_not_judged(tmp_path: Path) -> None:
    # Modelled on corpus 1353's lines (its `runner released` line dates the log), dated either side of the day ollama
    # first dropped its v11 runner (2025-05-05).
    released = ('time=2024-07-31T15:27:42.353+08:00 level=DEBUG source=sched.go:368 msg="runner released" '
                'modelPath=/root/.ollama/models/blobs/sha256-43f7a214e5329f672bb05404cfba1913cbb70fdaa1a17497224e19\n')
    text = released + "CUDA driver version: 11.4\n" + RELEASED
    before = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert before.status == "ok", before.message
    after = paste_checks(tmp_path, text.replace("2024-07-31", "2025-07-31"), "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert after.status != "ok", after.message
