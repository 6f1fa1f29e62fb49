"""Issue 28: a failure written in a log proves its check on its own (facts/symptoms.py), and an
excerpt's GPU count never proves that the host has no other GPU.

The lines are real, verbatim from the public thread named beside each (or a corpus file of
tests/data/captures); modelled counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.symptoms import GGML_SYMPTOMS, SYMPTOMS, find_symptoms
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

CAPTURES = Path(__file__).parent / "data" / "captures"
HEALTHY = "nothing found that explains low throughput"

# NVIDIA/nccl-tests#166 (SweeneyJun): NCCL's two lines when /dev/shm is too small.
NCCL_TESTS_166 = """\
ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes

ubuntu:9621:9691 [6] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-fjwOOB (size 5967872)
ubuntu:9621:9691 [6] NCCL INFO transport/shm.cc:114 -> 2
"""
# ai-dynamo/dynamo#1408 (yunzhuangshen): the same failure with a timestamp prefix and the errno, TP 2 in a k8s pod.
DYNAMO_1408 = """\
[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-YrFC5V to 33030532 bytes, error: No space left on device (28)

[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:129 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-YrFC5V (size 33030528), error: No space left on device (28)
"""
# fal-ai-community/video-diffusion-speedrun#2 (corpus 51, line 13): the error quoted in prose.
SPEEDRUN_2 = ("It almost worked except for the `Error while creating shared memory segment /dev/shm/nccl-pZafXL "
              "(size 7340384)` when I tried it first time (Docker version 24.0.7, build 24.0.7-0ubuntu2~22.04.1)\n")
# NVIDIA/nccl#328 (qysnn): creation failed on a permission, fixed by `chmod 777 /dev/shm`, not by a size.
NCCL_328 = """\
node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied
node08:27106:27302 [0] NCCL INFO include/shm.h:41 -> 2
node08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)
"""
# leptonai/gpud#1174 (gyuho): kmsg lines of NVLink Xids 149 and 145.
GPUD_1174 = """\
NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)
NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)
"""


def _run(text: str, *checks: str) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    results = run_checks(MemoryHost(recognise(text).record), list(checks))
    return {cid: (r.status, r.message, tuple(r.evidence)) for cid, r in results.items()}


def _capture(prefix: str, *checks: str) -> dict[str, tuple[str, str]]:
    path = next(CAPTURES.glob(prefix + "-*.txt"))
    results = run_checks(load_pasted([str(path)]), list(checks))
    return {cid: (r.status, r.message) for cid, r in results.items()}


# --- rule 1: symptoms as evidence -------------------------------------------------------------


def test_every_symptom_names_a_check_a_severity_and_its_document() -> None:
    from stackaudit.checks.registry import CHECKS, load_all

    load_all()
    for s in SYMPTOMS:
        # A row that proves no check's failure only rules checks out (`clears`), names the checks that would say why
        # (`suspects`), leaves a check's ok unproven (`doubts`: ollama's CPU runner) or shows the program at work whose
        # lines it is (GGML_SYMPTOMS: ggml's CUDA error block).
        assert (s.check in CHECKS) if s.check else bool(s.clears or s.suspects or s.doubts or s.name in GGML_SYMPTOMS), \
            s.name
        assert all(c in CHECKS for c in s.clears + s.suspects + s.doubts), s.name
        assert not s.ggml_check or s.ggml_check in CHECKS, s.name
        assert bool(s.doubted) == bool(s.doubts), s.name  # a row that leaves an ok unproven says why
        assert bool(s.cleared) == bool(s.clears), s.name  # a row that rules checks out says why
        assert s.severity in ("high", "medium", "low") and s.source.startswith("https://") and s.proves, s.name


def test_nccl_shm_lines_alone_prove_shm_size_with_the_line_quoted() -> None:
    # Three threads; none of them shows a container, a df or a docker run: the log line is the proof.
    for text, quoted in ((NCCL_TESTS_166, "failed to extend /dev/shm/nccl-fjwOOB"),
                         (DYNAMO_1408, "failed to extend /dev/shm/nccl-YrFC5V"),
                         (SPEEDRUN_2, "Error while creating shared memory segment /dev/shm/nccl-pZafXL")):
        status, message, evidence = _run(text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert status == "issue", (text, message)
        assert quoted in message and any(quoted in line for line in evidence)
        assert "in a container: raise --shm-size" in message


def test_a_symptom_outweighs_a_size_that_looks_fine() -> None:
    # Modelled: a docker run with --shm-size=16g (ok on its own) and NCCL's failure line of NVIDIA/nccl-tests#166.
    text = "docker run --gpus all --rm --shm-size=16g -it vllm/vllm-openai --tensor-parallel-size 2\n" + NCCL_TESTS_166
    status, message, evidence = _run(text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert status == "issue"
    assert "the other evidence alone said ok" in message and "16 GiB" in message
    assert any("nccl-fjwOOB" in line for line in evidence)


def test_shm_failure_of_permission_is_not_a_size_symptom() -> None:
    # NVIDIA/nccl#328: the creation failure follows `Permission denied`: not proof that /dev/shm is too small.
    assert find_symptoms(NCCL_328.splitlines()) == ()
    assert _run(NCCL_328, "CTR-SHM-SIZE")["CTR-SHM-SIZE"][0] != "issue"


def test_healthy_nccl_shm_lines_are_no_symptom() -> None:
    # Modelled on NCCL INFO lines of a working run: SHM transport in use, segments created.
    lines = ["host:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
             "host:1:2 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 0.",
             "kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, name=python3, Graphics Exception",
             "kernel: NVRM: Xid (PCI:0000:3b:00): 45, pid=1234, name=python3, Ch 00000001"]
    # The Xid 13 of python3 is an application fault (DRV-XID judges it from the kernel log, no symptom), not a
    # shared-memory symptom; 45 is neither.
    assert find_symptoms(lines) == ()


def test_nvlink_xids_reach_nvlink_health_without_gpu_information() -> None:
    # Corpus 120 (NVIDIA/open-gpu-kernel-modules#1150): Xid 45 caused by NVLink Xids 145/149.
    status, message = _capture("120", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "caused by previous Xid 149" in message
    assert "Fabric Manager" in message and "nvlink -s" in message
    # leptonai/gpud#1174: the NVLink Xids themselves.
    status, message, evidence = _run(GPUD_1174, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "149, NETIR Fatal" in message and len(evidence) == 2


def test_on_an_nvswitch_system_the_message_names_fabric_manager_plainly() -> None:
    from stackaudit.checks.drv import nvlink_health
    from stackaudit.checks.registry import CHECKS
    from stackaudit.engine.evaluate import proven_by_symptoms
    from stackaudit.facts.pci import NVIDIA_VENDOR, PciDevice, PciDevices
    from stackaudit.facts.symptoms import LogSymptoms

    # Modelled: one NVSwitch (class 0x0680) on the bus and the real Xid lines of leptonai/gpud#1174.
    symptoms = LogSymptoms(find_symptoms(GPUD_1174.splitlines()))
    switch = PciDevices((PciDevice("0000:05:00.0", NVIDIA_VENDOR, "22a3", "0x068000", role="nvswitch"),))
    spec = CHECKS["DRV-NVLINK-HEALTH"]
    out = proven_by_symptoms(spec, nvlink_health(pci=switch), symptoms)
    assert out.status == "issue" and "; check Fabric Manager" in out.message
    unsure = proven_by_symptoms(spec, nvlink_health(), symptoms)
    assert "if the GPUs sit on NVSwitches" in unsure.message


def test_the_engine_applies_a_symptom_to_a_check_whose_facts_are_missing() -> None:
    from dataclasses import replace

    from stackaudit.checks.registry import CHECKS, load_all
    from stackaudit.engine.collect import Missing
    from stackaudit.engine.evaluate import evaluate
    from stackaudit.facts.symptoms import LogSymptoms

    load_all()
    # Modelled: CTR-SHM-SIZE as if it required `container`, which the source lacks; NVIDIA/nccl-tests#166's lines.
    spec = replace(CHECKS["CTR-SHM-SIZE"], facts=("container",), optional_facts=())
    lacking = {"container": Missing("container", "not in the source", kind="not-captured")}
    proven = {**lacking, "log_symptoms": LogSymptoms(find_symptoms(NCCL_TESTS_166.splitlines()))}
    [alone] = evaluate([spec], lacking, False, parallel=False)
    [result] = evaluate([spec], proven, False, parallel=False)
    assert alone.status == "unknown" and alone.facts_missing == ("container",)
    assert result.status == "issue" and "failed to extend /dev/shm/nccl-fjwOOB" in result.message
    assert "in a container: raise --shm-size" in result.message and not result.facts_missing


def test_no_check_reads_the_symptoms_itself() -> None:
    import inspect

    from stackaudit.checks.registry import CHECKS, load_all

    load_all()
    # One place applies them (engine/evaluate.proven_by_symptoms); DRV-XID reads the lines as Xids, not as proof.
    readers = {cid for cid, spec in CHECKS.items() if "log_symptoms" in inspect.signature(spec.func).parameters}
    assert readers <= {"DRV-XID"}
    assert all("log_symptoms" in CHECKS[s.check].optional_read for s in SYMPTOMS if s.check)


def test_a_vm_guests_iommu_fault_leaves_iommu_mode_not_applicable() -> None:
    from stackaudit.checks.fw import iommu_mode
    from stackaudit.checks.registry import CHECKS, load_all
    from stackaudit.engine.evaluate import proven_by_symptoms
    from stackaudit.facts.platform import Virtualization
    from stackaudit.facts.symptoms import LogSymptoms

    load_all()
    # Modelled: a guest's kernel log with an AMD-Vi fault on the nvidia device (the form of the bare-metal symptom).
    line = ("nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0xfd000000 "
            "flags=0x0020]")
    symptoms = LogSymptoms(find_symptoms([line]))
    spec = CHECKS["FW-IOMMU-MODE"]
    guest = proven_by_symptoms(spec, iommu_mode(virtualization=Virtualization("kvm", "modelled")), symptoms)
    host = proven_by_symptoms(spec, iommu_mode(virtualization=Virtualization("none", "modelled")), symptoms)
    assert guest.status == "not-applicable"
    assert host.status == "issue" and "IO_PAGE_FAULT" in host.message


def test_a_run_that_died_of_a_symptom_is_never_reported_healthy() -> None:
    from stackaudit.engine.testing import audit_report
    from stackaudit.report.header import NOTHING_FOUND

    assert HEALTHY in NOTHING_FOUND
    for text in (NCCL_TESTS_166, GPUD_1174):
        report = audit_report(MemoryHost(recognise(text).record))
        statuses = {r.id: r.status for r in report.results}
        assert statuses["CTR-SHM-SIZE" if "shm" in text else "DRV-NVLINK-HEALTH"] == "issue"


# --- rule 2: absence only from whole sources --------------------------------------------------


def test_a_table_cut_inside_a_gpu_is_no_proof_of_every_gpu() -> None:
    # Corpus 128: the table stops inside GPU 2's rows. The coverage rule judges the 3 GPUs shown, says where the
    # table ends, and claims no count of the host's GPUs ("3 GPUs shown", not "3 of 3").
    r = run_checks(load_pasted([str(next(CAPTURES.glob("128-*.txt")))]), ["DRV-PERSISTENCE"])["DRV-PERSISTENCE"]
    assert r.status == "ok" and "ends inside GPU 2's rows" in r.message
    assert r.coverage is not None and r.coverage.text() == "3 GPUs shown"


def test_the_same_table_closed_is_every_gpu() -> None:
    # Modelled counter-example: corpus 128's first two GPUs with the table's closing border.
    path = next(CAPTURES.glob("128-*.txt"))
    body = path.read_text().split("-----\n", 1)[1]
    whole = "\n".join(body.splitlines()[:18]) + "\n"
    assert whole.rstrip().endswith("+")
    status, message, _ = _run(whole, "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert status == "ok" and "Enabled on 2 GPU(s)" in message


def test_one_headerless_gpu_section_is_no_vm_with_one_gpu() -> None:
    # Corpus 118: one GPU's `nvidia-smi -q` section of a pass-through VM, without its header; its Minor Number 5
    # proves six GPUs (tests/test_vm_shown_gpus.py).
    status, message = _capture("118", "FW-VM")["FW-VM"]
    assert status == "unknown" and "6 GPUs" in message


def test_whole_tables_still_count_every_gpu() -> None:
    # Corpus 15 and 92 (two threads): whole tables of 2 GPUs keep their verdicts (persistence off: issue).
    for prefix in ("15", "92"):
        assert _capture(prefix, "DRV-PERSISTENCE")["DRV-PERSISTENCE"][0] == "issue", prefix


def test_a_headerless_fragment_leaves_the_gpu_count_open() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.gpus import NVIDIA_TITLE, GpuInventory
    from stackaudit.facts.registry import load_all

    # Corpus 63 (a third thread): an `nvidia-smi -q` fragment of one GPU; a modelled inventory beside it.

    path = next(CAPTURES.glob("63-*.txt"))
    collector = Collector(load_pasted([str(path)]), 30, load_all())
    collector.start(["gpus"])
    inventory = collector.results(["gpus"])["gpus"]
    assert isinstance(inventory, GpuInventory) and inventory.count_unshown
    whole = GpuInventory(counts=((NVIDIA_TITLE, 1), ("lspci", 1)), partial=((NVIDIA_TITLE, "an excerpt"),))
    assert whole.count_unshown == ""


def test_one_gpu_of_an_excerpt_is_not_the_only_gpu() -> None:
    # Corpus 118 and 63 (two threads): one GPU's section of `nvidia-smi -q` does not show that the host has no
    # other GPU, so P2P and topology are not "not applicable"; corpus 112's whole table of one GPU is.
    for prefix in ("118", "63"):
        got = _capture(prefix, "IC-P2P-FUNCTIONAL", "IC-TOPO-READ")
        assert all(status != "not-applicable" for status, _ in got.values()), (prefix, got)
    got = _capture("112", "IC-P2P-FUNCTIONAL", "IC-TOPO-READ")
    assert all(status == "not-applicable" for status, _ in got.values()), got


# ray-project/ray_lightning#24 (amogkam), ggml-org/llama.cpp#3230 (quarterturn), ai-dynamo/dynamo#1229 (liao4s):
# a run that died of CUDA error 217.
P2P_DEATHS = (
    "(pid=909608) z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer "
    "access is not supported between these two devices\n",
    "CUDA error 217 at ggml-cuda.cu:6292: peer access is not supported between these two devices\n",
    "2025-05-28T03:35:37.857Z ERROR engine.run_mp_engine: CUDA error: peer access is not supported between these two "
    "devices\n",
)


def test_a_refused_peer_access_proves_p2p_broken_for_the_run() -> None:
    for text in P2P_DEATHS:
        status, message, evidence = _run(text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
        assert status == "issue", (text, message)
        assert "error 217" in message and "NCCL_P2P_DISABLE=1" in message and evidence


def test_nccl_falling_back_from_p2p_is_no_symptom() -> None:
    # NVIDIA/nccl#258: cuda-gdb's warnings while NCCL probes P2P and falls back to shared memory (not a failure).
    lines = ["> warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)",
             "> warning: Cuda API error detected: cudaGetLastError returned (0x2c0)"]
    assert find_symptoms(lines) == ()


# --- a fact in a line other than the check's usual source (gapfix) ---------------------------

# NVIDIA/NVSentinel#772 (XRFXLP): DCGM's diag result as a JSON log line, the same Info text as corpus 149's table.
NVSENTINEL_772 = ('  "detail": "Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by '
                  'running \\"nvidia-smi -i <gpuId> -pm 1 \\" as root.",\n')
# NVIDIA/open-gpu-kernel-modules, the driver's error-containment log (kern_gpu_error_cont_ga100.c): its
# documented forms of Xid 94 on a MIG instance and of Xid 95.
XID_94_MIG = ("NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). "
              "RST: No, D-RST: No\n")
XID_95 = "NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No\n"


def test_dcgm_persistence_info_proves_persistence_off() -> None:
    # Corpus 149 (a dcgmi diag table, its Info row) and NVIDIA/NVSentinel#772 (the row's text in a JSON log).
    status, message = _capture("149", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert status == "issue" and "Persistence mode for GPU 0 is disabled" in message
    status, message, evidence = _run(NVSENTINEL_772, "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert status == "issue" and any("Persistence mode for GPU 0 is disabled" in line for line in evidence)


def test_a_passing_dcgm_persistence_row_is_no_symptom() -> None:
    # Modelled on corpus 149's table: the Deployment row that passes, and the enabled wording.
    lines = ["| Persistence Mode          | Pass                                           |",
             "Persistence mode for GPU 0 is enabled."]
    assert find_symptoms(lines) == ()


def test_uncorrectable_ecc_xids_prove_row_remap_ecc() -> None:
    # Corpus 143 (a dmesg -T excerpt with Xid 43, 31 and 94), then the driver's own MIG and Xid 95 forms.
    status, message = _capture("143", "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"]
    assert status == "issue" and "): 94," in message
    for text, severity in ((XID_94_MIG, "medium"), (XID_95, "high")):
        results = run_checks(MemoryHost(recognise(text).record), ["MEM-ROW-REMAP-ECC"])
        assert results["MEM-ROW-REMAP-ECC"].status == "issue", text
        assert results["MEM-ROW-REMAP-ECC"].severity == severity, text


def test_other_xids_are_no_ecc_symptom() -> None:
    # Corpus 143's Xid 43 and 31 lines, and a modelled Xid 63 (a row remap recorded: corrected, not a failure).
    lines = ["[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008",
             "NVRM: Xid (PCI:0000:86:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping",
             "NVRM: Xid (PCI:0000:86:00): 940, modelled: a code that only starts like 94"]
    # The Xid 43 of pt_main_thread is an application fault (DRV-XID reads it from the kernel log), no ECC symptom.
    assert [h.symptom.check for h in find_symptoms(lines)] == []


# --- a failure that is another check's rules this one out (Symptom.clears) --------------------

# Error 802 from a CUDA call, verbatim: pytorch/pytorch#35710 (lpuglia, the bandwidthTest sample),
# cupy/cupy#2845 (berceanu, its title),
# wilicc/gpu-burn#133 (its title); corpus 240 is NVIDIA/gpu-operator#375's validator pod.
SYSTEM_NOT_READY = (
    "CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) \"cudaSetDevice(currentDevice)\" \n",
    "cupy.cuda.runtime.CUDARuntimeError: cudaErrorSystemNotReady: system not yet initialized\n",
    "Couldn't init CUDA: Error (gpu_burn-drv.cpp:304): system not yet initialized\n",
)


def test_a_cuda_call_that_reached_the_driver_rules_out_gpu_access() -> None:
    status, message = _capture("240", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert status == "not-an-issue" and "DRV-FABRIC-MANAGER" in message and "error code system not yet" in message
    for text in (*SYSTEM_NOT_READY, *P2P_DEATHS):
        got = _run(text, "CTR-GPU-ACCESS", "DRV-FABRIC-MANAGER", "IC-P2P-FUNCTIONAL")
        status, message, evidence = got["CTR-GPU-ACCESS"]
        assert status == "not-an-issue", (text, message)
        assert evidence and evidence[0] in text
        assert "issue" in (got["DRV-FABRIC-MANAGER"][0], got["IC-P2P-FUNCTIONAL"][0])


def test_nccl_tests_own_failure_line_carries_error_802() -> None:
    # Corpus 1370 (NVIDIA/nccl-tests#338): nccl-tests under mpirun stops at `Test CUDA failure ... 'system not yet
    # initialized'`, a line of the nccl-tests kind (not an engine log): its words are read as symptoms all the same.
    status, message = _capture("1370", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert status == "issue" and "error 802" in message, message
    # Modelled: the same line under an nccl-tests header, pasted alone.
    text = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n"
            "# Using devices\n"
            "node1: Test CUDA failure common.cu:1030 'system not yet initialized'\n")
    assert _run(text, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"][0] == "issue"


def test_gpu_accesss_own_symptom_outweighs_a_line_that_clears_it() -> None:
    # Modelled: the 802 line of pytorch/pytorch#35710 after the NVML line of NVIDIA/nvidia-docker#1730's form.
    text = "Failed to initialize NVML: Unknown Error\n" + SYSTEM_NOT_READY[0]
    status, message, _ = _run(text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert status == "issue" and "Failed to initialize NVML" in message


def test_a_line_that_clears_leaves_a_judged_check_as_it_is() -> None:
    from stackaudit.checks.registry import CHECKS, Outcome, load_all
    from stackaudit.engine.evaluate import proven_by_symptoms
    from stackaudit.facts.symptoms import LogSymptoms

    load_all()
    # Modelled: CTR-GPU-ACCESS judged ok from its facts, with an 802 line beside it: the check's verdict stands.
    symptoms = LogSymptoms(find_symptoms([SYSTEM_NOT_READY[1]]))
    judged = Outcome("ok", "every GPU's device node is in the container")
    assert proven_by_symptoms(CHECKS["CTR-GPU-ACCESS"], judged, symptoms) == judged



# --- NVLS multicast refused in the present state (CUDA error 401) -------------------------------------------------

# pytorch/pytorch#177472 (kwen2501, AWS H100 CI, NCCL 2.29.3): the error torch raises, with NCCL's WARN as its last error.
PYTORCH_177472 = """\
ncclUnhandledCudaError: Call to CUDA function failed.
Last error:
Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.
This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.
"""
# NVIDIA/nccl#1788 (gadamopoulos-saifh, eight H100, NCCL 2.26.2): the older wording of a multicast call's 401.
NCCL_1788 = ("[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 "
             "'the operation cannot be performed in the present state'\n"
             "node004:27907:27907 [1] NCCL INFO transport/nvls.cc:409 -> 1\n")
# NVIDIA/nccl#1488 (shanleo2024): 'invalid argument' in the same setup, whose causes include an NCCL bug: not this row.
NCCL_1488 = "node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'\n"


def test_nvls_multicast_refused_in_the_present_state_proves_nvlink_health() -> None:
    # Corpus 1224 (NVIDIA/DCGM#304): the node's local NVLink "got into a bad state"; NCCL's bind of its NVLS buffers
    # fails with CUDA error 401. The line alone proves the fabric's multicast broken; Fabric Manager stays open.
    got = _capture("1224", "DRV-NVLINK-HEALTH", "DRV-FABRIC-MANAGER")
    status, message = got["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "CUDA error 401" in message and "Failed to bind NVLink SHARP" in message
    assert got["DRV-FABRIC-MANAGER"][0] == "unknown"
    status, message, evidence = _run(NCCL_1788, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "401" in evidence[0]
    assert [h.symptom.name for h in find_symptoms(NCCL_1788.splitlines())] == ["nvls-multicast-illegal-state"]


# A WARN of a failed NVLS bind printed whole, NCCL's cause on its second line (modelled on a cluster runbook's copy of
# NCCL 2.27's message, split over lines as NCCL prints it).
NVLS_WARN_WHOLE = """host:1:2 [0] transport/nvls.cc:287 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 :
  CUDA error 401 'the operation cannot be performed in the present state'.
