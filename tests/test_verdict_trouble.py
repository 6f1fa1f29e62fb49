"""Where no finding stands, the verdict answers the question the paste shows: a hang or a failure a pasted log or
the user's own words show is named, quoted; else low throughput, with the `stackaudit ceiling` command to run.
Each case is read through `audit --from` into the JSON `verdict`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import body
from stackaudit.cli.main import main
from stackaudit.facts._parse import ParseError
from stackaudit.facts.trouble import find_trouble

# Real: https://github.com/vllm-project/vllm/issues/6042 (issue body by youkaichao), vLLM's log of a TP run whose
# all-reduce hung until PyTorch's watchdog ended it, an excerpt.
WATCHDOG_6042 = """\
ERROR 07-01 13:54:43 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 1159 died, exit code: -6
INFO 07-01 13:54:43 multiproc_worker_utils.py:123] Killing local vLLM worker processes
[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=134217728, NumelOut=134217728, Timeout(ms)=600000) ran for 600059 milliseconds before timing out.
"""
# Real: https://github.com/vllm-project/vllm/issues/3071 (issue body by liulisi16323), vLLM 0.3.1 with Ray, verbatim.
WATCHDOG_3071 = ("(RayWorkerVllm pid=1394) [E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation "
                 "timeout: WorkNCCL(SeqNum=4967570, OpType=ALLREDUCE, NumelIn=73728, NumelOut=73728, "
                 "Timeout(ms)=1800000) ran for 1800542 milliseconds before timing out.\n")
# Modelled: SGLang's server-args log line, a timeout that is a setting and not a hang.
SETTING = "[2025-06-01 10:00:00] server_args=ServerArgs(tp_size=8, watchdog_timeout=300, dist_timeout=None)\n"


@pytest.fixture(autouse=True)
def own_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME of this test's own: no `bench` history left by other runs gives a measured rate."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    paste = tmp_path / "paste.txt"
    paste.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json"]) == 0
    return str(json.loads(capsys.readouterr().out)["verdict"])


@pytest.mark.parametrize(("prefix", "said"), [
    ("68", "explains the hang (“However, as long as I set tensor-parallel-size > 1, it will get stuck"),  # user's words
    ("314", "explains the failure (“ERROR 11-19 06:08:46 multiproc_worker_utils.py:229] Exception in worker"),  # a traceback in the log (the worker prefix read off)
    # ollama's journal at INFO level while it waits on a runner that died: the quote starts near the error it names.
    ("1398", 'explains the failure (“…msg="waiting for server to become available" status="llm server error"”)'),
])
def test_a_capture_that_shows_a_hang_or_failure_names_it(prefix: str, said: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body(prefix))
    assert verdict.startswith("nothing found below the engine that " + said)
    assert "throughput" not in verdict


@pytest.mark.parametrize("log", [WATCHDOG_6042, WATCHDOG_3071])
def test_a_watchdog_timeout_in_the_log_is_a_hang(log: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, log)
    assert verdict.startswith("nothing found below the engine that explains the hang (“")
    assert "Watchdog caught collective" in verdict


def test_a_log_with_throughput_figures_keeps_the_throughput_verdict_and_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body("217"))  # SGLang's decode log: `gen throughput (token/s)` lines
    assert verdict.startswith("nothing found that explains low throughput; next: measure against the ceiling: "
                              "`stackaudit ceiling --model MODEL --gpu ")
    assert "--measured TOK/S`" in verdict


def test_the_ceiling_command_names_the_gpus_the_source_shows(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    verdict = _verdict(tmp_path, capsys, body("322"))  # check_env: eight H100s, no log
    assert "`stackaudit ceiling --model MODEL --gpu 'NVIDIA H100 80GB HBM3' --gpus 8 --measured TOK/S`" in verdict


def test_a_timeout_setting_is_not_a_hang() -> None:
    with pytest.raises(ParseError):
        find_trouble(SETTING + "python -m sglang.launch_server --watchdog-timeout 300\n")


def test_a_paste_naming_no_engine_gpu_or_rate_gets_no_ceiling_of_placeholders(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1412 (a device plugin's log cut at its config) names no engine, GPU model or rate: the verdict points to
    the steps that settle the rest, not to `stackaudit ceiling --model MODEL --gpu GPU --measured TOK/S`."""
    verdict = _verdict(tmp_path, capsys, body("1412"))
    assert verdict.startswith("no fault found in what this paste shows; next: the steps below settle")
    assert "stackaudit ceiling" not in verdict


