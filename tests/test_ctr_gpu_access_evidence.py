"""CTR-GPU-ACCESS from evidence beyond the container's spec (issue 28, h58b): a source that shows no NVIDIA GPU
(not applicable), vLLM generating out of its GPU KV cache in a container (ok, facts/cuda_ran.py), and the device
plugin's `Incompatible strategy detected auto` (issue, facts/symptoms.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.cuda_ran import ran_in_lines
from stackaudit.facts.symptoms import find_symptoms

CHECK = "CTR-GPU-ACCESS"
# Corpus 1117's vLLM metrics line (vllm/v1/metrics/loggers.py).
GENERATING = ("(APIServer pid=1) INFO 04-26 19:07:51 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
              "Avg generation throughput: 72.8 tokens/s, Running: 1 reqs, Waiting: 1 reqs, GPU KV cache usage: 37.1%, "
              "Prefix cache hit rate: 0.0%")


def _body(prefix: str) -> str:
    """A corpus file's capture, without its header (for a modelled variant of a real paste)."""
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    return text.split("everything below this line is the capture, verbatim -----\n", 1)[1]


def test_vllm_generating_on_its_gpu_kv_cache_is_cuda_at_work() -> None:
    found = ran_in_lines([GENERATING])
    assert [r.program for r in found] == ["vLLM"] and "37.1%" in found[0].did
    # An idle engine (nothing generated) shows nothing; nor does vLLM's CPU platform. A cache usage that rounds to 0.0%
    # beside tokens generated does (corpus 1445: one short sequence in a pool sized to the GPU).
    idle = GENERATING.replace("72.8 tokens/s", "0.0 tokens/s")
    assert ran_in_lines([idle]) == ()
    assert [r.program for r in ran_in_lines([GENERATING.replace("37.1%", "0.0%")])] == ["vLLM"]
    assert ran_in_lines(["INFO 04-26 19:00:00 [__init__.py:239] Automatically detected platform cpu.",
                         GENERATING]) == ()


@pytest.mark.parametrize("prefix", ["510", "1117"])
def test_an_engine_generating_in_a_container_reached_its_gpu(prefix: str) -> None:
    # 510: the log alone, in a container (`(APIServer pid=1)`); 1117: beside a compose cut before its GPU request.
    r = capture_checks(prefix, CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "vLLM generated" in r.message and "GPU KV cache" in r.message


def test_the_same_log_with_a_refused_start_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 510: a CUDA refusal in the same paste wins over the metrics line (facts/cuda_ran.failed).
    text = _body("510") + "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized\n"
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status != "ok"


def test_a_host_with_only_another_vendors_gpu_is_not_applicable() -> None:
    # Corpus 1012: ollama's issue form answers `GPU: AMD`, nvidia-smi cannot reach a driver, no container shown.
    r = capture_checks("1012", CHECK)[CHECK]
    assert r.status == "not-applicable", r.message
    assert "another vendor's" in r.message


def test_device_plugin_without_nvml_is_an_issue() -> None:
    # Corpus 621: the device plugin's resource factory found neither NVML nor Tegra in its container.
    line = "E0506 17:45:45.421956       1 factory.go:112] Incompatible strategy detected auto"
    assert [h.symptom.name for h in find_symptoms([line])] == ["device-plugin-no-nvml"]
    r = capture_checks("621", CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "Incompatible strategy detected auto" in r.message


def test_nvml_unknown_error_in_a_debug_node_pod_proves_nothing(tmp_path: Path) -> None:
    # Corpus 932: nvidia-smi run after `chroot /host` in a `kubectl debug node/...` pod, whose device cgroup holds no
    # GPU: its 'Failed to initialize NVML: Unknown Error' says nothing of the workload's pods.
    assert capture_checks("932", CHECK)[CHECK].status == "unknown"
    # Modelled on it: the same NVML line with no debug pod shown proves the issue.
    text = "\n".join(line for line in _body("932").splitlines() if "kubectl debug" not in line) + "\n"
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "issue"


# --- nvidia-smi's header naming no CUDA beside a container image (ctr._cuda_without_library) --------------------------

def test_2393_a_header_without_cuda_beside_an_image_is_libcuda_not_handed_in(tmp_path: Path) -> None:
    # Both readers: in the RAPIDS container nvidia-smi sees the V100 but reads `CUDA Version: N/A`.
    r = capture_checks("2393", CHECK)[CHECK]
    assert r.status == "issue" and "libcuda" in r.message and "rapidsai/rapidsai:21.10" in r.message, r.message
    # Another thread's N/A with no container or image shown (corpus 1293, a node's validator; 2304, a vGPU host)
    # is the host driver's, not this check's.
    for prefix in ("1293", "2304"):
        assert capture_checks(prefix, CHECK)[CHECK].status == "unknown", prefix
    # Modelled: the same container whose header names the driver's CUDA shows the library handed in.
    body = next(CAPTURES_DIR.glob("2393-*")).read_text().split("verbatim -----\n", 1)[1]
    whole = body.replace("**CUDA Version: N/A**     ", "CUDA Version: 11.0     ")
    assert paste_checks(tmp_path, whole, CHECK)[CHECK].status != "issue"