This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.
Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.
"""


def test_nvls_failure_with_nccls_own_cause_proves_fabric_manager_not_the_links() -> None:
    # Corpus 2318 (pytorch/pytorch#177472, AWS H100 CI, NCCL 2.29.3): the WARN whole, with NCCL's cause (a system or
    # configuration error in Fabric Manager or the NVSwitches): Fabric Manager's fabric, not the links, is shown.
    got = _capture("2318", "DRV-FABRIC-MANAGER", "DRV-NVLINK-HEALTH")
    status, message = got["DRV-FABRIC-MANAGER"]
    assert status == "issue" and "Fabric Manager or the NVSwitches" in message
    assert got["DRV-NVLINK-HEALTH"][0] == "unknown"
    for text in (PYTORCH_177472, NVLS_WARN_WHOLE):
        got3 = _run(text, "DRV-FABRIC-MANAGER", "DRV-NVLINK-HEALTH")
        assert got3["DRV-FABRIC-MANAGER"][0] == "issue" and "Fabric Manager" in got3["DRV-FABRIC-MANAGER"][2][0], text
        assert got3["DRV-NVLINK-HEALTH"][0] == "unknown", text
    # Counter-example: the first line alone (1224's form, 1788's) keeps no Fabric Manager row.
    assert "nvls-fabric-manager" not in [h.symptom.name for h in find_symptoms(NCCL_1788.splitlines())]


def test_other_nvls_failures_and_other_401s_are_not_the_nvls_row() -> None:
    assert find_symptoms(NCCL_1488.splitlines()) == ()
    # Modelled: a 401 from another NCCL file is no NVLS multicast call.
    other = "host:1:2 [0] transport/p2p.cc:300 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'"
    assert find_symptoms([other]) == ()


# Modelled on NCCL's WARN (src/graph/paths.cc, ncclTopoComputePaths) as a rank's log prints it.
NCCL_NVLINK_P2P_WARN = ("node7:311:402 [3] graph/paths.cc:662 NCCL WARN P2P is disabled between NVLINK connected GPUs 3 "
                        "and 2. This should not be the case given their connectivity, and is probably due to a hardware "
                        "issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")


def test_nccl_refusing_p2p_over_nvlink_proves_the_links_and_the_topology() -> None:
    # Corpus 2638 (NVIDIA/nccl#2329): NCCL's WARN alone, no GPU model: NVLink joins the pair and NVML's P2P is not OK.
    got = _capture("2638", "DRV-NVLINK-HEALTH", "IC-TOPO-READ", "DRV-FABRIC-MANAGER")
    assert got["DRV-NVLINK-HEALTH"][0] == "issue" and "NVLINK connected GPUs 1 and 0" in got["DRV-NVLINK-HEALTH"][1]
    assert got["IC-TOPO-READ"][0] == "issue" and "NVLINK connected GPUs 1 and 0" in got["IC-TOPO-READ"][1]
    assert got["DRV-FABRIC-MANAGER"][0] == "unknown"
    assert [h.symptom.name for h in find_symptoms(NCCL_NVLINK_P2P_WARN.splitlines())] == [
        "nccl-nvlink-p2p-disabled", "nccl-nvlink-p2p-topology"]
    # Counter-example, real (corpus 74, a k8s vLLM NCCL log): the INFO line of a PCIe pair names no NVLink; the path
    # and the model decide it (facts/peer_access.py), not these rows.
    assert _capture("74", "IC-TOPO-READ")["IC-TOPO-READ"][0] == "unknown"
    assert find_symptoms(["NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this message "
                          "with NCCL_IGNORE_DISABLED_P2P=1."]) == ()


def test_an_uncorrectable_nvlink_error_the_user_reports_proves_nvlink_health() -> None:
    # Corpus 2642 (NVIDIA/open-gpu-kernel-modules#1355, eight B300): the user's words, wrapped over lines, say the
    # driver tore the engine's CUDA channels down with an uncorrectable NVLink error; no log line is in the excerpt.
    status, message = _capture("2642", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "uncorrectable NVLink error" in message and "user reports" in message
    # Another thread, real (corpus 2271, TensorRT-LLM on a B200 HGX): CUDA's own line is the CUDA row's, not this one.
    status, message = _capture("2271", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "user reports" not in message
    # Modelled counter-examples: a question or a conditional reports nothing.
    for prose in ("Could this be an uncorrectable NVLink error on the switch tray?",
                  "If there is an uncorrectable NVLink error, does the driver tear the channels down?"):
        assert find_symptoms([prose]) == (), prose
    hit = find_symptoms(["Both ranks died: the job hit an uncorrectable NVLink error after 3 hours."])
    assert [h.symptom.name for h in hit] == ["nvlink-uncorrectable-stated"]


# easybuilders/easybuild-easyconfigs#13237 (branfosj, PyTorch's test_c10d_nccl on four GPUs): CUDA's error 220 as
# std::terminate prints torch's exception.
EASYBUILD_13237 = """\
terminate called after throwing an instance of 'c10::CUDAError'
  what():  CUDA error: uncorrectable NVLink error detected during the execution
