"""Rule: FW-VM in a guest whose workload uses one GPU (facts/parallelism.one_gpu_workload): a container given one GPU,
an engine whose TP x PP is 1, an NCCL communicator of one rank. No GPU pair is left whose P2P or topology the VM could
hide: not an issue, however many GPUs the guest has. A vGPU guest stays an issue: unified memory, the profilers and
the license still apply with one GPU, and only the P2P clause leaves the finding (issue 28).

Real pastes: 256 (Azure NC24ads A100 v4, NCCL `nranks 1`); 732 (huggingface/text-generation-inference#615: a GRID
A100-40C vGPU guest, `docker run --gpus 1`, whose thread fails with "CUDA error: operation not supported", the
vGPU's unified-memory refusal); vllm-project/vllm#10034 (two A10 on PCI bus 00, `--gpus '"device=0,1"'` and TP 2: two
GPUs, the rule must not fire). The one-GPU form of that last paste is modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# vllm-project/vllm#10034 (issue body by jjyyds, 2024-11-05): the command (its `command：` label left out) and
# nvidia-smi's first GPU row, as pasted.
_A10_PAIR = """\
docker run --runtime nvidia --gpus '"device=0,1"' -d -v /data/model/llama:/data/model/llama -p 8001:8000 vllm/vllm-openai:v0.6.2 --model /data/model/llama --max-model-len 1024 --served_model_name Llama-3.2-11B-Vision-Instruct --tensor-parallel-size 2 --gpu_memory_utilization 0.7

nvidia-smi output：
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 555.42.06              Driver Version: 555.42.06      CUDA Version: 12.5     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A10                     On  |   00000000:00:04.0 Off |                    0 |
|  0%   47C    P0             60W /  150W |   10797MiB /  23028MiB |      0%      Default |
"""


def test_one_rank_communicator_in_a_vm() -> None:
    result = capture_checks("256", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "the workload uses one GPU" in result.message
    assert "`nranks 1`" in result.message


def test_vgpu_guest_with_one_gpu_and_no_limit_shown_is_not_an_issue() -> None:
    # h62a: one vGPU for the workload and none of the vGPU's limits shown at work (corpus 732's blind reading).
    result = capture_checks("732", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "vGPU guest" in result.message and "container huggingface-inference is given one GPU" in result.message


def test_two_gpu_container_in_a_vm_is_not_one_gpu(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _A10_PAIR, "FW-VM")["FW-VM"]
    assert result.status != "not-an-issue" and "one GPU (" not in result.message


def test_modelled_one_gpu_container_in_a_vm(tmp_path: Path) -> None:
    one = _A10_PAIR.replace("device=0,1", "device=0").replace("--tensor-parallel-size 2", "--tensor-parallel-size 1")
    result = paste_checks(tmp_path, one, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "is given one GPU" in result.message


def test_modelled_tp_without_a_gpu_bound_is_not_read(tmp_path: Path) -> None:
    # Modelled: `--gpus all` with TP 1 in the command: the engine runs TP 1, the container's size is its command's.
    one = _A10_PAIR.replace("""'"device=0,1"'""", "all").replace("--tensor-parallel-size 2", "--tensor-parallel-size 1")
    assert "--gpus all" in one
    result = paste_checks(tmp_path, one, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "runs TP 1" in result.message
