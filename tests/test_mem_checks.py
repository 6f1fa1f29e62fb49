"""MEM checks: row remapping/ECC, ECC mode, MIG, GPU sharing, HMM, pinned host memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import body, capture_checks, paste_checks
from nvidia_support import (
    PROC_VERSION_PROPRIETARY,
    QUERY_TEXT,
    TABLE_OLD,
    hgx,
    host_for,
    pcie_box,
    vllm_files,
)
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise, strip_header


def _one(host: Any, check_id: str) -> Any:
    return run_checks(host, [check_id])[check_id]


def _pasted(text: str) -> MemoryHost:
    return MemoryHost(recognise(text).record)


# --- MEM-ROW-REMAP-ECC ----------------------------------------------------------------------------


def test_pending_remap_and_failure() -> None:
    gpus = hgx(count=4)
    gpus[1]["remapped_rows"] = [0, 1, 1, 0]
    r = _one(host_for(gpus), "MEM-ROW-REMAP-ECC")
    assert r.status == "issue" and "pending" in r.message and "nvidia-smi -r -i 1" in r.fix.runtime
    gpus[2]["remapped_rows"] = [0, 8, 0, 1]
    r = _one(host_for(gpus), "MEM-ROW-REMAP-ECC")
    assert r.severity == "high" and r.fix_cost == "hardware" and "RMA" in r.message


def test_aggregate_correctable_is_not_an_issue_and_clean_is_ok() -> None:
    gpus = hgx(count=2, ecc_errors={"aggregate_corrected": 41})
    assert _one(host_for(gpus), "MEM-ROW-REMAP-ECC").status == "not-an-issue"
    assert _one(host_for(hgx(count=2)), "MEM-ROW-REMAP-ECC").status == "ok"
    assert _one(host_for(pcie_box("NVIDIA GeForce RTX 4090", 2)), "MEM-ROW-REMAP-ECC").status == "not-applicable"


def test_query_text_uncorrectable_and_pending() -> None:
    r = _one(_pasted(QUERY_TEXT), "MEM-ROW-REMAP-ECC")
    assert r.status == "issue" and "uncorrectable" in r.message and r.subjects == ("0000:41:00.0",)


def test_a_card_without_ecc_has_no_memory_errors_to_judge() -> None:
    # Corpus 1389: a Quadro P4000 whose table reads `Volatile Uncorr. ECC N/A`: a workstation card without ECC, so
    # nothing to remap, retire or count (both act on ECC errors).
    r = capture_checks("1389", "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"]
    assert r.status == "not-applicable" and "Quadro P4000 (a workstation card, ECC N/A)" in r.message
    assert r.coverage is not None and r.coverage.text() == "1 of 1 GPU shown"
    # A data-center board's N/A is a vGPU guest's (corpus 1327: GRID A100D-40C): it may have ECC.
    assert capture_checks("1327", "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"].status == "unknown"
    # NVML: the remapper and page retirement NotSupported, MIG NotSupported: no ECC bookkeeping at all.
    gpus = pcie_box("NVIDIA GeForce RTX 4090", 1, ecc_mode={"error": "no-permission"})
    r = _one(host_for(gpus), "MEM-ROW-REMAP-ECC")
    assert r.status == "not-applicable" and "row remapping and page retirement N/A, MIG off" in r.message


# The excerpt of corpus 1373 (a GeForce laptop GPU's `nvidia-smi -q`, cut inside Retired Pages), its first lines.
_RETIRED_CUT = """\
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows                         : N/A
    Temperature
        GPU Current Temp                  : 42 C
