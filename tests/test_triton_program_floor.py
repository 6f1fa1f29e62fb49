"""Issue 28 (h87a): a container running `tritonserver` from an image without an NGC release has Triton's own floor,
compute capability 6.0 (checks/rt.TRITON_PROGRAM_FLOOR: the server's `--min-supported-compute-capability` defaults
to the build's TRITON_MIN_COMPUTE_CAPABILITY, 6.0 since triton-inference-server/server#474). A GPU below it gets no
model instance (corpus 1925: a Tesla M60, every instance on `CPU device 0`)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Modelled on triton-inference-server/server#5712 (a Tesla K80 under Triton 21.10), the image renamed to a local
# build so that no NGC release names the floor.
K80 = """\
I have one Tesla K80 in this machine.
```
docker run --gpus=1 --rm -p8000:8000 -v /models:/models my/tritonserver:custom tritonserver --model-repository=/models
```
"""


def test_a_gpu_below_tritons_own_floor_is_the_issue(tmp_path: Path) -> None:
    assert capture_checks("1925", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "issue"
    result = paste_checks(tmp_path, K80, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue" and "runs Triton" in result.message and "6.0" in result.message


def test_a_lowered_floor_or_a_newer_gpu_is_not(tmp_path: Path) -> None:
    # Modelled: the flag that moves the floor, and a GPU above it.
    lowered = K80.replace("--model-repository=/models", "--model-repository=/models --min-supported-compute-capability=3.7")
    assert paste_checks(tmp_path, lowered, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status != "issue"
    t4 = K80.replace("Tesla K80", "Tesla T4")
    assert paste_checks(tmp_path, t4, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status != "issue"
