"""Rule: with no topology matrix, an engine group the source shows is every GPU of the host has no placement to
choose: IC-TOPOLOGY-PLACEMENT not-an-issue over the host's GPUs (facts/parallelism.group_of_every_gpu; issue 28).

The host's count must be whole (nvidia-smi's whole table, or the user's words where no listing shows more); the group
is a pasted command's TP x PP of that count, or a llama.cpp server that splits over every GPU CUDA sees, neither
narrowed by CUDA_VISIBLE_DEVICES.

Real pastes: 736 (ggml-org/llama.cpp#24324: llama-server --split-mode tensor, four V100 in the hardware summary);
612 (ggml-org/llama.cpp, a Windows llama-server whose `ggml_cuda_init` lists two GPUs: CUDA's list, which
CUDA_VISIBLE_DEVICES may narrow, is no whole count); 455 (llama.cpp on a host with an RTX 3090 and a Quadro M2000,
only GPU 0 visible). The other counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks

_CHECK = "IC-TOPOLOGY-PLACEMENT"


def test_llama_server_split_over_the_hosts_four_gpus() -> None:
    result = capture_checks("736", _CHECK)[_CHECK]
    assert result.status == "not-an-issue"
    assert "spans every GPU of the host" in result.message and "--split-mode tensor" in result.message
    assert result.coverage.count == 4 and result.coverage.total == 4


def test_cuda_device_lists_are_no_whole_count() -> None:
    for prefix in ("612", "455"):
        result = capture_checks(prefix, _CHECK)[_CHECK]
        assert result.status == "unknown" and "every GPU" not in result.message


def test_modelled_cuda_visible_devices_narrows_the_split(tmp_path: Path) -> None:
    text = body("736").replace("./llama-server -m", "CUDA_VISIBLE_DEVICES=0,1 ./llama-server -m")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "unknown"


def test_modelled_split_mode_none_uses_one_gpu(tmp_path: Path) -> None:
    text = body("736").replace("--split-mode tensor", "--split-mode none")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "unknown"


_TABLE = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 545.23.08              Driver Version: 545.23.08    CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100 80GB PCIe          On  | 00000000:17:00.0 Off |                    0 |
| N/A   46C    P0              79W / 300W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100 80GB PCIe          On  | 00000000:CA:00.0 Off |                    0 |
| N/A   44C    P0              77W / 300W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|  No running processes found                                                           |
+---------------------------------------------------------------------------------------+
"""


def test_modelled_tp_of_the_whole_count(tmp_path: Path) -> None:
    # Modelled: a whole two-GPU table and `vllm serve ... --tensor-parallel-size 2`.
    text = _TABLE + "\n$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n"
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "not-an-issue" and "runs TP 2 on the host's 2 GPUs" in result.message
    smaller = paste_checks(tmp_path, _TABLE + "\n$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 1\n", _CHECK)[_CHECK]
    assert smaller.status != "not-an-issue"