"""


def test_remapper_and_retirement_na_need_mig_ruled_out() -> None:
    # A MIG-enabled A100 shows Remapped Rows and Retired Pages N/A with ECC on (corpus 01): without the MIG mode or the
    # model, an excerpt reading both N/A stays unknown.
    r = _one(_pasted(body("1373")), "MEM-ROW-REMAP-ECC")
    assert r.status == "unknown"
    # Modelled: the same lines with the GPU's MIG mode shown N/A (no MIG on this GPU): no ECC bookkeeping at all.
    r = _one(_pasted(_RETIRED_CUT + "    MIG Mode\n        Current                           : N/A\n"),
             "MEM-ROW-REMAP-ECC")
    assert r.status == "not-applicable" and "row remapping and page retirement N/A" in r.message


# --- MEM-ECC-MODE ---------------------------------------------------------------------------------


def test_ecc_pending_and_mismatch() -> None:
    assert _one(_pasted(QUERY_TEXT), "MEM-ECC-MODE").status == "issue"
    gpus = hgx(count=2)
    gpus[1]["ecc_mode"] = [0, 0]
    r = _one(host_for(gpus), "MEM-ECC-MODE")
    assert r.status == "issue" and "differs" in r.message and r.priority == "P2"
    assert _one(host_for(hgx(count=2)), "MEM-ECC-MODE").status == "ok"


# --- MEM-MIG --------------------------------------------------------------------------------------


def test_mig_on_tp_gpus_is_high() -> None:
    files, procs = vllm_files("--tensor-parallel-size 4")
    gpus = hgx(count=4, mig_mode=[1, 1], mig_device_count=3)
    r = _one(host_for(gpus, extra_files=files, processes=procs), "MEM-MIG")
    assert r.status == "issue" and r.severity == "high" and "TP=4" in r.message
    assert "nvidia-smi -i 3 -mig 0" in r.fix.runtime


def test_mig_without_instances_and_deliberate_slicing() -> None:
    r = _one(host_for(hgx(count=1, mig_mode=[1, 1], mig_device_count=0)), "MEM-MIG")
    assert r.status == "issue" and "no instance" in r.message
    # Seven instances created and no engine on the host: slicing set up on purpose (tests/test_mig_by_hand.py).
    r = _one(host_for(hgx(count=1, mig_mode=[1, 1], mig_device_count=7)), "MEM-MIG")
    assert r.status == "not-an-issue" and "on purpose" in r.message
    assert _one(host_for(hgx(count=2)), "MEM-MIG").status == "ok"
    assert _one(host_for(pcie_box("NVIDIA L40S", 4)), "MEM-MIG").status == "not-applicable"


# --- MEM-GPU-SHARED -------------------------------------------------------------------------------


def test_display_and_foreign_process_on_serving_gpus() -> None:
    r = _one(_pasted(TABLE_OLD), "MEM-GPU-SHARED")
    assert r.status == "issue" and "display" in r.message and r.subjects == ("0000:02:00.0",)
    files, procs = vllm_files("--tensor-parallel-size 2", workers=2)
    gpus = pcie_box("NVIDIA GeForce RTX 4090", 2)
    gpus[0]["processes"] = {"compute": [{"pid": 4111, "used_memory": 21 * 2**30, "name": "VLLM::Worker_TP0"},
                                        {"pid": 7300, "used_memory": 3 * 2**30, "name": "python3"}], "graphics": []}
    gpus[1]["processes"] = {"compute": [{"pid": 4112, "used_memory": 21 * 2**30, "name": "VLLM::Worker_TP1"}],
                            "graphics": []}
    r = _one(host_for(gpus, extra_files=files, processes={**procs, 7300: "python3 train.py"}), "MEM-GPU-SHARED")
    assert r.status == "issue" and "pid 7300" in r.message and r.subjects == ("0000:01:00.0",)


def test_engine_only_is_ok_and_mps_is_flagged() -> None:
    files, procs = vllm_files("--tensor-parallel-size 2", workers=2)
    gpus = pcie_box("NVIDIA L40S", 2)
    for n, g in enumerate(gpus):
        g["processes"] = {"compute": [{"pid": 4111 + n, "used_memory": 40 * 2**30, "name": f"VLLM::Worker_TP{n}"}],
                          "graphics": []}
    assert _one(host_for(gpus, extra_files=files, processes=procs), "MEM-GPU-SHARED").status == "ok"
    r = _one(host_for(gpus, extra_files=files, processes={**procs, 990: "nvidia-cuda-mps-control -d"}),
             "MEM-GPU-SHARED")
    assert r.status == "issue" and "MPS" in r.message


# --- MEM-HMM / MEM-PINNED-HOST --------------------------------------------------------------------


def test_hmm_is_info_only() -> None:
    host = host_for(hgx(count=1), extra_files={"/sys/module/nvidia_uvm/parameters/uvm_disable_hmm": "N\n"})
    r = _one(host, "MEM-HMM")
    assert r.status == "ok" and "no evidence" in r.message
    assert _one(host_for(hgx(count=1), proc_version=PROC_VERSION_PROPRIETARY), "MEM-HMM").status == "not-applicable"


def test_pinned_offload_close_to_host_memory() -> None:
    files, procs = vllm_files("--tensor-parallel-size 8 --cpu-offload-gb 60")
    files["/proc/meminfo"] = "MemTotal:       527988360 kB\nMemAvailable:   201234568 kB\nMlocked: 0 kB\n"
    r = _one(host_for(hgx(), extra_files=files, processes=procs), "MEM-PINNED-HOST")
    assert r.status == "issue" and "480 GiB" in r.message
    files, procs = vllm_files("--tensor-parallel-size 8 --cpu-offload-gb 8")
    files["/proc/meminfo"] = "MemTotal:       2113470464 kB\nMemAvailable:   1901234568 kB\n"
    assert _one(host_for(hgx(), extra_files=files, processes=procs), "MEM-PINNED-HOST").status == "ok"
    files, procs = vllm_files("--tensor-parallel-size 8")
    assert _one(host_for(hgx(), extra_files=files, processes=procs), "MEM-PINNED-HOST").status == "not-applicable"


def test_sglang_hicache_pins_its_size_on_every_rank() -> None:
    # Modelled on corpus 2723 (sgl-project/sglang#14282): SGLang at TP 4 with a 40 GB HiCache host pool logs one
    # `Allocating 40.00 GB host memory` per rank, 160 GB of a host of 200 GiB; 40 GB alone would leave it ok.
    files, procs = vllm_files()
    procs = {pid: "/opt/vllm/bin/python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 4 "
                  "--enable-hierarchical-cache --hicache-size 40" for pid in procs}
    files["/proc/meminfo"] = "MemTotal:       209715200 kB\nMemAvailable:   201234568 kB\n"
    r = _one(host_for(hgx(count=4), extra_files=files, processes=procs), "MEM-PINNED-HOST")
    assert r.status == "issue" and "--hicache-size 40 GiB × TP 4" in r.message, r.message
    procs = {pid: cmd.replace("--enable-hierarchical-cache ", "") for pid, cmd in procs.items()}
    r = _one(host_for(hgx(count=4), extra_files=files, processes=procs), "MEM-PINNED-HOST")
    assert r.status == "not-applicable", r.message  # the size alone, without the cache enabled, pins nothing


# --- not applicable only where the source says the GPU lacks the feature --------------------------

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"


def _capture_host(name: str) -> MemoryHost:
    path = CAPTURES / name
    return _pasted(strip_header(path.read_text()))


def test_table_na_columns_are_not_applicable_and_unread_ecc_is_unknown() -> None:
    host = _capture_host("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt")
    results = run_checks(host, ["MEM-MIG", "MEM-ECC-MODE"])
    assert results["MEM-MIG"].status == "not-applicable" and results["MEM-ECC-MODE"].status == "not-applicable"
    gpus = hgx(count=2, ecc_mode={"error": "no-permission"}, mig_mode={"error": "no-permission"},
               remapped_rows={"error": "no-permission"},
               ecc_errors={k: {"error": "no-permission"} for k in ("volatile_corrected", "volatile_uncorrected",
                                                                   "aggregate_corrected", "aggregate_uncorrected")})
    results = run_checks(host_for(gpus), ["MEM-MIG", "MEM-ECC-MODE", "MEM-ROW-REMAP-ECC"])
    assert {k: r.status for k, r in results.items()} == {"MEM-MIG": "unknown", "MEM-ECC-MODE": "unknown",
                                                         "MEM-ROW-REMAP-ECC": "unknown"}


def test_a_process_whose_owner_is_not_in_the_source_is_unknown_not_ok() -> None:
    """Capture 33: a foreign vLLM holds 45 GB of the pod's only GPU; the paste cannot say it is foreign."""
    r = _one(_capture_host("33-h100-k8s-pod-shm-64m-memlock-64k-shared-gpu.txt"), "MEM-GPU-SHARED")
    assert r.status == "unknown" and "VLLM::EngineCore" in r.message


