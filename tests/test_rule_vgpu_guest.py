"""FW-VM on NVIDIA vGPU guests: unified memory and the CUDA profilers are off unless the host enables them, P2P
never crosses PCIe, and an unlicensed vGPU is throttled after 20 minutes (NVIDIA Virtual GPU Software User Guide;
issue 28, blind run H: 311, 334, 339). A guest of one vGPU is an issue only where the source shows one of those
limits at work (the user's words: its licence, the 20-minute slowdown); else it is judged over its one GPU (h62a,
the blind readings 295, 732, 763, 1327)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.engine.collect import Missing

CHECK = "FW-VM"


def test_new_style_profile_name_is_a_vgpu_guest() -> None:
    """Real (ollama#8023, capture 311): `NVIDIA L40S-24Q`, the name a newer guest driver gives the profile."""
    r = capture_checks("311", CHECK)[CHECK]
    assert r.status == "issue" and "vGPU guest" in r.message and "L40S-24Q" in r.message
    # Every limit is named, joined as one sentence (the P2P clause only where the workload is not shown on one GPU).
    assert "and throttles an unlicensed vGPU" in r.message


def test_slowdown_after_20_minutes_in_the_users_words_is_a_limit_at_work() -> None:
    """Real (capture 311): one L40S-24Q, the user's `constant at around 20 minutes, after which it runs very poorly`."""
    r = capture_checks("311", CHECK)[CHECK]
    assert r.status == "issue" and "20 minutes" in r.message and "the user's words" in r.message


def test_licensing_issue_in_the_users_words_is_a_limit_at_work() -> None:
    """Real (AKS#4869, capture 932): an NV36ads A10 v5 vGPU size, the user's `we are noticing licensing issue`."""
    r = capture_checks("932", CHECK)[CHECK]
    assert r.status == "issue" and "licensing issue" in r.message


def test_one_vgpu_guest_with_no_limit_shown_is_not_an_issue() -> None:
    """Real (ollama#6836, capture 1327): one GRID A100D-40C serving one model, no vGPU limit shown at work."""
    r = capture_checks("1327", CHECK)[CHECK]
    assert r.status == "not-an-issue" and "vGPU guest" in r.message and "A100D-40C" in r.message


def test_several_vgpus_stay_an_issue() -> None:
    """Real (capture 936): three GRID A100D-16C vGPUs: no P2P over PCIe between them."""
    r = capture_checks("936", CHECK)[CHECK]
    assert r.status == "issue" and "no P2P over PCIe" in r.message


def test_modelled_licence_words_make_one_vgpu_an_issue(tmp_path: Path) -> None:
    """Modelled on 1327: the same table, and the user's words that the vGPU is unlicensed."""
    text = "The vGPU shows as unlicensed in nvidia-smi -q.\n" + capture_path("1327").read_text().split("-----\n", 1)[1]
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and "unlicensed" in r.message


def test_pass_through_gpu_is_not_judged_as_a_vgpu() -> None:
    """Real (capture 118): `GPU Virtualization Mode: Pass-Through` is a whole GPU in a VM: no vGPU defaults."""
    r = capture_checks("118", CHECK)[CHECK]
    assert "vGPU guest" not in r.message


def test_compute_profile_in_a_table_is_a_vgpu_guest(tmp_path: Path) -> None:
    """Modelled on lmdeploy#2414 (capture 339): a GRID V100D-32C compute profile in an nvidia-smi table."""
    text = (capture_path("295").read_text().split("-----\n", 1)[1]
            .replace("GRID A100-40C ", "GRID V100D-32C"))
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "not-an-issue" and "V100D-32C" in r.message


def test_physical_board_name_is_no_vgpu(tmp_path: Path) -> None:
    """Modelled on 311: the same nvidia-smi -q with a physical board's name shows no VM. Its one GPU, named as a whole
    board (no vGPU profile), serves ollama: a VM or not, it loses nothing to one (h122c, checks/fw.py
    _machine_unread)."""
    text = capture_path("311").read_text().split("-----\n", 1)[1].replace("NVIDIA L40S-24Q", "NVIDIA L40S")
    assert isinstance(fact(pasted(text), "virtualization"), Missing)
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "not-an-issue"


def capture_path(prefix: str) -> Path:
    from corpus import CAPTURES_DIR

    return next(CAPTURES_DIR.glob(prefix + "-*.txt"))
