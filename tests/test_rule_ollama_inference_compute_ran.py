"""facts/cuda_ran: ollama's `inference compute ... library=cuda` lines show CUDA at work on the GPUs they name.

ollama lists a GPU under CUDA only after its CUDA probe read the GPU's free memory (a cuInit refused with 802 on an
NVSwitch board whose fabric is not set up leaves it on the CPU). DRV-FABRIC-MANAGER reads the evidence that names
its GPUs first (checks/drv.cuda_ran_on_nvswitch), so five or more H100 SXM listed show the fabric up.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import ran_in_lines

FM = "DRV-FABRIC-MANAGER"
_LINE = ('time=2024-06-19T03:14:50.463Z level=INFO source=types.go:71 msg="inference compute" id=GPU-{i:04d}aaaa-7c90-'
         'bf35-9dd8-073b42e10ebd library=cuda compute={cc} driver=12.2 name="{name}" total="79.1 GiB" '
         'available="78.6 GiB"')


def _lines(name: str, n: int, cc: str = "9.0") -> str:
    return "\n".join(_LINE.format(i=i, cc=cc, name=name) for i in range(n)) + "\n"


def test_capture_1927_five_h100_sxm_listed_by_ollama() -> None:
    """Real (capture 1927, ollama/ollama#10061): five `NVIDIA H100 80GB HBM3` listed under library=cuda."""
    r = capture_checks("1927", FM)[FM]
    assert r.status == "ok" and "5 GPU(s)" in r.message and "NVSwitch" in r.message


def test_one_piece_of_evidence_holds_every_gpu_named() -> None:
    """Real lines (ollama/ollama#10670): three GPUs of two models, in the order printed, once per id."""
    lines = [
        'May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference '
        'compute" id=GPU-xxxx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1080 Ti" '
        'total="10.9 GiB" available="8.5 GiB"',
        'May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference '
        'compute" id=GPU-xx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1070" '
        'total="7.9 GiB" available="5.6 GiB"',
        'May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference '
        'compute" id=GPU-xx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1070" '
        'total="7.9 GiB" available="5.6 GiB"',
    ]
    ran = [r for r in ran_in_lines(lines) if r.models]
    assert len(ran) == 1 and ran[0].models == ("NVIDIA GeForce GTX 1080 Ti", "NVIDIA GeForce GTX 1070")


def test_ollama_0_12_description_names_the_gpu() -> None:
    """Real line shape (ollama 0.12+, corpus gpus.OLLAMA_GPU): the product is `description`, the name is CUDA0."""
    line = ('time=2025-10-01T10:00:00.000Z level=INFO source=types.go:42 msg="inference compute" id=GPU-5d1c '
            'filter_id="" library=CUDA compute=8.6 name=CUDA0 description="NVIDIA GeForce RTX 3060 Ti" '
            'libdirs=ollama,cuda_v12 driver=13.0 pci_id=0000:01:00.0 type=discrete total="8.0 GiB" available="7.6 GiB"')
    assert [r.models for r in ran_in_lines([line])] == [("NVIDIA GeForce RTX 3060 Ti",)]


def test_cpu_and_rocm_lines_show_no_cuda() -> None:
    """Modelled on ollama's fallback lines: library=cpu and library=rocm are not CUDA at work."""
    lines = ['level=INFO source=types.go:130 msg="inference compute" id=0 library=cpu variant=avx2 compute="" '
             'driver=0.0 name="" total="62.7 GiB" available="58.1 GiB"',
             'level=INFO source=types.go:130 msg="inference compute" id=0 library=rocm variant="" compute=gfx1100 '
             'driver=6.3 name=1002:744c total="24.0 GiB" available="23.9 GiB"']
    assert ran_in_lines(lines) == ()


def test_h100_pcie_cards_show_no_fabric(tmp_path: Path) -> None:
    """Real line shape (ollama/ollama#5024, `NVIDIA H100 PCIe` under ollama 0.1.44), eight of them modelled: PCIe
    cards sit on no NVSwitch board, so the listing proves no Fabric Manager at work."""
    r = paste_checks(tmp_path, _lines("NVIDIA H100 PCIe", 8), FM)[FM]
    assert r.status != "ok"


def test_one_sxm_gpu_proves_no_fabric(tmp_path: Path) -> None:
    """Real line (a cluster's ollama guide, singularity on one `NVIDIA A100-SXM4-80GB`): one GPU of an NVSwitch board
    may be a VM's partition with its NVLinks off, so CUDA at work there proves no fabric."""
    r = paste_checks(tmp_path, _lines("NVIDIA A100-SXM4-80GB", 1, "8.0"), FM)[FM]
    assert r.status != "ok"


def test_eight_a100_sxm_listed_show_the_fabric_up(tmp_path: Path) -> None:
    """Modelled on the same line: eight `NVIDIA A100-SXM4-80GB` listed under CUDA sit on an HGX NVSwitch board."""
    r = paste_checks(tmp_path, _lines("NVIDIA A100-SXM4-80GB", 8, "8.0"), FM)[FM]
    assert r.status == "ok" and "8 NVIDIA A100-SXM4-80GB" in r.message
