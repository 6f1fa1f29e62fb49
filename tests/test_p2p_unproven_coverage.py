"""IC-P2P-FUNCTIONAL: the 'no data test' unknown says which GPUs it speaks for.

A paste that shows GPUs but no test moving data between them (an nccl-tests device list cut before its rows, NCCL's
init lines) leaves the check unknown; the verdict is over the GPUs the source shows (the coverage rule of issue 28):
a listing's GPUs over the host's count, the listing's own count where it may stop early (corpus 1414: `6 of 8 GPUs
shown`), else the CUDA devices of an NCCL log from one host over its communicator's size (corpus 1489: `2 of 4 GPUs
shown`; corpus 1486: `4 GPUs shown`). Real text is quoted verbatim from the threads named beside each.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/NVIDIA/nccl/issues/257 (issue body by vmarkovtsev, 2019-09-28: all_reduce_perf hangs), the start
# of its output as the stored excerpt holds it.
NCCL_257 = """./build/all_reduce_perf -b 8 -e 256M -f 2 -g 4
# nThread 1 nGpus 4 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid  15833 on jupyter-vmarkovtsev device  0 [0x02] GeForce GTX 1080 Ti
#   Rank  1 Pid  15833 on jupyter-vmarkovtsev device  1 [0x03] GeForce GTX 1080 Ti
#   Rank  2 Pid  15833 on jupyter-vmarkovtsev device  2 [0x82] GeForce GTX 1080 Ti
#   Rank  3 Pid  15833 on jupyter-vmarkovtsev device  3 [0x83] GeForce GTX 1080 Ti
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO Bootstrap : Using [0]eth0:10.2.3.32<0>
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
"""

# https://github.com/NVIDIA/nccl/issues/1706 (issue body by tianyunzqs, 2025-05-13: -g 4 stuck, -g 2 fine), the run
# up to its first NCCL lines.
NCCL_1706 = """root@deepseek:/data/data1/nccl-tests# CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4

# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 2081556 on   deepseek device  0 [0000:0f:00] NVIDIA H800
#  Rank  1 Group  0 Pid 2081556 on   deepseek device  1 [0000:34:00] NVIDIA H800
#  Rank  2 Group  0 Pid 2081556 on   deepseek device  2 [0000:48:00] NVIDIA H800
#  Rank  3 Group  0 Pid 2081556 on   deepseek device  3 [0000:5a:00] NVIDIA H800
deepseek:2081556:2081556 [0] NCCL INFO Bootstrap: Using ens14f0np0:192.168.1.252<0>
deepseek:2081556:2081556 [0] NCCL INFO cudaDriverVersion 12040
deepseek:2081556:2081556 [0] NCCL INFO NCCL version 2.26.5+cuda12.4
"""

# https://github.com/vllm-project/vllm/issues/6370 (a comment by youkaichao quoting the user's torchrun test, 2024-07-14):
# NCCL's first lines of ranks 0 and 1 on one host, quoted (`> `) as the comment has them; the stored excerpt cuts the
# last line where it ends here.
VLLM_6370 = """> flow-matic:820398:820398 [0] NCCL INFO Bootstrap : Using eno3:169.229.48.108<0>
> flow-matic:820398:820398 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation
> flow-matic:820398:820398 [0] NCCL INFO cudaDriverVersion 12050
> NCCL version 2.20.5+cuda12.4
> flow-matic:820398:820779 [0] NCCL INFO NET/IB : No device found.
> flow-matic:820398:820779 [0] NCCL INFO NET/Socket : Using [0]eno3:169.229.48.108<0> [1]lxcbr0:10.0.3.1<0> [2]tailscale0:100.72.221.35<0>
> flow-matic:820398:820779 [0] NCCL INFO Using non-device net plugin version 0
> flow-matic:820398:820779 [0] NCCL INFO Using network Socket
> flow-matic:820399:820399 [1] NCCL INFO cudaDriverVersion
"""


def _p2p(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    return paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]


def test_device_list_without_rows_is_unknown_over_its_gpus(tmp_path: Path) -> None:
    r = _p2p(tmp_path, NCCL_257)
    assert r.status == "unknown"
    assert r.coverage is not None and r.coverage.count == 4 and r.coverage.text() == "4 of 4 GPUs shown"


def test_nccl_log_of_one_host_is_unknown_over_its_devices(tmp_path: Path) -> None:
    r = _p2p(tmp_path, VLLM_6370)
    assert r.status == "unknown"
    assert r.coverage is not None and r.coverage.text() in ("2 GPUs shown", "2 of 2 GPUs shown")


def test_p2p_turned_off_run_stays_unknown_over_its_gpus(tmp_path: Path) -> None:
    # NCCL_P2P_DISABLE=1 on the command is no proof either way (corpus 351, 515, 1022): unknown, over its 4 GPUs.
    r = _p2p(tmp_path, NCCL_1706)
    assert r.status == "unknown" and r.coverage is not None and r.coverage.count == 4


def test_corpus_excerpts_state_their_coverage() -> None:
    for prefix, text in (("1414", "6 of 8 GPUs shown"), ("1489", "2 of 4 GPUs shown"), ("436", "2 of 2 GPUs shown")):
        r = capture_checks(prefix, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
        assert r.status == "unknown" and r.coverage is not None and r.coverage.text() == text, (prefix, r.coverage)


def test_one_gpu_shown_keeps_no_coverage() -> None:
    # Corpus 1297: eight ranks on bus 0x00 read as one GPU; one GPU shown is no pair, so the verdict names none.
    r = capture_checks("1297", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and r.coverage is None


def test_llama_cpp_split_over_geforce_shows_no_path() -> None:
    # Corpus 1283 (a 1080 Ti and two 1070 under llama-server, -sm layer): llama.cpp's lines name no route for its
    # copies between the cards, so the GeForce policy alone proves nothing either way: unknown, over the three cards.
    r = capture_checks("1283", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and r.coverage is not None and r.coverage.count == 3
    # Corpus 1199: NCCL's own channels between four RTX 3090 all over SHM show the host path: not an issue.
    assert capture_checks("1199", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"].status == "not-an-issue"
