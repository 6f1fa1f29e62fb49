"""Issue 28, blind pastes 189-208: what a paste shows decides, as a rule for the class, not the file.

- Docker's refusal of a GPU request proves CTR-GPU-ACCESS, quoted, over the request line above it.
- An AMD-Vi I/O page fault that names the nvidia driver's device proves FW-IOMMU-MODE without the PCI list.
- IC-TOPO-READ judges the complete rows of a cut `nvidia-smi topo -m` and says `K of N GPUs shown`.

The snippets are real, verbatim from the public thread named beside each (the corpus files of
tests/data/captures name theirs in their header); modelled counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

CAPTURES = Path(__file__).parent / "data" / "captures"


pasted, capture = paste_checks, capture_checks


# --- Docker refuses the GPU request ---------------------------------------------------------------

# https://github.com/OpenBMB/XAgent/issues/273 (wangjiainchinatelecom): the run line, then the daemon's answer.
XAGENT_273 = """\
docker run -it -p 13520:13520  -v /huggingface/models/XAgentLLaMa-34B-preview/:/model:rw --gpus all --ipc=host xagentteam/xagentgen:latest python app.py --model-path /model --port 13520

## Error Screenshots or Logs / 错误截图或日志
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
ERRO[0000] error waiting for container:
"""
# https://github.com/NVIDIA/nvidia-docker/issues/1642 (Maryamtarazkar): the variant without the quotes.
NVIDIA_DOCKER_1642 = """\
docker run --rm --gpus all nvidia/cuda:11.0-base nvidia-smi

I get following error;
docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].
"""
# https://github.com/infiniflow/ragflow/issues/9573 (onlineapps-cloud): compose's `driver: nvidia`, quoted in prose.
RAGFLOW_9573 = ("i get this error: `Error response from daemon: could not select device driver \"nvidia\" with "
                "capabilities: [[gpu]]`\n")
# https://github.com/nv-tlabs/3dgrut/issues/71 (Bazmundi): `--runtime=nvidia` the daemon does not know.
GRUT_71 = """\
(3dgrut) asterion@MonstaPC:~/AI/3dgrut$ xhost +local:root
docker run -v --rm -it --gpus=all --net=host --ipc=host -v $PWD:/workspace --runtime=nvidia -e DISPLAY 3dgrut
non-network local connections being added to access control list
docker: Error response from daemon: unknown or invalid runtime name: nvidia.
"""
# https://github.com/sair-lab/AirSLAM/issues/113 (Lx017).
AIRSLAM_113 = """\
sudo docker run -it --env DISPLAY=$DISPLAY --volume /tmp/.X11-unix:/tmp/.X11-unix --privileged --runtime nvidia --gpus all --volume ${PWD}:/workspace --workdir /workspace --name air_slam xukuanhit/air_slam:v1 /bin/bash
However, docker gives me:
docker: Error response from daemon: unknown or invalid runtime name: nvidia.
"""
# https://github.com/NVIDIA/nvidia-docker/issues/1711 (JosephKuchar): the toolkit's hook cannot load NVML.
NVIDIA_DOCKER_1711 = """\
sudo docker run --rm -it --gpus=all nvcr.io/nvidia/k8s/cuda-sample:nbody nbody -gpu -benchmark
docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.
"""
# https://github.com/NVIDIA/libnvidia-container/issues/231 (ducpx): the same failure from the CLI itself.
LIBNVIDIA_CONTAINER_231 = """\
nvidia-container-cli list
nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory
"""


@pytest.mark.parametrize(("text", "quoted"), [
    (XAGENT_273, 'could not select device driver "" with capabilities: [[gpu]]'),
    (NVIDIA_DOCKER_1642, "could not select device driver with capabilities: [[gpu]]"),
    (RAGFLOW_9573, 'could not select device driver "nvidia" with capabilities: [[gpu]]'),
    (GRUT_71, "unknown or invalid runtime name: nvidia"),
    (AIRSLAM_113, "unknown or invalid runtime name: nvidia"),
    (NVIDIA_DOCKER_1711, "nvidia-container-cli: initialization error"),
    (LIBNVIDIA_CONTAINER_231, "nvidia-container-cli: initialization error"),
], ids=["xagent-273", "nvidia-docker-1642", "ragflow-9573", "3dgrut-71", "airslam-113", "nvidia-docker-1711",
        "libnvidia-container-231"])
def test_a_docker_gpu_refusal_proves_gpu_access_quoted(tmp_path: Path, text: str, quoted: str) -> None:
    r = pasted(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue", r.message
    assert quoted in r.message and any(quoted in line for line in r.evidence)
    assert "nvidia-ctk runtime configure" in r.message


def test_the_refusal_wins_over_the_gpu_request_above_it(tmp_path: Path) -> None:
    # XAgent#273 without its answer: the run line alone requests all GPUs (unknown: nothing shows a GPU inside, issue 28
    # h121c); with the answer, the refusal decides.
    request = XAGENT_273.split("\n\n")[0] + "\n"
    assert pasted(tmp_path, request, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
    r = pasted(tmp_path, XAGENT_273, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue" and "the other evidence alone said unknown" in r.message
    # Corpus 191 (NVIDIA/retinanet-examples#278) and 190 (psalias2006/gpu-hot#18): the blind pastes themselves.
    for prefix in ("190", "191"):
        r = capture(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "issue" and "could not select device driver" in r.message


# https://github.com/NVIDIA/nvidia-docker/issues/1348 (hoodiney): the hook cannot query NVML (driver 435.21).
NVIDIA_DOCKER_1348 = r"""docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container process caused "process_linux.go:449: container init caused \"process_linux.go:432: running prestart hook 0 caused \\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: detection error: nvml error: unknown error\\\\n\\\"\"": unknown.
"""
# https://github.com/NVIDIA/nvidia-container-toolkit/issues/416 (shuoshadow): the same with the hook's mode line.
CTK_416 = """\
docker run --rm --gpus all nvidia/cuda:12.1.1-base-ubuntu22.04 nvidia-smi

docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
nvidia-container-cli: detection error: nvml error: unknown error: unknown.
"""
# https://github.com/NVIDIA/nvidia-container-toolkit/issues/292 (jzhang82119): with the host's driver line after it.
CTK_292 = """\
docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container process caused: process_linux.go:495: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: detection error: nvml error: unknown error: unknown.

NVIDIA-SMI 455.23.05    Driver Version: 455.23.05    CUDA Version: 11.1\x20\x20\x20
Kernel 5.4.0-73-generic
Ubuntu 18.04.5 LTS
"""
# https://github.com/NVIDIA/nvidia-container-toolkit/issues/1227 (TaylorTrz): the container's GPUs lost after a
# `systemctl daemon-reload` on the host.
CTK_1227 = """\
(container) $ nvidia-smi -L
Failed to initialize NVML: Unknown Error
"""
# https://github.com/NVIDIA/nvidia-docker/issues/1671 (kevin-bockman): the same inside a running container.
NVIDIA_DOCKER_1671 = """\
(inside same running container):
```
root@098b49afe624:/# nvidia-smi\x20
Failed to initialize NVML: Unknown Error
```
"""
# https://github.com/dstackai/dstack/issues/2860 (jvstme): reproduced on AWS after `sudo systemctl daemon-reload`.
DSTACK_2860 = """\
(workflow) root@ip-172-31-21-250:~# nvidia-smi
Failed to initialize NVML: Unknown Error
"""


@pytest.mark.parametrize(("text", "quoted"), [
    (NVIDIA_DOCKER_1348, "nvidia-container-cli: detection error: nvml error"),
    (CTK_416, "nvidia-container-cli: detection error: nvml error"),
    (CTK_292, "nvidia-container-cli: detection error: nvml error"),
    (CTK_1227, "Failed to initialize NVML: Unknown Error"),
    (NVIDIA_DOCKER_1671, "Failed to initialize NVML: Unknown Error"),
    (DSTACK_2860, "Failed to initialize NVML: Unknown Error"),
], ids=["nvidia-docker-1348", "ctk-416", "ctk-292", "ctk-1227", "nvidia-docker-1671", "dstack-2860"])
def test_an_nvml_failure_at_or_in_the_container_proves_gpu_access(tmp_path: Path, text: str, quoted: str) -> None:
    # The hook's NVML detection error (no container is created with GPUs) and a container's NVML that cannot open
    # the GPUs it was given (NVIDIA/nvidia-docker#1730: the device cgroup lost them) are CTR-GPU-ACCESS failures.
    r = pasted(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue", r.message
    assert any(quoted in line for line in r.evidence)
    # Corpus 251 (NVIDIA/nvidia-docker#1280): the hook's failure above the host's table with the name ERR!.
    assert capture("251", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


def test_nvmls_other_errors_and_a_working_nvidia_smi_are_no_access_symptom() -> None:
    # Modelled: a version mismatch is DRV's (another message), and a table that NVML filled is no failure.
    lines = ["Failed to initialize NVML: Driver/library version mismatch",
             "NVML library version: 535.104",
             "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |"]
    hits = [h for h in find_symptoms(lines) if h.symptom.check == "CTR-GPU-ACCESS"]
    # Only inside a container is a version mismatch the image's libraries shadowing the host's (corpus 1008).
    assert [h.symptom.within for h in hits] in ([], ["in-container"])


def test_the_hooks_mode_line_and_a_working_gpu_run_are_no_symptom() -> None:
    # The mode line of NVIDIA/nvidia-docker#1711 is the hook's log, not its failure; modelled: a run that works.
    lines = ["stderr: Auto-detected mode as 'legacy'",
             "docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi",
             "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |"]
    assert find_symptoms(lines) == ()


# --- an IOMMU page fault on the nvidia driver's device --------------------------------------------

# https://github.com/ggml-org/llama.cpp/issues/21908 (Gustav-Simonsson): quoted dmesg, three of its lines.
LLAMA_CPP_21908 = """\
> [ 7460.483909] amd_iommu_report_page_fault: 6 callbacks suppressed
> [ 7460.483919] nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 flags=0x0020]
> [ 7460.485503] nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0x2bee0314000 flags=0x0020]
"""
# https://github.com/NVIDIA/cuda-samples/issues/48 (h1z1): p2p samples on an AMD host, in syslog form.
CUDA_SAMPLES_48 = """\
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x9e139068 flags=0x0020]
Sep 21 09:59:59 runtime kernel: nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x800007c0 flags=0x0020]
"""
# https://github.com/pop-os/pop/issues/853 (teamblubee): the same fault on an NVMe drive, no GPU named.
POP_OS_853 = """\
[   10.919601] amd_iommu_report_page_fault: 96 callbacks suppressed
[   10.919607] nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0xfc189000 flags=0x0000]
[   10.920579] nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0xfbeaf000 flags=0x0000]
"""
# https://github.com/ROCm/legacy-rocm-build/issues/2820 (kuhar): an AMD GPU's fault (amdgpu, not nvidia).
ROCM_2820 = """\
[283924.098156] amd_iommu_report_page_fault: 367957 callbacks suppressed
[283924.098161] amdgpu 0000:03:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000f address=0x5bbb5000 flags=0x0020]
"""


@pytest.mark.parametrize(("text", "device"), [(LLAMA_CPP_21908, "nvidia 0000:81:00.0"),
                                              (CUDA_SAMPLES_48, "nvidia 0000:07:00.0")],
                         ids=["llama-cpp-21908", "cuda-samples-48"])
def test_an_amd_vi_fault_on_the_nvidia_device_proves_iommu_mode(tmp_path: Path, text: str, device: str) -> None:
    r = pasted(tmp_path, text, "FW-IOMMU-MODE")["FW-IOMMU-MODE"]
    assert r.status == "issue", r.message
    assert f"{device}: AMD-Vi: Event logged [IO_PAGE_FAULT" in r.message and "iommu=pt" in r.message
    # Corpus 198 is the blind paste of llama.cpp#21908 (eight lines, quoted under `### dmesg`).
    assert capture("198", "FW-IOMMU-MODE")["FW-IOMMU-MODE"].status == "issue"


# https://github.com/Dasharo/dasharo-issues/issues/641 (serpack): Intel's DMAR names the device by address only
# (here the iGPU 00:02.0); which device it is takes the PCI list, which FW-IOMMU-MODE reads for the GPUs' addresses.
DASHARO_641 = """\
[    0.361089] DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x7cd80000 [fault reason 0x01] Present bit in root entry is clear
[    0.361100] DMAR: DRHD: handling fault status reg 3
"""
# https://github.com/Marvell-switching/sonic-marvell-binaries/pull/84 (wlin1-aster): a switch ASIC at 06:00.0.
MARVELL_84 = """\
[  815.089014] DMAR: [DMA Read] Request device [06:00.0] PASID ffffffff fault addr 1a5e12000 [fault reason 06] PTE Read access is not set
[  827.262614] DMAR: DRHD: handling fault status reg 402
"""


@pytest.mark.parametrize("text", [POP_OS_853, ROCM_2820, DASHARO_641, MARVELL_84],
                         ids=["pop-os-853-nvme", "rocm-2820-amdgpu", "dasharo-641-dmar-igpu", "marvell-84-dmar-asic"])
def test_an_iommu_fault_on_another_device_is_no_gpu_symptom(tmp_path: Path, text: str) -> None:
    assert find_symptoms(text.splitlines()) == ()
    assert pasted(tmp_path, text, "FW-IOMMU-MODE")["FW-IOMMU-MODE"].status != "issue"


# --- a cut topology matrix: the rows shown ----------------------------------------------------------


@pytest.mark.parametrize(("prefix", "coverage", "links"), [
    ("199", "5 of 8 GPUs shown", "PCIe only"),  # kubernetes/kubernetes#53497, cut after the GPU4 row
    ("200", "4 of 16 GPUs shown", "NV6"),  # NVIDIA/nccl-tests#78, cut after the GPU3 row
    ("11", "6 of 8 GPUs shown", "NV12"),  # vllm-project/vllm#4375, cut in the GPU5 row's NIC cells
], ids=["k8s-53497", "nccl-tests-78", "vllm-4375"])
def test_a_cut_matrix_is_judged_on_its_complete_rows(prefix: str, coverage: str, links: str) -> None:
    r = capture(prefix, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert r.status == "ok", r.message
    assert r.coverage is not None and r.coverage.text() == coverage and links in r.message
    assert "`nvidia-smi topo -m` for all" in r.hint


# Modelled: nccl-tests#78's first rows, five GPUs, cut after the GPU2 row (GPU3-GPU4 not shown), with GPU4's
# cells of the shown rows changed.
_HEAD = "        GPU0    GPU1    GPU2    GPU3    GPU4    CPU Affinity\n"


def _rows(cell: str) -> str:
    return (_HEAD + f"GPU0     X      NV6     NV6     NV6     {cell}     0-23,48-71\n"
            f"GPU1    NV6      X      NV6     NV6     {cell}     0-23,48-71\n"
            f"GPU2    NV6     NV6      X      NV6     {cell}     0-23,48-71\n")


def test_the_modelled_cut_matrix_is_ok_when_its_rows_agree(tmp_path: Path) -> None:
    r = pasted(tmp_path, "$ nvidia-smi topo -m\n" + _rows("NV6"), "IC-TOPO-READ")["IC-TOPO-READ"]
    assert r.status == "ok" and r.coverage is not None and r.coverage.text() == "3 of 5 GPUs shown"
    assert "GPU3-GPU4" in r.message


@pytest.mark.parametrize("cell", ["SYS", "NV4"], ids=["gpu4-without-nvlink", "gpu4-fewer-links"])
def test_a_cut_matrix_whose_rows_differ_is_never_ok(tmp_path: Path, cell: str) -> None:
    # GPU4's row is missing; the shown rows give it SYS (no NVLink) or a weaker NV4: not a healthy mesh.
    r = pasted(tmp_path, "$ nvidia-smi topo -m\n" + _rows(cell), "IC-TOPO-READ")["IC-TOPO-READ"]
    assert r.status != "ok", r.message


# --- GSP RPCs named in the kernel log ---------------------------------------------------------------

# An Xid 119 line names a GSP RPC too, but it is the GSP's failure (tests/test_symptom_gsp_xid.py).
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1145 (mnencia): no timestamp, the GPU named mid-line.
OGKM_1145 = """\
NVRM: _kgspProcessRpcEvent: Attempted to process RPC event from GPU0: 0x101a (PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock
NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c:1447
"""
# https://github.com/NVIDIA/nvtrust/issues/77 (Elio-yang): the GSP firmware failed to start (no RPC named).
NVTRUST_77 = """\
[  279.950855] NVRM: gpuHandleSanityCheckRegReadError_GH100: Possible bad register read: addr: 0x110804,  regvalue: 0xbadf4100,  error code: Unknown SYS_PRI_ERROR_CODE
[  279.950860] NVRM: RmInitAdapter: Cannot initialize GSP firmware RM
[  280.997787] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x1a:1792)
"""
# https://github.com/madMAx43v3r/chia-gigahorse/issues/301 (cdgraff): Xids that name no GSP RPC.
CHIA_301 = """\
[14328.198504] NVRM: Xid (PCI:0000:0a:00): 31, pid=13332, name=cuda_plot_k32_v, Ch 00000010, intr 00000000. MMU Fault: ENGINE CE2 HUBCLIENT_CE0 faulted @ 0x7f29_5b8c9000. Fault is of type FAULT_PRIV_VIOLATION ACCESS_TYPE_VIRT_READ
[14370.688139] NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, Ch 00000008
"""


@pytest.mark.parametrize(("text", "gpu"), [(OGKM_1145, "GPU0")], ids=["ogkm-1145-kgsp"])
def test_gsp_rpc_lines_show_gsp_in_use(tmp_path: Path, text: str, gpu: str) -> None:
    r = pasted(tmp_path, text, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue", r.message
    assert f"GSP firmware on {gpu}" in r.message and r.coverage is not None and r.coverage.shown == (gpu,)
    # Corpus 144 (Neroued/ninfer#12): `journalctl -o short-precise` lines naming rpcRmApiFree_GSP.
    r = capture("144", "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue" and "rpcRmApiFree_GSP" in r.message


def test_nvrm_lines_without_a_gsp_rpc_say_nothing_of_gsp(tmp_path: Path) -> None:
    assert pasted(tmp_path, CHIA_301, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"].status == "unknown"


def test_a_gsp_firmware_that_failed_to_start_is_gsp_firmwares_issue(tmp_path: Path) -> None:
    # nvtrust#77 names no RPC, but "Cannot initialize GSP firmware RM" is the GSP boot failure of facts/symptoms.py.
    r = pasted(tmp_path, NVTRUST_77, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "issue" and "Cannot initialize GSP firmware RM" in r.message


def test_a_gsp_line_that_names_no_gpu_speaks_for_the_drivers_setting(tmp_path: Path) -> None:
    # https://github.com/NVIDIA/nvtrust/issues/128 (costinchen): a GSP function's line with no GPU in it.
    text = ("[   75.588764] NVRM: kgspCheckGspRmCcCleanup_GH100: CC secret cleanup successful!\n"
            "[   76.006763] [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:02:00.0 on minor 1\n")
    r = pasted(tmp_path, text, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue" and "names no GPU" in r.message and r.coverage is None


# --- a `docker run` written in a sentence or as inline code after a list mark --------------------------

# https://github.com/NVIDIA/nvidia-docker/issues/1352 (nectario): the command after "when running:".
NVIDIA_DOCKER_1352 = ("I get the following issue when running: docker run --gpus 2 nvidia/cuda:10.2-base nvidia-smi\n"
                      "**docker: Error response from daemon: could not select device driver \"\" with capabilities: "
                      "[[gpu]].**\n")
# https://github.com/NVIDIA-ISAAC-ROS/isaac_ros_visual_slam/issues/132 (yfyang86): inline code in a list item's sentence.
ISAAC_132 = ("- Get the right feedback with `sudo docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi`;\n")


@pytest.mark.parametrize(("prefix", "line", "image"), [
    ("190", "When running docker run -d --name gpu-hot", "ghcr.io/psalias2006/gpu-hot:latest"),  # gpu-hot#18
    ("193", "1. `docker run -it -d --rm --net=host", "nvcr.io/nvidia/tensorflow:20.01-tf1-py3"),  # nccl#290
], ids=["gpu-hot-18-sentence", "nccl-290-list-item"])
def test_a_run_line_in_the_authors_words_is_read(prefix: str, line: str, image: str) -> None:
    from corpus import parse_header
    from stackaudit.facts.container_specs import parse_docker_run

    body = parse_header(next(CAPTURES.glob(prefix + "-*.txt"))).body
    [text] = [ln for ln in body.splitlines() if ln.startswith(line)]
    assert parse_docker_run(text).image == image


def test_a_run_line_after_a_colon_or_in_inline_code_is_read() -> None:
    from stackaudit.facts.container_specs import parse_docker_run

    run = parse_docker_run(NVIDIA_DOCKER_1352.splitlines()[0])
    assert run.image == "nvidia/cuda:10.2-base" and run.argv == ("nvidia-smi",) and run.gpu_requested
    run = parse_docker_run(ISAAC_132)
    assert run.image == "ubuntu" and run.argv == ("nvidia-smi",) and run.runtime == "nvidia"  # `;` after the code


@pytest.mark.parametrize("sentence", [
    "I tried docker run but it failed",  # modelled prose: no options, no image
    "I tried docker run --gpus all and it failed",  # modelled: the "image" would be a word of the sentence
    "Error: docker run --gpus all failed on this host",
    "Can you paste the `docker run` line you used?",  # modelled: inline code that is no command line
])
def test_docker_run_in_prose_is_no_run_line(sentence: str) -> None:
    from stackaudit.facts._parse import ParseError
    from stackaudit.facts.container_specs import parse_docker_run

    with pytest.raises(ParseError):
        parse_docker_run(sentence)


def test_an_ngc_image_under_the_nvidia_runtime_requests_its_gpus() -> None:
    # Corpus 193 (NVIDIA/nccl#290): `--runtime nvidia` with nvcr.io/nvidia/tensorflow, no --gpus and no -e: the
    # image's own NVIDIA_VISIBLE_DEVICES=all gives it the GPUs; NCCL's old `Ring` lines join 4 of them.
    r = capture("193", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and r.coverage is not None and r.coverage.text() == "4 GPUs shown"
    assert "NCCL's channels join 4 GPUs" in r.message
    # Modelled counter-example: the same runtime with an image that sets no such variable requests nothing.
    from stackaudit.facts.container_specs import parse_docker_run

    assert not parse_docker_run("docker run --runtime nvidia -it ubuntu:22.04 sh").gpu_requested
    assert parse_docker_run("docker run --runtime nvidia -it nvidia/cuda:12.4.1-base-ubuntu22.04 sh").gpu_requested


def test_nccl_ring_lines_before_2_5_are_channels() -> None:
    from stackaudit.facts.serving_logs import parse_serving_log

    # NVIDIA/nccl#290 (corpus 193): `via direct shared memory` is the SHM transport; corpus 205's NCCL 2.5 `P2P/IPC`.
    log = parse_serving_log("host:2144:2556 [2] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory\n"
                            "host:2142:2554 [0] NCCL INFO Ring 00 : 155[3d000] -> 153[1b000] via P2P/IPC\n")
    assert [(c.src, c.dst, c.transport, c.detail) for c in log.channels] == [(2, 3, "SHM", ""), (155, 153, "P2P", "IPC")]


# --- an empty `lsmod | grep` is its pattern's absence, and nothing else ------------------------------------


def test_the_empty_lsmod_greps_of_the_blind_paste_are_read() -> None:
    # Corpus 142 (NVIDIA/nccl#988): two `lsmod | grep` prompts with nothing under them, then an empty prompt.
    from stackaudit.facts.shown_commands import parse_grep

    r = capture("142", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert "nvidia_peermem not loaded" in r.message and r.status == "unknown"  # the NICs' use is not shown
    body = (CAPTURES / next(p.name for p in CAPTURES.glob("142-*.txt"))).read_text()
    assert "(pytorch) [root@gpu3 ~]# lsmod | grep nv_peer_mem\n" in body
    grep = parse_grep("lsmod | grep nv_peer_mem")
    assert grep is not None and grep.matches("nv_peer_mem 16384 0") and not grep.matches("nvidia_peermem 16384 0")
    # https://github.com/openucx/ucx/pull/9451 (Alexey-Rivkin): `grep -q` prints nothing either way: no proof.
    assert parse_grep("lsmod | grep -q nv_peer_mem") is None


@pytest.mark.parametrize("line", [
    # https://github.com/vllm-project/vllm/issues/5501
    "WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/lib/python3.8/"
    "dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c1011DispatchKeyEEPKcj')",
    # https://github.com/vllm-project/vllm/issues/3528 (its title)
    "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS",
    # corpus 1018 (sgl-project/sglang#8373)
    "ImportError: /home/devuser/.local/lib/python3.10/site-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: "
    "_ZN3c104cuda9SetDeviceEa",
])
def test_an_extension_missing_torchs_symbols_is_a_version_mismatch(line: str) -> None:
    assert [h.symptom.check for h in find_symptoms([line])] == ["RT-VERSION-MATRIX"]


def test_other_undefined_symbols_are_no_torch_mismatch() -> None:
    # Modelled: a CUDA library's own symbol (a runtime older than the caller), and a C symbol of another library.
    lines = ["ImportError: /usr/local/lib/python3.10/dist-packages/nvidia/cusparse/lib/libcusparse.so.12: undefined "
             "symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
             "OSError: /opt/lib/libfoo.so: undefined symbol: _ZN3foo3barEv"]
    assert [h for h in find_symptoms(lines) if h.symptom.check == "RT-VERSION-MATRIX"] == []


def test_torchs_driver_too_old_is_the_driver_below_the_runtime() -> None:
    # corpus 1014 (cloud-barista/cb-tumblebug#2544): vLLM's EngineCore quoting torch's _check_driver.
    r = capture_checks("1014", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "found version 12040" in r.message, r.message
    # Modelled: the words without torch's `(found version N)` are someone's sentence, not torch's error.
    assert find_symptoms(["I think the NVIDIA driver on your system is too old, try 580"]) == ()
