"""CTR-GPU-ACCESS: a request for every GPU is judged over the GPUs the source lists (issue 28).

- A compose service that asks for every GPU (a device reservation with no count, `runtime: nvidia`) beside the
  host's nvidia-smi cut in its header, with no engine log and nothing typed inside the container: no GPU is shown for
  the request to hand over, so the request is no proof of access: unknown (corpus 1755, vllm-project/vllm#8885).
- The same cut listing beside the engine's own log from the container stays ok (corpus 798, vllm-project/vllm#18995),
  and so does one beside nvidia-smi typed at the container's own prompt (corpus 1016, gpustack/gpustack).

Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, pasted, paste_checks

ACCESS = "CTR-GPU-ACCESS"

# One GPU row of nvidia-smi's table (modelled on a V100's), to finish corpus 1755's cut header.
_V100_ROWS = """|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla V100-SXM2-32GB           On  |   00000000:06:00.0 Off |                    0 |
| N/A   33C    P0             42W /  300W |       0MiB /  32768MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
```
"""


def test_every_gpu_request_over_a_listing_cut_before_any_gpu_is_unknown() -> None:
    # Corpus 1755: the compose reserves every GPU; the host's nvidia-smi stops at its column headers.
    result = capture_checks("1755", ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "cut before its first GPU" in result.message and "mixtral7x8b" in result.message


def test_the_same_request_over_a_listed_gpu_stays_ok(tmp_path: Path) -> None:
    # Modelled: corpus 1755 with its nvidia-smi finished by one GPU row.
    text = body("1755").rstrip("\n").removesuffix("|") + _V100_ROWS
    assert fact(pasted(text), "gpus").gpus, "the modelled row must be read as a GPU"
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_an_engine_log_from_the_container_keeps_the_request_ok() -> None:
    # Corpus 798: `--gpus all`, the host's nvidia-smi cut in its header, and vLLM's CUDA error from the container.
    result = capture_checks("798", ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_nvidia_smi_typed_inside_the_container_keeps_the_request_ok() -> None:
    # Corpus 1016: `gpus: all`, and nvidia-smi typed at the container's prompt (root@b888322c7439) answers with the
    # host's driver before its table is cut.
    result = capture_checks("1016", ACCESS)[ACCESS]
    assert result.status == "ok", result.message
    container = fact(pasted(body("1016")), "container")
    assert ("b888322c7439", "nvidia-smi --version") in container.exec_into
