"""RT-VERSION-MATRIX beyond one interpreter: the hosts of one NCCL job that took different network plugins do not run
one stack (an issue), while hosts that took the same one, or one host alone, say nothing of it; and a collect_env
report's cuDNN path list belongs to the report, so the package list after it is read with the header before it.

Real logs are verbatim from the public thread named beside each (or the corpus file); modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted

CHECK = "RT-VERSION-MATRIX"

# https://github.com/NVIDIA/nccl/issues/899 (raninbowlalala): two hosts, each NCCL's internal network.
NCCL_899 = """\
6a5a91752e39:74352:74355 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
6a5a91752e39:74352:74355 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:10.0.1.2<0>
21346d5cefce:5325:5338 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
21346d5cefce:5325:5338 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB eth0:10.0.1.4<0>
"""

# https://github.com/NVIDIA/nccl/issues/1737 (SzymonOzog): one host loading HPC-X's RDMA/SHARP plugin.
NCCL_1737 = """\
gh-3714u06:4197:4197 [0] NCCL INFO Bootstrap : Using ib0.0065:10.1.32.3<0>
gh-3714u06:4197:4197 [0] NCCL INFO cudaDriverVersion 12040
NCCL version 2.21.5+cuda12.4
gh-3714u06:4197:4197 [0] NCCL INFO Comm config Blocking set to 1
gh-3714u06:4197:4267 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so
gh-3714u06:4197:4267 [0] NCCL INFO P2P plugin IBext_v8
"""

# https://github.com/NVIDIA/nccl/issues/224 (Keepmoving-ZXY): Open MPI's tagged output of two hosts, NCCL 2.4's
# `No plugin found (libnccl-net.so).` on gpu6 (cut before gpu7's plugin line).
NCCL_224 = """\
[1,3]<stdout>:gpu6:1410:1605 [3] NCCL INFO NET/Socket : Using [0]enp1s0f0:172.16.0.166<0> [1]enp96s0f0:10.0.26.164<0> [2]flannel.1:10.244.3.0<0>
[1,2]<stdout>:gpu6:1409:1602 [2] NCCL INFO NET/Socket : Using [0]enp1s0f0:172.16.0.166<0> [1]enp96s0f0:10.0.26.164<0> [2]flannel.1:10.244.3.0<0>
[1,2]<stdout>:gpu6:1409:1602 [2] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
[1,3]<stdout>:gpu6:1410:1605 [3] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
[1,4]<stdout>:gpu7:4105:4372 [0] NCCL INFO NET/Socket : Using [0]enp1s0f0:172.16.0.167<0> [1]enp96s0f0:10.0.28.2<0> [2]flannel.1:10.244.4.0<0>
"""

# https://github.com/pytorch/pytorch/issues/90204 (shanecarroll-smarsh): collect_env's head to its cuDNN path list
# (the stored copy is cut inside the list).
PYTORCH_90204 = """\
$ python collect_env.py
Collecting environment information...
PyTorch version: 1.13.0+cu117
Is debug build: False
CUDA used to build PyTorch: 11.7
ROCM used to build PyTorch: N/A

OS: Ubuntu 18.04.4 LTS (x86_64)
GCC version: (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0
Clang version: Could not collect
CMake version: version 3.13.3
Libc version: glibc-2.27

Python version: 3.9.12 (main, Apr  5 2022, 06:56:58)  [GCC 7.5.0] (64-bit runtime)
Python platform: Linux-5.4.0-1060-aws-x86_64-with-glibc2.27
Is CUDA available: True
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: Tesla T4
Nvidia driver version: 520.61.05
cuDNN version: Probably one of the following:
/usr/local/cuda-10.1/targets/x86_64-linux/lib/libcudnn.so.7.6.5
/usr/local/cuda-10.2/targets/x86_64-linux/lib/libcudnn.so.7.6.5
/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn.so.8.7.0
/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn_adv_infer.so.8.7.0
/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn_adv_train.so.8.7.0
/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn_cnn_infer.so.8.7.0
/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn_cnn_train.so.8.7.0
"""


def _plugins(text: str) -> tuple[dict[str, tuple[str, str]], tuple[str, ...]]:
    log = fact(pasted(text), "serving_log")
    return log.net_plugins(), log.net_plugins_differ()


def test_hosts_on_different_net_plugins_are_an_issue() -> None:
    # Corpus 1195 (NVIDIA/nccl#1634): HGX-H100-11 on NCCL's internal network, HGX-H100-04 on HPC-X's plugin.
    r = capture_checks("1195", CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "HGX-H100-11: NCCL's internal network" in r.message
    assert "HGX-H100-04: /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so" in r.message


def test_hosts_on_the_same_plugin_say_nothing(tmp_path: Path) -> None:
    taken, apart = _plugins(NCCL_899)
    assert {host: plugin for host, (plugin, _) in taken.items()} == {"6a5a91752e39": "internal",
                                                                     "21346d5cefce": "internal"}
    assert apart == ()
    assert paste_checks(tmp_path, NCCL_899, CHECK)[CHECK].status == "unknown"  # no Python environment shown


def test_one_host_says_nothing_of_the_others() -> None:
    taken, apart = _plugins(NCCL_1737)
    assert taken["gh-3714u06"][0] == "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"
    assert apart == ()


def test_nccl_24s_no_plugin_line_is_the_internal_network() -> None:
    taken, apart = _plugins(NCCL_224)
    assert {host: plugin for host, (plugin, _) in taken.items()} == {"gpu6": "internal"}  # gpu7's line is cut
    assert apart == ()


def test_modelled_second_host_on_a_plugin_is_an_issue(tmp_path: Path) -> None:
    # Modelled: nccl#224's log with a plugin line for gpu7 in HPC-X's words (corpus 1195's).
    text = NCCL_224 + ("[1,4]<stdout>:gpu7:4105:4372 [0] NCCL INFO Plugin Path : "
                       "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n")
    taken, apart = _plugins(text)
    assert set(taken) == {"gpu6", "gpu7"} and len(apart) == 2
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "issue"


def test_the_cudnn_path_list_belongs_to_the_report(tmp_path: Path) -> None:
    # Modelled: pytorch#90204's report, its package list after the cuDNN paths in torch's collect_env words.
    text = PYTORCH_90204 + "\nVersions of relevant libraries:\n[pip3] numpy==1.23.4\n[pip3] torch==1.13.0+cu117\n" \
        "[pip3] triton==2.0.0\n[conda] Could not collect\n"
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "python 3.9.12, torch 1.13.0+cu117, triton 2.0.0, torch_cuda 11.7" in r.message


def test_a_stitched_report_is_read_whole() -> None:
    # Corpus 1591: the head to the first cuDNN path, then the package list and vLLM's lines.
    r = capture_checks("1591", CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "vllm 0.8.3" in r.message and "python 3.10.12" in r.message
