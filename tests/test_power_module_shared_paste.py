"""Power caps, the kernel module's flavour and a shared GPU from what a paste shows (h124e).

Each rule is tested with its corpus file and with variants (modelled, said so): another wording, another GPU, a cut
line. A test fails where the rule stops reading its line, or reads it where it should not.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_result, paste_checks
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.facts.gpus import parse_ggml_cuda_gpus
from stackaudit.facts.nvidia import GpuInfo, power_cap_sweep
from stackaudit.facts.platform import platform_words
from stackaudit.facts.time_slicing import stated_vgpu_vms
from stackaudit.gputable import architecture_of, capability_architecture, capability_name

POWER = "PWR-GPU-POWER-LIMIT"
MODULE = "DRV-OPEN-MODULE"
SHARED = "MEM-GPU-SHARED"

# --- a cut RTX PRO 4500 Blackwell name: the workstation card's 200 W or the Server Edition's 165 W -----------------

# Real: corpus 2811 (community-scripts/ProxmoxVED#2047), the table cut inside GPU 0's third row.
PRO_4500 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.178.04             Driver Version: 580.178.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA RTX PRO 4500 Blac...    Off |   00000000:93:00.0 Off |                  Off |
| 30%   30C    P8              4W /  200W |       1MiB /  32623MiB |      0%      Default |
"""


def test_corpus_2811_cap_at_the_higher_default_is_ok() -> None:
    r = capture_result("2811", POWER)
    assert r.status == "ok" and "Server Edition (165 W)" in r.message


def test_cut_pro_4500_rows_differ_so_the_highest_decides() -> None:
    g = GpuInfo(index=0, name="NVIDIA RTX PRO 4500 Blac...", cut_name="NVIDIA RTX PRO 4500 Blac...",
                memory_total_mib=32623)
    assert g.power_default[0] is None  # 200 W or 165 W: no one default
    assert g.power_default_most[0] == 200


def test_a_cap_between_the_two_defaults_is_not_ok(tmp_path: Path) -> None:
    # Modelled: the same card capped at 180 W, above the Server Edition's default and below the workstation card's.
    low = PRO_4500.replace("4W /  200W", "4W /  180W")
    assert paste_checks(tmp_path, low, POWER)[POWER].status == "unknown"


# --- a hand-written collect_env driver line that names its package --------------------------------------------------

# Real: corpus 2854 (vllm-project/vllm#55571), the user's condensed report.
REPORT = """\
PyTorch version         : 2.13.0+cu130
Python version          : 3.12.3
GPU                     : NVIDIA RTX PRO 5000 72GB Blackwell (SM120), 73,415 MiB, VBIOS 98.02.9F.00.01
Nvidia driver version   : 595.84 (nvidia-driver-595-open, Ubuntu package 595.84-0ubuntu0.24.04.1)
"""


def test_corpus_2854_open_package_names_the_flavour() -> None:
    r = capture_result("2854", MODULE)
    assert r.status == "ok" and "open kernel module (595.84)" in r.message


def test_the_package_of_the_branch_names_the_flavour(tmp_path: Path) -> None:
    assert parse_collect_env(REPORT).driver_version.startswith("595.84 (")
    assert paste_checks(tmp_path, REPORT, MODULE)[MODULE].status == "ok"
    # Modelled: the proprietary package of the branch with the same Blackwell GPU is the wrong flavour.
    closed = REPORT.replace("nvidia-driver-595-open,", "nvidia-driver-595,")
    assert paste_checks(tmp_path, closed, MODULE)[MODULE].status != "ok"
    # Modelled: another branch's package names nothing of the driver shown.
    other = REPORT.replace("nvidia-driver-595-open,", "nvidia-driver-580-open,")
    assert "open kernel module" not in paste_checks(tmp_path, other, MODULE)[MODULE].message


# --- ggml's `NVIDIA Graphics Device`: the name the driver gives a device id it has no name for ----------------------

# Real: corpus 2856 (an ollama runner's log, llama.cpp's device line for device 3).
PLACEHOLDER = """\
ggml_cuda_init: found 4 CUDA devices:
  Device 3: NVIDIA Graphics Device, compute capability 8.0, VMM: yes
"""


