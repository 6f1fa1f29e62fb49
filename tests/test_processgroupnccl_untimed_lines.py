"""torch's ProcessGroupNCCL lines under c10's prefix without its time (`[I ProcessGroupNCCL.cpp:672]`), as torch
before 2.2 printed them.

They are torch.distributed's NCCL process group at work, read as the server log they belong to like the timed form
(`[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785]`): corpus 2006's options dump is a log, not the user's NCCL
settings. The option lines under it (NCCL_ASYNC_ERROR_HANDLING, NCCL_BLOCKING_WAIT) are torch's own, not NCCL's
transports: IC-NCCL-ENV stays not-an-issue. The lines are real, from the threads named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, capture_report, paste_checks, report_spans
from stackaudit.facts.serving_logs import is_log_line

# NVIDIA/nccl#1241 (corpus 2006): torch's process group options, in an NGC container.
OPTIONS = """\
[I ProcessGroupNCCL.cpp:850] [Rank 0] NCCL watchdog thread started!
[I ProcessGroupNCCL.cpp:672] [Rank 0] ProcessGroupNCCL initialized with following options:
NCCL_ASYNC_ERROR_HANDLING: 1
NCCL_DESYNC_DEBUG: 0
NCCL_BLOCKING_WAIT: 0
TIMEOUT(ms): 1800000
USE_HIGH_PRIORITY_STREAM: 0
"""
# vllm-project/vllm#6042: a Ray worker's rank taking itself down after the watchdog's timeout.
RAY_WORKER = ("(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:577] [Rank 1] Some NCCL operations have "
              "failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might "
              "run on corrupted/incomplete data.")
# pytorch/pytorch#118369: the watchdog's timeout under the untimed prefix (read before by its words).
WATCHDOG = ("[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL("
            "SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.")
# Modelled: a C++ file of another name under the same prefix is no ProcessGroupNCCL line.
OTHER = "[I socket.cpp:624] [c10d] The client socket has connected to [localhost]:29500"


def test_untimed_lines_are_log_lines() -> None:
    first, second = OPTIONS.splitlines()[:2]
    assert is_log_line(first) and is_log_line(second)
    assert is_log_line(RAY_WORKER) and is_log_line(WATCHDOG)
    assert not is_log_line(OTHER)
    assert not is_log_line("NCCL_ASYNC_ERROR_HANDLING: 1")


def test_torch_options_disable_no_transport(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, OPTIONS, "IC-NCCL-ENV")["IC-NCCL-ENV"].status == "not-an-issue"
    assert capture_checks("2006", "IC-NCCL-ENV")["IC-NCCL-ENV"].status == "not-an-issue"


# torch's DistBackendError with NCCL's result under it, as the traceback's end prints it: the error a rank raised from
# NCCL, pasted with no NCCL INFO line (corpus 2318: pytorch/pytorch#177472; 1599: torchtitan; 1081: LLaMA-Factory under
# torchrun, each line behind `[rank0]: `).
def test_torch_nccl_error_is_nccls_log() -> None:
    for prefix, first in (("2318", "torch.distributed.DistBackendError: NCCL error in:"),
                          ("1599", "torch.distributed.DistBackendError: NCCL error in:"),
                          ("1081", "[rank0]: torch.distributed.DistBackendError: NCCL error in:")):
        lines = body(prefix).splitlines()
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(first))
        assert is_log_line(lines[at]) and is_log_line(lines[at + 1]), prefix
        assert any(kind == "server log" and start <= at + 1 <= end
                   for kind, start, end in report_spans(capture_report(prefix))), prefix
    # Modelled: the same words in prose, and another library's error of the same shape, are no log line.
    assert not is_log_line("I got an NCCL error in my job, see below")
    assert not is_log_line("cudaErrorInvalidValue: invalid argument")
