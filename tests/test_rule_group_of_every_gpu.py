"""Rule: with no topology matrix, an engine group the source shows is every GPU of the host has no placement to
choose: IC-TOPOLOGY-PLACEMENT not-an-issue over the host's GPUs (facts/parallelism.group_of_every_gpu; issue 28).

The host's count must be whole (nvidia-smi's whole table, or the user's words where no listing shows more); the group
is a pasted command's TP x PP of that count, or a llama.cpp server that splits over every GPU CUDA sees, neither
narrowed by CUDA_VISIBLE_DEVICES.

Real pastes: 736 (ggml-org/llama.cpp#24324: llama-server --split-mode tensor, four V100 in the hardware summary);
612 (ggml-org/llama.cpp, a Windows llama-server whose `ggml_cuda_init` lists two GPUs: CUDA's list, which
CUDA_VISIBLE_DEVICES may narrow, is no whole count); 455 (llama.cpp on a host with an RTX 3090 and a Quadro M2000,
only GPU 0 visible: one GPU, not applicable). The other counter-examples are modelled.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from corpus import body, capture_checks, paste_checks

_CHECK = "IC-TOPOLOGY-PLACEMENT"


def test_llama_server_split_over_the_hosts_four_gpus() -> None:
    result = capture_checks("736", _CHECK)[_CHECK]
    assert result.status == "not-an-issue"
    assert "spans every GPU of the host" in result.message and "--split-mode tensor" in result.message
    assert result.coverage.count == 4 and result.coverage.total == 4


def test_cuda_device_lists_are_no_whole_count() -> None:
    result = capture_checks("612", _CHECK)[_CHECK]
    assert result.status == "unknown" and "every GPU" not in result.message
    # 455's server sees one of the two GPUs (CUDA_VISIBLE_DEVICES=0): no group to place, not a group of every GPU.
    result = capture_checks("455", _CHECK)[_CHECK]
    assert result.status == "not-applicable" and "every GPU" not in result.message
    assert "CUDA_VISIBLE_DEVICES=0" in result.message


def test_modelled_cuda_visible_devices_narrows_the_split(tmp_path: Path) -> None:
    text = body("736").replace("./llama-server -m", "CUDA_VISIBLE_DEVICES=0,1 ./llama-server -m")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "unknown"


def test_modelled_split_mode_none_uses_one_gpu(tmp_path: Path) -> None:
    text = body("736").replace("--split-mode tensor", "--split-mode none")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    # One GPU of the four: no group of every GPU, and no group to place at all (facts/parallelism.one_gpu_commands).
    assert result.status == "not-applicable" and "every GPU" not in result.message
    assert "--split-mode none" in result.message


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


# --- a command over --nnodes: its ranks on each node (facts/_parse.ranks_per_node) ---------------------------------

# https://github.com/sgl-project/sglang/issues/6465 (issue body): node 0's command and the start of its check_env,
# verbatim lines (the check_env's topology matrix left out).
SGLANG_6465 = """\
python3 -m sglang.launch_server --model-path /mnt/ceph-sz2-csp/mm-base-plt2/nrwu/hf-hub/Qwen/Qwen3-235B-A22B --tp 16 --dist-init-addr 29.163.186.212:5000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 30000