def test_corpus_2856_the_capability_names_the_architecture() -> None:
    r = capture_result("2856", MODULE)
    assert r.status == "ok" and "Ampere" in r.message
    assert capture_result("2856", "MEM-MIG").status == "ok"  # a whole GPU's name, no MIG slice's


def test_placeholder_name_keeps_its_capability() -> None:
    [g] = parse_ggml_cuda_gpus(PLACEHOLDER).gpus
    assert g.model == "NVIDIA Graphics Device of compute capability 8.0"
    assert capability_architecture(g.model) == "Ampere" and architecture_of(g.model) == ""
    assert capability_architecture(capability_name("9.0")) == "Hopper"
    assert capability_architecture("NVIDIA A100-SXM4-80GB") == ""
    # Modelled: a named device keeps its name, the capability beside it is not added.
    [named] = parse_ggml_cuda_gpus(PLACEHOLDER.replace("NVIDIA Graphics Device", "NVIDIA A100-SXM4-80GB")).gpus
    assert named.model == "NVIDIA A100-SXM4-80GB"


def test_placeholder_of_a_pre_turing_capability_is_not_either_flavour(tmp_path: Path) -> None:
    # Modelled: the same line of a Pascal part (6.1): the proprietary module drove it.
    pascal = PLACEHOLDER.replace("compute capability 8.0", "compute capability 6.1")
    r = paste_checks(tmp_path, pascal, MODULE)[MODULE]
    assert r.status == "ok" and "pre-Turing" in r.message


# --- Docker Desktop named by its 4.x version ------------------------------------------------------------------------

def test_corpus_2864_docker_desktop_version_is_wsl() -> None:
    r = capture_result("2864", MODULE)
    assert r.status == "not-applicable" and "Docker Desktop" in r.message


def test_docker_desktop_version_words() -> None:
    said = platform_words("我退到555.85+cuda12.5，解决了问题，docker是最新V4.31.1")  # real: corpus 2864
    assert said is not None and said.wsl
    # Modelled: other wordings of the same statement.
    assert platform_words("updated docker to 4.30.0 and CUDA works again") is not None
    assert platform_words("Docker version 4.31.1, nvidia driver 555.85") is not None
    # Modelled: Docker Engine's and Compose's versions, an image tag, no GPU word: none is Docker Desktop's.
    assert platform_words("docker 24.0.4 with CUDA 12.2") is None
    assert platform_words("docker-compose 2.4.1 with CUDA 12.2") is None
    assert platform_words("docker 4.31.1 is installed") is None
    assert platform_words("docker pull vllm/vllm-openai:v0.4.3 on CUDA 12.1") is None


# --- a power-cap sweep's steps ---------------------------------------------------------------------------------------

# Real: corpus 2842 (noonghunna/club-3090#698), two steps of the sweep over both GPUs.
SWEEP = """\
```text
================================================
=== Cap: 330W (GPUs 0,1) @ 2026-07-13T15:16:12Z ===
================================================
[verify] limit set to: 330.00W

[result] cap=330W actual_W=617.78 temp=75 sm_clk=1920 mem_clk=9501 pstate=P2 throttle_pwr=97 throttle_thermal=0 narr=29.07 code=29.07 tps_per_w=0.047
[time] 330W cap wall=23.3s start=2026-07-13T15:16:12Z end=2026-07-13T15:16:35Z

================================================
=== Cap: 340W (GPUs 0,1) @ 2026-07-13T15:16:35Z ===
================================================
[verify] limit set to: 340.00W

[result] cap=340W actual_W=615.98 temp=76 sm_clk=1905 mem_clk=9501 pstate=P2 throttle_pwr=80 throttle_thermal=0 narr=28.57 code=28.91 tps_per_w=0.046
```
"""


def test_corpus_2842_sweep_caps_are_the_scripts() -> None:
    r = capture_result("2842", POWER)
    assert r.status == "not-an-issue" and "330 W, 340 W, 350 W" in r.message