"""


def test_cuda_uncorrectable_nvlink_error_proves_nvlink_health_2271() -> None:
    # Corpus 2271 (NVIDIA/TensorRT-LLM#4816): the executor on rank 6 of a B200 HGX fails with CUDA's error 220.
    status, message = _capture("2271", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "Failed to initialize executor on rank 6" in message and "220" in message
    status, _, evidence = _run(EASYBUILD_13237, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "uncorrectable NVLink error" in evidence[0]


def test_nvlink_words_without_cudas_error_prove_nothing() -> None:
    # Corpus 1225 (pytorch/pytorch#58155): the error is in the thread's title only; its NCCL P2P lines prove nothing.
    assert _capture("1225", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"][0] == "unknown"
    # Modelled: NVLink's error counters at zero and a question about the error name no failure.
    lines = ["GPU 0: NVIDIA GB300", "\t Link 0: Replay Errors: 0", "\t Link 0: CRC Errors: 0",
             "Is an uncorrectable NVLink error a hardware fault?"]
    assert find_symptoms(lines) == ()


# --- the GPUs a proving line is about -----------------------------------------------------------

def test_the_gpus_named_are_each_lines_first_name_of_its_gpu() -> None:
    from stackaudit.facts.symptoms import gpus_named

    # Corpus 1191: the Xid's address and `GPU3` are one GPU; the driver's follow-up line names none and is about it.
    assert gpus_named(["NVRM: Xid (PCI:0000:0b:00): 119, pid=11431, name=gpu-feature-dis, Timeout after 45s of "
                       "waiting for RPC response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL)",
                       "NVRM: nvAssertFailedNoLog: Assertion failed: Back to back GSP RPC timeout detected! GPU marked "
                       "for reset @ kernel_gsp.c:2387"]) == ("0000:0b:00",)
    # Corpus 1267: the device node and the UUID are one GPU.
    assert gpus_named(["panic: At least one device with migEnabled=true was not configured correctly: No MIG devices "
                       "associated with /dev/nvidia0: GPU-fe14a161-d1f3-7706-c257-3b22fe15c684"]) == ("GPU 0",)
    # Corpus 657: the same address on five lines is one GPU; modelled: two addresses are two.
    assert gpus_named(["[   21.091872] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)"] * 5) \
        == ("0000:01:00",)
    assert len(gpus_named(["NVRM: Xid (PCI:0000:0b:00): 79, GPU has fallen off the bus.",
                           "NVRM: Xid (PCI:0000:0c:00): 79, GPU has fallen off the bus."])) == 2
    # Corpus 916: CUDA's refusal is about a pair it does not name; corpus 1164: a GSP is one GPU's.
    assert len(gpus_named(["z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : "
                           "217 peer access is not supported between these two devices"])) == 2
    assert len(gpus_named(["NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out"])) == 1
    # NVIDIA/nccl-tests#166: a full /dev/shm is about no GPU.
    assert gpus_named(NCCL_TESTS_166.splitlines()) == ()


def test_a_log_proven_issue_covers_the_gpus_its_lines_name() -> None:
    # Corpus 1191 (an 8-GPU node by its title; the paste shows one GPU's Xid 119) and 1244 (four ranks, one pair
    # refused): the issue covers the GPUs the lines are about, not the host.
    for prefix, cid, text in (("1191", "DRV-GSP-FIRMWARE", "1 GPU shown"), ("1244", "IC-P2P-FUNCTIONAL", "2 GPUs shown"),
                              ("1267", "MEM-MIG", "1 GPU shown"), ("985", "RT-TORCH-ARCH", "1 GPU shown")):
        path = next(CAPTURES.glob(prefix + "-*.txt"))
        result = run_checks(load_pasted([str(path)]), [cid])[cid]
        assert result.status == "issue" and result.coverage is not None, (prefix, result.message)
        assert result.coverage.text() == text, (prefix, result.coverage.text())
    # A failure about no GPU states no coverage (NVIDIA/nccl-tests#166's /dev/shm lines).
    shm = run_checks(MemoryHost(recognise(NCCL_TESTS_166).record), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
    assert shm.status == "issue" and shm.coverage is None


# --- the peer-memory module refused at load (peer-memory-refused) ------------------------------------------------

# Modelled: a load that worked (the driver's taint line, modprobe silent, lsmod listing it) and another module refused.
PEERMEM_LOADED = """\
$ sudo modprobe nvidia_peermem
$ dmesg | tail -2
[  12.345678] nvidia_peermem: module verification failed: signature and/or required key missing - tainting kernel
[  12.345999] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15
modprobe: ERROR: could not insert 'nvidia_uvm': No such device
"""


def test_a_refused_peer_memory_module_proves_peermem_missing() -> None:
    # Corpus 2429 (NVIDIA/gpu-operator#2868: the operator's nvidia-peermem-ctr, nvidia_peermem's symbol version
    # lines) and 2430 (Mellanox/nv_peer_memory#43: modprobe refusing MLNX_OFED's nv_peer_mem on CentOS 7).
    for prefix, quoted in (("2429", "could not insert 'nvidia_peermem'"), ("2430", "could not insert 'nv_peer_mem'")):
        status, message = _capture(prefix, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
        assert status == "issue" and quoted in message, (prefix, message)
    assert "peer-memory-refused" in [h.symptom.name for h in find_symptoms(
        ["[Tue Sep  8 17:16:02 2026] nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client"])]


def test_a_peer_memory_module_that_loads_is_no_symptom() -> None:
    assert [h.symptom.name for h in find_symptoms(PEERMEM_LOADED.splitlines())
            if h.symptom.check == "IC-NVIDIA-PEERMEM"] == []


# A CUDA P2P sample aborting on the peer mapping (p2p-test-map-failed). Corpus 2491 (tinygrad/open-gpu-kernel-modules
# #16): p2pBandwidthLatencyTest's P2P write test on a rig with large BAR off.
P2P_TEST_MAP_2491 = "Cuda failure p2pBandwidthLatencyTest.cu:189: 'mapping of buffer object failed'\n"
# Modelled on checkCudaErrors' form with the words of tinygrad/open-gpu-kernel-modules#44's title (2 RTX 5090).
SIMPLEP2P_205 = ('CUDA error at simpleP2P.cu:81 code=205(cudaErrorMapBufferObjectFailed) '
                 '"cudaDeviceEnablePeerAccess(gpuid[1], 0)"\n')
# AlexeyAB/darknet#3681 (iaixuexi): the same CUDA error in a one-GPU training run, no peer copy anywhere.
DARKNET_3681 = "CUDA Error: mapping of buffer object failed\n"


def test_a_p2p_sample_failing_its_peer_mapping_proves_p2p_broken() -> None:
    status, message = _capture("2491", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert status == "issue" and "mapping of buffer object failed" in message
    for text in (P2P_TEST_MAP_2491, SIMPLEP2P_205):
        assert [h.symptom.name for h in find_symptoms(text.splitlines())] == ["p2p-test-map-failed"], text
        assert _run(text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"][0] == "issue", text


def test_a_buffer_mapping_failure_outside_a_p2p_test_is_no_p2p_symptom() -> None:
    assert find_symptoms(DARKNET_3681.splitlines()) == ()
    long_line = "P2Pa" * 50_000 + ".cu:1 mapping of buffer object faile"  # bounded: finishes at once, matches nothing
    assert find_symptoms([long_line]) == ()
