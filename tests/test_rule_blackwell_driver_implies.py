"""What a GPU's architecture and a hardware summary imply about the driver (issue 28, blind runs II and JJ).

- A Blackwell GPU that the driver ran (torch initialised CUDA on it, nvidia-smi lists it) shows the open kernel
  module loaded, even where no source shows the driver itself (facts/nvidia.py open_module_only).
- The nvidia-smi table cuts every RTX PRO Blackwell name after `Blac` (gputable._ARCH_WORDS).
- A hardware list's `- Nvidia driver version 580.65.06` bullet states the driver (facts/nvidia.py STATED_DRIVER).
- An engine shown without its CUDA runtime runs on a driver at the newest CUDA major's floor (drv.runs_every_runtime).
"""

from __future__ import annotations

from corpus import body, capture_checks, pasted
from stackaudit.checks.drv import runs_every_runtime
from stackaudit.engine.testing import run_checks
from stackaudit.gputable import architecture_of


def _status(text: str, check: str) -> tuple[str, str]:
    r = run_checks(pasted(text), [check])[check]
    return r.status, r.message


# --- the open module from a Blackwell GPU the driver ran --------------------------------------------------


def test_vllm_21274_rtx5090_collect_env_without_driver_shows_the_open_module() -> None:
    # https://github.com/vllm-project/vllm/issues/21274: the collect_env is cut before its driver line.
    r = capture_checks("742", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok"
    assert "NVIDIA GeForce RTX 5090" in r.message and "the NVIDIA driver" in r.message


def test_sglang_22987_b200_check_env_with_driver_shows_the_open_module() -> None:
    # https://github.com/sgl-project/sglang/issues/22987
    r = capture_checks("743", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "B200" in r.message


def test_ollama_15178_cut_rtx_pro_4500_name_is_blackwell_and_shows_the_open_module() -> None:
    # https://github.com/ollama/ollama/issues/15178: `NVIDIA RTX PRO 4500 Blac...`, a name the GPU table has no row for.
    r = capture_checks("749", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "NVIDIA RTX PRO 4500 Blac..." in r.message


def test_modelled_collect_env_whose_cuda_did_not_initialise_says_nothing_of_the_flavour() -> None:
    # Modelled on 742: torch did not initialise CUDA, so the RTX 5090s are not shown driven.
    text = body("742").replace("Is CUDA available            : True", "Is CUDA available            : False")
    assert _status(text, "DRV-OPEN-MODULE")[0] == "unknown"


def test_modelled_ada_collect_env_needs_neither_flavour() -> None:
    # Modelled on 742: an RTX 4090 runs under either flavour, so neither is required (ok, the flavour not shown).
    text = body("742").replace("GeForce RTX 5090", "GeForce RTX 4090")
    assert _status(text, "DRV-OPEN-MODULE")[0] == "ok"


def test_cut_rtx_pro_names_are_blackwell_and_other_cuts_are_not() -> None:
    assert architecture_of("NVIDIA RTX PRO 4500 Blac...") == "Blackwell"
    assert architecture_of("NVIDIA RTX PRO 4000 Blac…") == "Blackwell"
    assert architecture_of("NVIDIA RTX PRO 6000 Blac...") == "Blackwell"
    assert architecture_of("NVIDIA RTX 4000 Ada Gene...") == "Ada Lovelace"  # modelled counter-example
    assert architecture_of("NVIDIA RTX PRO 4500 Bla...") == ""  # modelled: the cut does not say which word


# --- the driver of a hardware list's bullet ----------------------------------------------------------------


def test_specforge_164_driver_bullet_without_colon_is_the_driver() -> None:
    # https://github.com/sgl-project/SpecForge/issues/164: `- Nvidia driver version 580.65.06, CUDA version 13.0`.
    r = capture_checks("760", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok"
    assert "580.65.06" in r.message and "sglang" in r.message


def test_a_driver_version_bullet_alone_names_the_driver() -> None:
    # The bullet of supermicro 309 (NVIDIA-SMI 550.54.15 below it) and of keylase/nvidia-patch#923's template
    # (https://github.com/keylase/nvidia-patch/issues/923), each alone.
    assert _status("- driver version 550.54.15\n", "DRV-CUDA-COMPAT")[1].startswith("driver 550.54.15")
    assert _status("- Nvidia driver version: 570.133.07\n", "DRV-CUDA-COMPAT")[1].startswith("driver 570.133.07")


def test_modelled_driver_version_inside_a_sentence_is_not_read() -> None:
    # Modelled: a version named in prose may be the one replaced.
    _, message = _status("I upgraded from the nvidia driver version 535.104.05 but it still hangs\n"
                         "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n",
                         "DRV-CUDA-COMPAT")
    assert "535.104.05" not in message


# --- a driver at the newest major's floor runs any runtime an engine ships ---------------------------------


def test_runs_every_runtime_from_the_newest_majors_floor() -> None:
    assert runs_every_runtime((580, 65, 6))
    assert runs_every_runtime((590, 48, 1))
    assert not runs_every_runtime((575, 57, 8))
    assert not runs_every_runtime(())


def test_driver_without_an_engine_has_no_runtime_to_judge() -> None:
    # https://github.com/RKHashmani/StellaForge (docs/container-images.md, corpus 229): nvidia-smi in a container.
    assert capture_checks("229", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


def test_modelled_engine_on_an_older_branch_stays_unknown() -> None:
    # Modelled on 760: a CUDA 12.9 driver does not run a CUDA 13 runtime the engine may ship.
    text = body("760").replace("580.65.06, CUDA version 13.0", "575.57.08, CUDA version 12.9")
    assert _status(text, "DRV-CUDA-COMPAT")[0] == "unknown"


# --- a plain hardware list: the GPU with its power limit, the open driver package ----------------------------


def test_fwupd_10896_hardware_list_power_limit_below_the_max_q_default() -> None:
    # https://github.com/fwupd/fwupd/issues/10896: `GPU power limit: 250 W` on a 300 W RTX PRO 6000 Max-Q.
    results = capture_checks("751", "PWR-GPU-POWER-LIMIT", "DRV-OPEN-MODULE")
    assert results["PWR-GPU-POWER-LIMIT"].status == "issue"
    assert "250 W" in results["PWR-GPU-POWER-LIMIT"].message and "300 W" in results["PWR-GPU-POWER-LIMIT"].message
    assert results["DRV-OPEN-MODULE"].status == "ok"


def test_modelled_hardware_list_at_the_default_is_not_capped() -> None:
    # Modelled on 751: the Max-Q at its own 300 W.
    text = body("751").replace("GPU power limit: 250 W", "GPU power limit: 300 W")
    assert _status(text, "PWR-GPU-POWER-LIMIT")[0] != "issue"


def test_modelled_ada_gpu_runs_under_either_package_flavour() -> None:
    # Modelled on 751 with an Ada card: the GPU implies no flavour, and both flavours drive it, so a proprietary or
    # other-branch package leaves the check ok with neither flavour required (the open package names its flavour).
    ada = body("751").replace("RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX 6000 Ada Generation")
    assert _status(ada, "DRV-OPEN-MODULE")[0] == "ok"
    for other in (ada.replace("-580-open", "-580"), ada.replace("-580-open", "-570-open")):
        status, message = _status(other, "DRV-OPEN-MODULE")
        assert status == "ok" and "neither is required" in message


# --- a hardware list's package versions ------------------------------------------------------------------------


def test_fwupd_10896_pytorch_line_names_torchs_cuda() -> None:
    # https://github.com/fwupd/fwupd/issues/10896: `PyTorch: 2.8.0+cu128` under driver 580.173.02.
    r = capture_checks("751", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "12.8" in r.message


def test_stated_versions_read_torch_cuda_and_the_engine() -> None:
    from stackaudit.facts.python_env import python_env_from_stated_versions

    env = python_env_from_stated_versions("vLLM: 0.11.0\nPyTorch: 2.8.0+cu128\n").environments[0]
    assert (env.torch_cuda, env.engine, env.version("vllm")) == ("12.8", "vllm", "0.11.0")
    # Modelled: a PyPI wheel without its local label names no CUDA.
    assert python_env_from_stated_versions("torch: 2.8.0\n").environments[0].torch_cuda is None


def test_modelled_torch_for_a_newer_major_than_the_driver_is_an_issue() -> None:
    # Modelled on 751: a CUDA 13 torch on an R575 driver (CUDA 12.9).
    text = body("751").replace("Driver: 580.173.02", "Driver: 575.57.08").replace(
        "580-open and nvidia-dkms-580-open version 580.173.02", "575-open").replace("2.8.0+cu128", "2.9.0+cu130")
    assert _status(text, "DRV-CUDA-COMPAT")[0] == "issue"