def test_sweep_steps_are_read_with_their_limits(tmp_path: Path) -> None:
    sweep = power_cap_sweep("cap=330 gpus=0,1 set=330.00\ncap=340 gpus=0,1 set=340.00\n")
    assert sweep.caps_w == (330, 340) and sweep.gpus == (0, 1) and sweep.set_w == (330, 340)
    r = paste_checks(tmp_path, SWEEP, POWER)[POWER]
    assert r.status == "not-an-issue" and "each set and read back" in r.message
    # Modelled: the step's verify line cut away: the caps are the banners', none said to be read back.
    unverified = SWEEP.replace("[verify] limit set to: 340.00W\n", "")
    r = paste_checks(tmp_path, unverified, POWER)[POWER]
    assert r.status == "not-an-issue" and "read back" not in r.message


# --- several VMs on vGPUs of one GPU ----------------------------------------------------------------------------------

def test_corpus_2830_vgpu_vms_share_the_t4() -> None:
    r = capture_result("2830", SHARED)
    assert r.status == "issue" and "2 VMs" in r.message


def test_vgpu_vms_words() -> None:
    assert stated_vgpu_vms("Two vGPU VMs using the same t4 graphics card, accessing each other") == 2  # real: 2830
    # Modelled: another count, verb and GPU.
    assert stated_vgpu_vms("3 vGPU VMs share the same A40 board") == 3
    assert stated_vgpu_vms("four vGPU virtual machines on the same NVIDIA L40S GPU") == 4
    # Modelled: a question, different GPUs, one VM: none states a shared GPU.
    assert stated_vgpu_vms("Can two vGPU VMs use the same T4 card?") == 0
    assert stated_vgpu_vms("Two vGPU VMs on different GPUs") == 0
    assert stated_vgpu_vms("one vGPU VM using the same card as before") == 0


# --- a form's answer stating each GPU's limit, the cards it is of answered above ---------------------------------------

# Real: corpus 2899 (club-3090's field report form), its two answers.
FORM = """\
### Card, and how many

2× RTX 3090 24 GB (sm86), NVLink. `nvidia-smi topo -m` reports NV4 between the cards; tensor parallel size 2.

### Power limit during the run

**250 W per GPU**, unchanged throughout.
"""


def test_corpus_2899_each_gpus_limit_from_the_form() -> None:
    r = capture_result("2899", POWER)
    assert r.status == "issue" and "GPU 1 capped at 250 W" in r.message


def test_per_gpu_answer_takes_the_cards_above(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, FORM, POWER)[POWER].status == "issue"
    # Modelled: the cards at their default, another model above, a sentence of prose: no limit read of another's.
    assert paste_checks(tmp_path, FORM.replace("**250 W", "**350 W"), POWER)[POWER].status == "ok"
    two_models = FORM.replace("### Power limit", "1x RTX 4090 as a display card\n\n### Power limit")
    assert paste_checks(tmp_path, two_models, POWER)[POWER].status == "unknown"  # whose limit: not said
    prose = FORM.replace("**250 W per GPU**, unchanged throughout.",
                         "We usually run 250 W per GPU on these boxes, but this report was taken at whatever the "
                         "cards defaulted to after a reboot.")
    assert paste_checks(tmp_path, prose, POWER)[POWER].status == "unknown"


def test_a_stock_cap_per_gpu_is_not_a_limit_set() -> None:
    # Real: corpus 2842's rig list, `- Stock power cap: 350W per GPU` under its GPU line: the card's default, the
    # limits during the run are the sweep's (test_corpus_2842_sweep_caps_are_the_scripts).
    from stackaudit.importers.rig_report import per_gpu_answer

    lines = ["- GPU: 2x NVIDIA GeForce RTX 3090 Founders Edition, 24 GiB each, NVLink", "- Driver: 580.126.20",
             "- Stock power cap: 350W per GPU"]
    assert per_gpu_answer(lines, 2) is None
    assert per_gpu_answer([*lines[:2], "- Power cap: 300W per GPU"], 2) == (2, "RTX 3090", "300")