def test_a_cuda_init_failure_at_info_level_leads_with_the_check_that_answers_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1565: ollama logs `cuda driver library init failure: 3` at INFO level, no throughput in sight. The
    verdict quotes it, says the driver is new enough for the CUDA it runs (DRV-CUDA-COMPAT ok), and sends the user to
    the driver's side of CUDA on the host, not to `stackaudit ceiling`."""
    verdict = _verdict(tmp_path, capsys, body("1565"))
    assert verdict.startswith("nothing found below the engine that explains the failure (“")
    assert "cuda driver library init failure: 3" in verdict
    assert "; DRV-CUDA-COMPAT: fine here, driver 575.57.08 supports CUDA 12.9; next: " in verdict
    assert "lsmod | grep nvidia_uvm" in verdict and "throughput" not in verdict


def test_an_oom_that_no_other_process_explains_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1523: TGI's `torch.cuda.OutOfMemoryError` with nvidia-smi showing its own shard holding the GPU
    (MEM-GPU-SHARED not-an-issue): the verdict names that answer and points to the engine's own budget."""
    verdict = _verdict(tmp_path, capsys, body("1523"))
    assert "(“torch.cuda.OutOfMemoryError: CUDA out of memory.”); MEM-GPU-SHARED: looks wrong, is fine here" in verdict
    assert verdict.endswith("its own budget runs out")


def test_a_cuda_error_mid_run_points_to_the_kernel_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1324: ollama stops on `CUDA error: unknown error` after minutes of work; no kernel log is pasted. The
    verdict quotes it and asks for the Xid lines, not for the engine's log (the error may be the GPU's)."""
    verdict = _verdict(tmp_path, capsys, body("1324"))
    assert verdict.startswith("nothing found below the engine that explains the failure (“CUDA error: unknown error”)")
    assert "grep -iE 'xid|nvrm'" in verdict


@pytest.mark.parametrize(("line", "checks"), [
    # Modelled on TensorFlow's and PyTorch's words for a CUDA that does not start.
    ("E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: CUDA_ERROR_NO_DEVICE",
     ("DRV-CUDA-COMPAT",)),
    ("RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.", ("DRV-CUDA-COMPAT",)),
    # Modelled on ggml's error line as a runner prints it before it exits.
    ("CUDA error 2 at /go/src/llama.cpp/ggml-cuda.cu:7636: out of memory", ("MEM-GPU-SHARED",)),
    ("CUDA error: an illegal memory access was encountered", ("DRV-XID",)),
    ("ValueError: bad argument", ()),
])
def test_a_failure_line_names_the_checks_that_answer_it(line: str, checks: tuple[str, ...]) -> None:
    trouble = find_trouble(line + "\n")
    assert trouble.kind == "failure" and trouble.checks == checks


def test_a_decode_stall_beside_a_long_prefill_is_the_engines_scheduling(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1570: vLLM's metrics show 0.9 tokens/s generated with 2 requests running, then a window with 7408.7
    prompt tokens/s: the verdict says the engine's own lines show a long prefill holding decode back, not the host,
    in place of the throughput verdict with its ceiling of placeholders."""
    verdict = _verdict(tmp_path, capsys, body("1570"))
    assert verdict.startswith("nothing found below the engine that explains the decode stall (“Avg prompt throughput: "
                              "0.0 tokens/s, Avg generation throughput: 0.9 tokens/s")
    assert "beside a prefill at 7408.7 prompt tokens/s in the next window" in verdict
    assert "the engine's scheduling, not the host's" in verdict and "stackaudit ceiling" not in verdict


# Modelled on vLLM v1's metrics line: one request decoding steadily, then a second request's prefill beside it that
# does not slow it down (no stall), and a window of no requests at all.
_STEADY = "".join(
    f"INFO 09-07 06:35:{s} [loggers.py:310] Engine 000: Avg prompt throughput: {p} tokens/s, Avg generation "
    f"throughput: {g} tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit "
    f"rate: 0.0%\n" for s, p, g, r in (("10", "0.0", "40.1", "1"), ("20", "5120.0", "38.0", "2"),
                                        ("30", "0.0", "0.0", "0")))


def test_a_prefill_without_a_stall_is_no_trouble() -> None:
    from stackaudit.facts.trouble import decode_stall

    with pytest.raises(ParseError):
        decode_stall(_STEADY)
