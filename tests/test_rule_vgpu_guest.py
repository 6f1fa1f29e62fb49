"""FW-VM on NVIDIA vGPU guests: unified memory and the CUDA profilers are off unless the host enables them, P2P
never crosses PCIe, and an unlicensed vGPU is throttled after 20 minutes, whatever the guest's GPU count
(NVIDIA Virtual GPU Software User Guide; issue 28, blind run H: 311, 334, 339)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "FW-VM"


def test_new_style_profile_name_is_a_vgpu_guest() -> None:
    """Real (ollama#8023, capture 311): `NVIDIA L40S-24Q`, the name a newer guest driver gives the profile."""
    r = capture_checks("311", CHECK)[CHECK]
    assert r.status == "issue" and "vGPU guest" in r.message and "L40S-24Q" in r.message
    # Every limit is named, joined as one sentence (the P2P clause only where the workload is not shown on one GPU).
    assert "and throttles an unlicensed vGPU" in r.message


def test_one_vgpu_guest_is_an_issue() -> None:
    """Real (vllm#4725, capture 295): one GRID A100-40C; the thread failed on a P2P query of the single vGPU."""
    r = capture_checks("295", CHECK)[CHECK]
    assert r.status == "issue" and "unified memory" in r.message


def test_cut_table_of_a_vgpu_guest_is_an_issue() -> None:
    """Real (text-generation-inference#1156, capture 246): the defaults hold however many vGPUs follow."""
    assert capture_checks("246", CHECK)[CHECK].status == "issue"


def test_pass_through_gpu_is_not_judged_as_a_vgpu() -> None:
    """Real (capture 118): `GPU Virtualization Mode: Pass-Through` is a whole GPU in a VM: no vGPU defaults."""
    r = capture_checks("118", CHECK)[CHECK]
    assert "vGPU guest" not in r.message


def test_compute_profile_in_a_table_is_a_vgpu_guest(tmp_path: Path) -> None:
    """Modelled on lmdeploy#2414 (capture 339): a GRID V100D-32C compute profile in an nvidia-smi table."""
    text = (capture_path("295").read_text().split("-----\n", 1)[1]
            .replace("GRID A100-40C ", "GRID V100D-32C"))
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and "V100D-32C" in r.message


def test_physical_board_name_is_no_vgpu(tmp_path: Path) -> None:
    """Modelled on 311: the same nvidia-smi -q with a physical board's name shows no VM."""
    text = capture_path("311").read_text().split("-----\n", 1)[1].replace("NVIDIA L40S-24Q", "NVIDIA L40S")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"


def capture_path(prefix: str) -> Path:
    from corpus import CAPTURES_DIR

    return next(CAPTURES_DIR.glob(prefix + "-*.txt"))