Python: 3.10.10 (main, Mar 21 2023, 18:45:11) [GCC 11.2.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA H20
GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
"""


def test_tp_over_nodes_that_fills_each_node(tmp_path: Path) -> None:
    """Real (captures 792, sglang#5186, and 518, sglang#4161; sglang#6465): SGLang TP 16 over --nnodes 2 beside a
    check_env of 8 GPUs puts 8 ranks on each node, every GPU of the host."""
    results = [capture_checks(prefix, _CHECK)[_CHECK] for prefix in ("792", "518")]
    results.append(paste_checks(tmp_path, SGLANG_6465, _CHECK)[_CHECK])
    for result in results:
        assert result.status == "not-an-issue", result.message
        assert "TP 16 over --nnodes 2: 8 ranks on each node, the host's 8 GPUs" in result.message


def test_modelled_tp_over_nodes_that_fills_half_of_each_node(tmp_path: Path) -> None:
    """Modelled from sglang#6465: TP 8 over --nnodes 2 puts 4 ranks on each 8-GPU node. TP x PP equals the count, but
    the group is not every GPU of the host."""
    text = SGLANG_6465.replace("--tp 16", "--tp 8")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "unknown" and "every GPU" not in result.message


def test_ranks_per_node_from_the_command_line() -> None:
    """Real command lines: sglang#27949 (TP 4 over four DGX Spark nodes: one rank each), sglang#2591 (TP 14 over
    --nnodes 4: unequal shares), sglang#6496 (an LWS placeholder for the node count); the last two give no count."""
    from stackaudit.facts._parse import ranks_per_node

    spark = shlex.split("python3 -m sglang.launch_server --tp 4 --nnodes 4 --node-rank N --dist-init-addr <rank0>:29500")
    uneven = shlex.split("python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 "
                         "--nnodes 4 --node-rank 0 --trust-remote-code")
    lws = shlex.split("python3 -m sglang.launch_server --tp 16 --dist-init-addr $(LWS_LEADER_ADDRESS):5000 --nnodes "
                      "$(LWS_GROUP_SIZE) --node-rank $(LWS_WORKER_INDEX)")
    assert ranks_per_node(spark) == 1
    assert ranks_per_node(uneven) is None
    assert ranks_per_node(lws) is None
    assert ranks_per_node(SGLANG_6465.split("\n")[0].split()) == 8


def test_test_run_over_every_gpu_without_a_matrix() -> None:
    """758: `CUDA_VISIBLE_DEVICES=0,...,7 ... all_reduce_perf -g 8` on the header's eight RTX 4090s, no matrix."""
    result = capture_checks("758", _CHECK)[_CHECK]
    assert result.status == "not-an-issue"
    assert "the test run's group" in result.message and "all the host's 8 GPUs" in result.message


def test_modelled_test_run_on_another_gpu_is_no_group_of_every_gpu(tmp_path: Path) -> None:
    # Modelled on 758: CUDA_VISIBLE_DEVICES maps device 7 to host GPU 8, so the run leaves GPU 7 out: its group is
    # not every GPU, and with no matrix its placement stays unread.
    text = body("758").replace("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,8")
    result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
    assert result.status == "unknown" and "every GPU" not in result.message


def test_tp_size_in_the_users_words_over_every_gpu() -> None:
    """The one TP size the user's words give a run (StatedEngines.tp) equal to the host's whole count in their words:
    `with SGLang TP4 serving ...` on `4x A100-80GB PCIe` (corpus 2848), a list's `Config: TP=8` on `8x RTX PRO 6000`
    (corpus 2838)."""
    for prefix, size in (("2848", 4), ("2838", 8)):
        result = capture_checks(prefix, _CHECK)[_CHECK]
        assert result.status == "not-an-issue", prefix
        assert f"TP {size}" in result.message and "user's words" in result.message
        assert result.coverage.total == size


def test_modelled_tp_sizes_in_words_that_name_no_group(tmp_path: Path) -> None:
    """Modelled on 2848: a size below the host's count, or several sizes, name no group of every GPU."""
    for said in ("with SGLang TP2 serving", "with SGLang TP4 (TP2 fails) serving"):
        text = body("2848").replace("with SGLang TP4 serving", said)
        result = paste_checks(tmp_path, text, _CHECK)[_CHECK]
        assert result.status == "unknown", said


def test_stated_tp_sizes() -> None:
    from stackaudit.facts.engine_command import stated_tp

    assert stated_tp("with SGLang TP4 serving Qwen3.8-27B") == (4,)
    assert stated_tp("- **Config:** TP=8, DCP=1, MTP=3, MOE_MODE=a4") == (8,)
    assert stated_tp("4prefill-node(tp=1) and 1decode-node(tp=2)") == (1, 2)
    assert stated_tp("it works with --tp 4 and tensor parallel size 4") == (4,)
    assert stated_tp("ETP4 and MTP=3 and the TP 2.5 release") == ()


def test_stated_tp_is_linear() -> None:
    import time

    from stackaudit.facts.engine_command import stated_tp

    start = time.perf_counter()
    for line in ("TP" + " " * 200_000 + "x", "tensor parallel" + " " * 200_000 + "x", "TP=" * 70_000):
        assert stated_tp(line) == ()
    # A backtracking pattern would take minutes on 200,000 characters; a linear one takes milliseconds, and 5 s leaves
    # room for a loaded machine.
    assert time.perf_counter() - start < 5.0
