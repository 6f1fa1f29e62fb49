"""llama.cpp's `failed to mlock` warning: a memlock limit that matters to no RDMA.

llama.cpp prints `warning: failed to mlock N-byte buffer (after previously locking M bytes): Cannot allocate memory`
where `--mlock` (use_mlock) could not lock its weights: RLIMIT_MEMLOCK is below N + M bytes. llama.cpp runs no NCCL
and registers no memory with an RDMA NIC, so a log of it alone shows a limit that is not an issue: CTR-MEMLOCK
not-an-issue (corpus 2023). An NCCL line in the same log leaves the job's RDMA use open. The lines are real, from the
threads named; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

MEMLOCK = "CTR-MEMLOCK"

# abetlen/llama-cpp-python#618 (in Docker): the warning after llama.cpp's system info.
PYTHON_DOCKER = """\
AVX = 0 | AVX2 = 0 | AVX512 = 0 | AVX512_VBMI = 0 | AVX512_VNNI = 0 | FMA = 0 | NEON = 0 | ARM_FMA = 0 | F16C = 0 | FP16_VA
warning: failed to mlock 73728000-byte buffer (after previously locking 0 bytes): Cannot allocate memory
Try increasing RLIMIT_MLOCK ('ulimit -l' as root).
"""
# h2oai/h2ogpt#812 (two L4 GPUs): between llama.cpp's loader and its context set-up.
H2OGPT = """\
llama_model_load_internal: total VRAM used: 8106 MB
warning: failed to mlock 139264000-byte buffer (after previously locking 0 bytes): Cannot allocate memory
Try increasing RLIMIT_MLOCK ('ulimit -l' as root).
llama_new_context_with_model: kv self size  = 1024.00 MB
"""
# Modelled: the same warning in a log that also shows NCCL over InfiniBand: the job's RDMA use is not llama.cpp's.
WITH_NCCL = H2OGPT + """\
node1:2211:2290 [0] NCCL INFO NCCL version 2.18.1+cuda12.1
node1:2211:2290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>
"""


def test_the_warning_bounds_the_limit() -> None:
    log = parse_serving_log(H2OGPT)
    assert log.engine == "llamacpp"
    assert log.mlock_failed is not None and log.mlock_failed[0] == 139264000
    assert parse_serving_log(PYTHON_DOCKER).mlock_failed is not None


def test_llamacpp_alone_is_not_an_issue(tmp_path: Path) -> None:
    for text in (PYTHON_DOCKER, H2OGPT):
        result = paste_checks(tmp_path, text, MEMLOCK)[MEMLOCK]
        assert result.status == "not-an-issue", result.message
        assert "below" in result.message and "llama.cpp" in result.message
    assert capture_checks("2023", MEMLOCK)[MEMLOCK].status == "not-an-issue"


def test_an_nccl_job_beside_it_is_not_settled(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, WITH_NCCL, MEMLOCK)[MEMLOCK].status != "not-an-issue"
