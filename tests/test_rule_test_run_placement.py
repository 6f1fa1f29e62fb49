"""Rule of IC-TOPOLOGY-PLACEMENT (issue 28): a pasted test run's GPU group is the group placement judges.

With no serving engine shown, an nccl-tests run (or NCCL 1's own test) shows which GPUs it took: its rank lines'
device numbers, mapped through the CUDA_VISIBLE_DEVICES on its command line, or the host's own numbers when its
highest device is the host's last GPU. Placement compares that group with the best group of its size, as it does
an engine's.

Real pastes: 595 (https://github.com/NVIDIA/nccl/issues/428, body: CUDA_VISIBLE_DEVICES=0,1 over SYS on four T4s,
issue), the same thread's comment (CUDA_VISIBLE_DEVICES=1,2 over NODE, ok), 407
(https://github.com/NVIDIA/nccl/issues/19, NCCL 1 `Rank 0 uses device 1` lines, devices 1, 3, 5 over SOC, issue),
and the rank lines of https://github.com/NVIDIA/nccl-tests/issues/74 (a run over all eight A40s, no
CUDA_VISIBLE_DEVICES). The run over every GPU, the run on a subset without CUDA_VISIBLE_DEVICES and the run over two
hosts are modelled counter-examples.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import nccl_test_runs_pasted

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"

# The matrix of NVIDIA/nccl#428's body (four Tesla T4, GPU0 alone on the first socket).
_T4_MATRIX = """\
        GPU0    GPU1    GPU2    GPU3    CPU Affinity
GPU0     X      SYS     SYS     SYS     0-15,32-47
GPU1    SYS      X      NODE    NODE    16-31,48-63
GPU2    SYS     NODE     X      NODE    16-31,48-63
GPU3    SYS     NODE    NODE     X      16-31,48-63
"""


def _run(command: str, devices: list[tuple[str, int, str]]) -> str:
    ranks = "".join(f"#   Rank {r:2d} Pid  93569 on {host} device {d:2d} [{bus}] Tesla T4\n"
                    for r, (host, d, bus) in enumerate(devices))
    return (f"{command}\n# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 "
            f"validation: 1 \n#\n# Using devices\n{ranks}#\n")


def test_a_run_across_sockets_while_a_same_socket_pair_exists_is_an_issue() -> None:
    # 595 (nccl#428 body): CUDA_VISIBLE_DEVICES=0,1 pairs GPU0 with GPU1 over SYS; GPU1-GPU2 meet over NODE.
    result = capture_checks("595", PLACEMENT)[PLACEMENT]
    assert result.status == "issue"
    assert result.message.startswith("the test run's group GPU0, GPU1 crosses sockets (SYS)")
    assert result.subjects == ("GPU0", "GPU1") and result.expected == "CUDA_VISIBLE_DEVICES=1,2"


def test_nccl_1_rank_lines_name_the_group() -> None:
    # 407 (nccl#19): NCCL 1's all_gather_test on devices 1, 3, 5 of six K80s; GPU2-GPU4 stay on socket 1.
    result = capture_checks("407", PLACEMENT)[PLACEMENT]
    assert result.status == "issue" and result.subjects == ("GPU1", "GPU3", "GPU5")
    assert "GPU2, GPU3, GPU4 share a socket" in result.message


def test_a_run_on_the_same_socket_pair_is_ok(tmp_path: Path) -> None:
    # The comment of nccl#428 (2020-12-04): the same host, CUDA_VISIBLE_DEVICES=1,2 (device 0 is bus 0x86, GPU1).
    command = ("# NCCL_DEBUG=INFO NCCL_TOPO_DUMP_FILE=system12.txt LD_LIBRARY_PATH=/usr/local/lib:/usr/local/cuda/lib64 "
               "CUDA_VISIBLE_DEVICES=1,2 ./build/all_reduce_perf ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2")
    host = "ai-vtraining-prd-10-193-84-3"
    text = _T4_MATRIX + "\n" + _run(command, [(host, 0, "0x86"), (host, 1, "0xaf")])
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "ok"
    assert result.message.startswith("the test run's group GPU1, GPU2 uses the closest paths available (NODE)")


def test_modelled_run_over_every_gpu_leaves_nothing_to_choose(tmp_path: Path) -> None:
    # Modelled: the same box, a run over all four GPUs: crossing the sockets is unavoidable.
    command = "# CUDA_VISIBLE_DEVICES=0,1,2,3 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4"
    text = _T4_MATRIX + "\n" + _run(command, [("test-a", d, b) for d, b in enumerate(("0x3b", "0x86", "0xaf", "0xd8"))])
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue"
    assert result.message.startswith("the test run's group uses all 4 GPUs: crossing sockets is unavoidable")


def test_modelled_subset_without_visible_devices_is_not_read(tmp_path: Path) -> None:
    # Modelled: devices 0 and 1 of four with no CUDA_VISIBLE_DEVICES shown: one set elsewhere could remap them, so
    # the run's group is not read and the no-engine advice stays unknown.
    text = _T4_MATRIX + "\n" + _run("# ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2",
                                    [("test-a", 0, "0x3b"), ("test-a", 1, "0x86")])
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "unknown" and "depending on which GPUs the engine takes" in result.message


def test_modelled_run_over_two_hosts_is_not_one_hosts_group(tmp_path: Path) -> None:
    command = "# CUDA_VISIBLE_DEVICES=0,1 mpirun -np 2 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1"
    text = _T4_MATRIX + "\n" + _run(command, [("node-a", 0, "0x3b"), ("node-b", 1, "0x86")])
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status == "unknown"


def test_the_group_fact() -> None:
    # nccl-tests#74: `./all_reduce_perf -g 8` on eight A40s, no CUDA_VISIBLE_DEVICES: the host's own device numbers
    # when the host has eight GPUs, not read on a host of more (a CUDA_VISIBLE_DEVICES set elsewhere may remap them).
    lines = "".join(f"#   Rank  {d} Pid  29565 on      server device  {d} [0x{b}] A40\n"
                    for d, b in enumerate(("01", "25", "41", "61", "81", "a1", "c1", "e1")))
    runs = nccl_test_runs_pasted("$ ./all_reduce_perf -g 8 -c 0 -n 100 -w 20\n# nThread 1 nGpus 8 minBytes 33554432 "
                                 "maxBytes 33554432 step: 1048576(bytes) warmup iters: 20 iters: 100 validation: 0\n#\n"
                                 "# Using devices\n" + lines)
    assert runs.group(8) == tuple(range(8)) and runs.group(16) is None
    # Two runs on different groups: neither is the one the paste judges.
    other = nccl_test_runs_pasted(_run("# CUDA_VISIBLE_DEVICES=0,1 ./build/all_reduce_perf -g 2", [("a", 0, "x"), ("a", 1, "y")])
                                  + _run("# CUDA_VISIBLE_DEVICES=1,2 ./build/all_reduce_perf -g 2", [("a", 0, "x"), ("a", 1, "y")]))
    assert [g.visible for g in other.groups] == [("0", "1"), ("1", "2")] and other.group(4) is None
