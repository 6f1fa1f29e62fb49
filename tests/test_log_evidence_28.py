"""Issue 28, log evidence of the second blind run: lines that settle a check although its usual facts are missing.

- AER lines beside a GPU the driver can no longer open (nvidia-smi's "Unable to determine the device handle")
  are FW-AER-ERRORS' issue, as AER lines beside a GPU that fell off the bus are.

The lines are real, verbatim from the public thread named beside each (the corpus files of tests/data/captures
name theirs in their header); modelled counter-examples and joins are said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CAPTURES = Path(__file__).parent / "data" / "captures"


pasted, capture = paste_checks, capture_checks


# --- AER lines beside a GPU the driver can no longer open -------------------------------------------

# rwth-i6/returnn#1486 (corpus 219, lines 13-20 of its capture): corrected Data Link Layer timeouts on the root port.
RETURNN_1486_AER = """\
[  +0.000316] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0
[  +0.000005] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)
[  +0.000003] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00001000/00002000
[  +0.000004] pcieport 0000:00:03.0:    [12] Timeout
[  +0.000213] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0
[  +0.000006] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)
[  +0.000003] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00001000/00002000
[  +0.000003] pcieport 0000:00:03.0:    [12] Timeout
"""
# nvidia-smi's line for a GPU it cannot open, verbatim: NVIDIA/open-gpu-kernel-modules#387 (the GPU "falls out of
# the bus", fixed by reseating it), JosephKJ/OWOD#81 (NVML's "GPU is lost"), haotian-liu/LLaVA#1466 (after hours of
# fine-tuning on eight A100s).
NO_HANDLE = (
    ("Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n", "0000:0b:00.0"),
    ("Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this "
     "GPU\n", "0000:02:00.0"),
    ("Unable to determine the device handle for GPU0000:4F:00.0: Unknown Error\n", "0000:4f:00.0"),
)


def test_aer_lines_beside_a_gpu_the_driver_cannot_open_are_an_issue() -> None:
    got = capture("219", "FW-AER-ERRORS", "DRV-XID")
    assert got["FW-AER-ERRORS"].status == "issue" and "0000:03:00.0" in got["FW-AER-ERRORS"].message
    assert got["DRV-XID"].status == "unknown"  # no Xid line in the excerpt: not read as a lost GPU's Xid


@pytest.mark.parametrize(("line", "bdf"), NO_HANDLE)
def test_each_threads_no_handle_line_joins_the_aer_lines(tmp_path: Path, line: str, bdf: str) -> None:
    # Modelled join: each thread's real nvidia-smi line, then returnn#1486's real AER lines in a second fence.
    text = f"```\n$ nvidia-smi\n{line}```\n```\n$ dmesg\n{RETURNN_1486_AER}```\n"
    result = pasted(tmp_path, text, "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert result.status == "issue" and bdf in result.message.lower()


@pytest.mark.parametrize(("line", "bdf"), NO_HANDLE)
def test_a_gpu_the_driver_cannot_open_without_aer_lines_is_no_aer_finding(tmp_path: Path, line: str, bdf: str) -> None:
    result = pasted(tmp_path, f"$ nvidia-smi\n{line}", "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert result.status != "issue"


def test_corrected_aer_lines_alone_stay_open(tmp_path: Path) -> None:
    # Modelled counter-example: the same relative-stamped lines with every GPU reachable: no uptime, no lost GPU.
    result = pasted(tmp_path, f"$ dmesg\n{RETURNN_1486_AER}", "FW-AER-ERRORS")["FW-AER-ERRORS"]
    assert result.status != "issue"


# --- a vLLM server started by functionary's launcher ------------------------------------------------

# MeetKai/functionary's `server_vllm.py` runs vLLM's engine in-process and takes vLLM's flags. Verbatim: its README
# (https://github.com/MeetKai/functionary/pull/145, the README lines it adds) and corpus 213 (vllm-project/vllm#4760).
FUNCTIONARY_README = (
    'python3 server_vllm.py --model "meetkai/functionary-small-v2.4" --host 0.0.0.0 --max-model-len 8192\n',
    'python3 server_vllm.py --model "meetkai/functionary-medium-v2.4" --max-model-len 8192 --tensor-parallel-size 2\n',
)


def test_functionarys_launcher_is_a_vllm_command_line() -> None:
    got = capture("213", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE")
    assert got["RT-CUDA-GRAPHS"].status == "issue" and "--enforce-eager" in got["RT-CUDA-GRAPHS"].message
    assert got["IC-CUSTOM-ALLREDUCE"].status == "not-applicable" and "TP=1" in got["IC-CUSTOM-ALLREDUCE"].message


@pytest.mark.parametrize(("line", "tp"), list(zip(FUNCTIONARY_README, (1, 2), strict=True)))
def test_the_launchers_tp_is_read_or_the_engines_default(tmp_path: Path, line: str, tp: int) -> None:
    from stackaudit.facts.processes import classify

    assert classify(tuple(line.split()[:2])) is not None
    result = pasted(tmp_path, f"```\n{line}```\n", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert f"TP={tp}" in result.message


def test_another_script_is_no_engine_command() -> None:
    from stackaudit.facts.engine_command import parse_command_line

    # Modelled counter-examples: a script that only names vLLM in its path, and functionary's other server.
    assert parse_command_line("python3 tools/vllm_bench/serve_report.py --model m") is None
    assert parse_command_line('python3 server.py --model "meetkai/functionary-7b-v2"') is None


# --- the memory an engine found free at its start ---------------------------------------------------

# https://github.com/batteries-included/batteries-included/pull/1663 (JTarasovic): one A10G, headless.
A10G = ('time=2025-02-26T21:01:23.251Z level=INFO source=types.go:131 msg="inference compute" '
        'id=GPU-dd1f9e61-27e0-16ad-dd71-766641270fd6 library=cuda variant=v12 compute=8.6 driver=12.2 '
        'name="NVIDIA A10G" total="22.0 GiB" available="21.7 GiB"\n')
# https://github.com/ollama/ollama/pull/10569 (dhiltgen): Windows, the desktop on the RTX 2080 Ti.
RTX_2080TI = ('time=2025-05-05T16:11:49.763-07:00 level=INFO source=types.go:130 msg="inference compute" '
              'id=GPU-d6de3398-9932-6902-11ec-fee8e424c8a2 library=cuda variant=v12 compute=7.5 driver=12.1 '
              'name="NVIDIA GeForce RTX 2080 Ti" total="11.0 GiB" available="9.9 GiB"\n')


def test_nothing_held_at_the_engines_start_is_no_shared_gpu(tmp_path: Path) -> None:
    result = capture("244", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok" and result.coverage is not None and result.coverage.count == 4
    result = pasted(tmp_path, A10G, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok" and "0.3 GiB" in result.message


def test_memory_held_at_the_start_is_reported_not_judged(tmp_path: Path) -> None:
    result = pasted(tmp_path, RTX_2080TI, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "1.1 GiB" in result.message
    # Modelled: the A10G line with 6 GiB held by something else at ollama's start.
    held = A10G.replace('available="21.7 GiB"', 'available="16.0 GiB"')
    assert pasted(tmp_path, held, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"


def test_without_gpu_memory_lines_the_check_still_asks_for_nvidia_smi(tmp_path: Path) -> None:
    # Modelled: ollama's line without its memory fields (older releases): nothing to judge from.
    line = A10G.split(' total=')[0] + "\n"
    result = pasted(tmp_path, line, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "nvidia" in result.message


def test_a_gpu_nvidia_smi_may_not_open_is_no_lost_link(tmp_path: Path) -> None:
    # Modelled: the same nvidia-smi line with NVML's permission error, beside returnn#1486's AER lines.
    line = "Unable to determine the device handle for GPU 0000:0B:00.0: Insufficient Permissions\n"
    text = f"```\n$ nvidia-smi\n{line}```\n```\n$ dmesg\n{RETURNN_1486_AER}```\n"
    assert pasted(tmp_path, text, "FW-AER-ERRORS")["FW-AER-ERRORS"].status != "issue"


# ollama's NVML skew line, which it logs only where it loaded NVML: on native Windows (nvml.dll). Real pairs: ollama
# PR #10569 (corpus 2074, RTX 2080 Ti), an RTX 4050 Laptop GPU and an RTX 3090 log beside gpu_windows.go lines in
# public Windows set-up notes.
_OVERHEAD = ('time=2025-05-05T16:11:49.762-07:00 level=INFO source=gpu.go:319 msg="detected OS VRAM overhead" '
             'id=GPU-{id} library=cuda compute={cc} driver={drv} name="{name}" overhead="{mib} MiB"\n')
_COMPUTE = ('time=2025-05-05T16:11:49.763-07:00 level=INFO source=types.go:130 msg="inference compute" id=GPU-{id} '
            'library=cuda variant=v12 compute={cc} driver={drv} name="{name}" total="{total} GiB" available="{free} GiB"\n')


@pytest.mark.parametrize(("name", "cc", "drv", "mib", "total", "free"), [
    ("NVIDIA GeForce RTX 2080 Ti", "7.5", "12.1", "590.9", "11.0", "9.9"),
    ("NVIDIA GeForce RTX 4050 Laptop GPU", "8.9", "12.0", "846.0", "6.0", "5.0"),
    ("NVIDIA GeForce RTX 3090", "8.6", "12.6", "189.4", "24.0", "22.8"),
])
def test_ollamas_os_vram_overhead_line_marks_native_windows(tmp_path: Path, name: str, cc: str, drv: str, mib: str,
                                                           total: str, free: str) -> None:
    fields = {"id": "d6de3398-9932-6902-11ec-fee8e424c8a2", "cc": cc, "drv": drv, "name": name}
    text = _OVERHEAD.format(mib=mib, **fields) + _COMPUTE.format(total=total, free=free, **fields)
    result = pasted(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue" and "native Windows" in result.message, result.message