def test_mig_is_not_applicable_from_models_other_listings_name() -> None:
    """Without NVML or nvidia-smi, the models a CUDA program's log names decide MIG: GeForce and Volta have none.
    Corpus 1112 (ollama/ollama#10483, one RTX 4090 in ollama's log) and 1113 (ollama/ollama#12403, two RTX 4090 and
    a V100 in ollama's log)."""
    one = capture_checks("1112", "MEM-MIG")["MEM-MIG"]
    assert one.status == "not-applicable" and "RTX 4090" in one.message
    three = capture_checks("1113", "MEM-MIG")["MEM-MIG"]
    assert three.status == "not-applicable" and "V100" in three.message and "Volta" in three.message


def test_a_titan_the_user_names_has_no_mig() -> None:
    """Corpus 1171 (NVIDIA/nvidia-docker#1352): `nvidia-smi -q` cut before its GPU section, and the user's `I have a
    Titan-V GPU`: a Volta card, so MIG does not apply (the GPU table has no TITAN row; its architecture words read it)."""
    r = capture_checks("1171", "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-applicable" and "TITAN V" in r.message and "Volta" in r.message


def test_a_mig_capable_model_in_another_listing_leaves_mig_unknown(tmp_path: Path) -> None:
    """Modelled: a collect_env naming an A100 shows no MIG mode, and an A100 may run MIG."""
    text = "Collecting environment information...\nGPU models and configuration:\nGPU 0: NVIDIA A100-SXM4-80GB\n" \
           "Nvidia driver version: 550.54.15\n"
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "unknown"


def test_a_driver_before_r450_rules_mig_out_where_nothing_else_does() -> None:
    """MIG starts with R450 and the A100: an older driver runs no GPU in MIG mode, whatever the source leaves unshown.
    Corpus 1648 (NVIDIA/k8s-device-plugin#47: nvidia-smi's header, 367.124, cut before any GPU row), 1528
    (NVIDIA/k8s-device-plugin#139: 410.104, no GPU row), 251 (NVIDIA/nvidia-docker#1280: 430.64, the GPU's name an
    NVML error) and 227 (a committed nvidia-bug-report.log: 440.31 from the kernel log, no nvidia-smi)."""
    for prefix, driver in (("1648", "367.124"), ("1528", "410.104"), ("251", "430.64"), ("227", "440.31")):
        r = capture_checks(prefix, "MEM-MIG")["MEM-MIG"]
        assert r.status == "not-applicable" and f"driver {driver} predates MIG" in r.message, (prefix, r.message)
    # A model the table settles keeps its own reason (corpus 1747: a V100 under 440.64).
    volta = capture_checks("1747", "MEM-MIG")["MEM-MIG"]
    assert volta.status == "not-applicable" and "Volta" in volta.message


def test_a_driver_of_r450_or_later_leaves_mig_open(tmp_path: Path) -> None:
    """Modelled on 1648: the same header cut before its GPU rows under 450.80.02, the A100's first MIG driver."""
    text = body("1648").replace("367.124", "450.80.02")
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "unknown"


def test_cuda_devices_unavailable_on_a_mig_gpu_proves_mig_in_the_way() -> None:
    """Corpus 1145 (NVIDIA/gpu-operator#129): the validator's `all CUDA-capable devices are busy or unavailable` on an
    A100 whose table shows MIG on (its MIG cell `On`, cut before the instances)."""
    r = capture_checks("1145", "MEM-MIG")["MEM-MIG"]
    assert r.status == "issue" and "error 46" in r.message and "busy or unavailable" in r.message


def test_cuda_devices_unavailable_without_mig_is_not_migs(tmp_path: Path) -> None:
    """Modelled: the same error beside a table whose MIG cell reads Disabled: another cause (compute mode, a full
    GPU), not MIG's."""
    text = body("1145").replace("|                   On |", "|             Disabled |", 1)
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status != "issue"


def test_cuda_devices_unavailable_on_a_mig_gpu_covers_the_gpus_the_table_shows() -> None:
    """Corpus 1145: the symptom proves MIG's failure only where the table shows MIG on, so the issue covers the GPUs
    that table judged (1 GPU shown), as the facts' own verdict did."""
    r = capture_checks("1145", "MEM-MIG")["MEM-MIG"]
    assert r.coverage is not None and r.coverage.text() == "1 GPU shown"


# Modelled on corpus 1232 (ggml-org/llama.cpp#3235: an A100 with MIG on, no instance listed, llama.cpp failing to
# start): llama.cpp's own words when CUDA finds no device, which the paste itself does not hold.
_NO_DEVICE = "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected"


def test_no_cuda_device_on_a_mig_gpu_is_migs_failure(tmp_path: Path) -> None:
    """MIG on with no instance: CUDA sees no device on that GPU, so an engine's `no CUDA-capable device` is MIG's."""
    text = body("1232") + f"\n```\n{_NO_DEVICE}\n```\n"
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "issue" and "cudaErrorNoDevice" in r.message and "MIG mode" in r.message
    assert r.coverage is not None and r.coverage.shown == ("0000:00:05.0",)


def test_no_cuda_device_is_not_migs_where_mig_is_off_or_the_failure_not_shown(tmp_path: Path) -> None:
    """The same line beside a table whose MIG cell reads Disabled is another fault (a driver not loaded); and MIG on
    with no failure shown stays the host's choice (corpus 1232 as pasted: no engine's failure in the paste)."""
    off = body("1232").replace("|              Enabled |", "|             Disabled |", 1)
    assert "Disabled" in off
    r = paste_checks(tmp_path, off + f"\n```\n{_NO_DEVICE}\n```\n", "MEM-MIG")["MEM-MIG"]
    assert r.status != "issue"
    assert capture_checks("1232", "MEM-MIG")["MEM-MIG"].status == "not-an-issue"


def test_ecc_ok_claims_nothing_pending_only_where_the_pending_mode_is_read() -> None:
    """The nvidia-smi table shows the current ECC mode only (corpus 1145, its cell `On`); NVML reads the pending one."""
    table = capture_checks("1145", "MEM-ECC-MODE")["MEM-ECC-MODE"]
    assert table.status == "ok" and "pending mode not in this source" in table.message
    live = _one(host_for(hgx()), "MEM-ECC-MODE")
    assert live.status == "ok" and "nothing pending" in live.message


def test_a_display_on_one_gpu_is_judged_over_every_gpu_the_table_shows() -> None:
    # Corpus 472: a display on GPU 1 of two RTX 3090s whose table shows both; corpus 470: one RTX 4090.
    for prefix, text in (("472", "2 GPUs shown"), ("470", "1 GPU shown")):
        result = capture_checks(prefix, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
        assert result.status == "issue" and "a display is active" in result.message, (prefix, result.message)
        assert result.coverage is not None and result.coverage.text().replace("1 of 1 GPU", "1 GPU") \
            .replace("2 of 2 GPUs", "2 GPUs") == text, (prefix, result.coverage)


# Corpus 560 (NVIDIA/open-gpu-kernel-modules, a GTX 1660 Ti desktop): the kernel log's Xid names Chrome on the GPU.
XID_CHROME_560 = """\
NVRM: Xid (PCI:0000:08:00): 31, pid=169800, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
"""


def test_an_xid_of_a_desktop_program_without_serving_work_is_a_desktops_gpu(tmp_path: Path) -> None:
    result = capture_checks("560", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue" and "chrome" in result.message
    result = paste_checks(tmp_path, XID_CHROME_560, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue"
    # Modelled: the same Xid of a serving engine's process names no desktop: the check still asks for nvidia-smi.
    engine = XID_CHROME_560.replace("name=chrome", "name=llama-server")
    assert paste_checks(tmp_path, engine, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"
