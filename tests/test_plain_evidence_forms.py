"""Issue 28 (h52d): pastes once refused as "nothing recognisable" although they hold plain evidence, and
DRV-OPEN-MODULE from evidence other than /proc/driver/nvidia/version.

Real pastes are the corpus's (each under its public thread, tests/data/captures/); modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.gpu_events import GpuEvents
from stackaudit.facts.gpus import GGML_USING_TITLE, GpuInventory
from stackaudit.facts.nvidia import NvidiaDriver
from stackaudit.facts.serving_logs import ServingLog
from stackaudit.importers.evidence import headed_value


def _status(prefix: str, check: str) -> tuple[str, str]:
    r = capture_checks(prefix, check)[check]
    return r.status, r.message


# --- a summary's key on one line, its value on the next (corpus 1086) ---------------------------------------------


def test_a_key_alone_and_its_value_below_state_the_driver_and_its_flavour() -> None:
    # ggml-org/llama.cpp#23919: `NVIDIA driver:` then `` `595.71.05` open kernel driver ``.
    driver = fact(pasted(body("1086")), "nvidia_driver")
    assert isinstance(driver, NvidiaDriver)
    assert (driver.version, driver.flavour) == ("595.71.05", "open")
    assert _status("1086", "DRV-OPEN-MODULE")[0] == "ok"


def test_a_list_driver_in_the_banners_words_states_the_open_module() -> None:
    # Corpus 2242 (syv-ai/qwen38-27b-rtx3090#98): `Driver     NVIDIA Open Kernel Module 610.43.02, CUDA 13.3` over a
    # GA100 card (Ampere), which the open module drives.
    driver = fact(pasted(body("2242")), "nvidia_driver")
    assert isinstance(driver, NvidiaDriver)
    assert (driver.version, driver.flavour) == ("610.43.02", "open")
    status, message = _status("2242", "DRV-OPEN-MODULE")
    assert status == "ok" and "open kernel module (610.43.02)" in message
    # Modelled: the proprietary banner's words state the version and no flavour; a requirement in prose states none.
    plain = fact(pasted("Driver     NVIDIA Kernel Module 550.54.15, CUDA 12.4\n"), "nvidia_driver")
    assert isinstance(plain, NvidiaDriver) and (plain.version, plain.flavour) == ("550.54.15", None)
    said = fact(pasted("The NVIDIA Open Kernel Module 610.43.02 or newer is required\nDriver Version: 550.54.15\n"),
                "nvidia_driver")
    assert isinstance(said, NvidiaDriver) and said.version == "550.54.15"


def test_a_key_with_a_long_or_headed_next_line_is_not_joined() -> None:
    # Modelled: a heading over a paragraph, a heading over another heading.
    assert headed_value(["Driver:", "x" * 120], 0)[0] == ""
    assert headed_value(["GPUs:", "- GPU0:"], 0)[0] == ""
    assert headed_value(["NVIDIA driver: 595.71.05", "open"], 0)[0] == ""


# --- the GPUs a CUDA program listed (corpus 1059) -----------------------------------------------------------------


def test_llama_cpp_device_info_lists_the_gpus_cuda_found() -> None:
    # ggml-org/llama.cpp#24147: `0.00.436.742 I   - CUDA0   : NVIDIA GeForce RTX 5070 Ti (15838 MiB, 58499 MiB free)`.
    gpus = fact(pasted(body("1059")), "gpus")
    assert isinstance(gpus, GpuInventory)
    assert [(g.index, g.model) for g in gpus.gpus] == [(0, "NVIDIA GeForce RTX 5070 Ti"), (1, "NVIDIA GeForce RTX 5070 Ti")]
    assert all(GGML_USING_TITLE in g.shown_by for g in gpus.gpus)


def test_a_blackwell_gpu_cuda_listed_runs_on_the_open_module() -> None:
    status, message = _status("1059", "DRV-OPEN-MODULE")
    assert status == "ok" and "CUDA listed it" in message and "open module is loaded" in message


def test_modelled_an_ampere_gpu_cuda_listed_needs_neither_flavour(tmp_path: Path) -> None:
    # Modelled: 1059's device list with two RTX 3090 (Ampere): either module drives them, so neither is required
    # (ok, which one is loaded not shown: corpus 2278, 2443 and 2457, both readers).
    text = ("0.00.345.957 I device_info:\n"
            "0.00.436.742 I   - CUDA0   : NVIDIA GeForce RTX 3090 (24135 MiB, 23811 MiB free)\n"
            "0.00.528.104 I   - CUDA1   : NVIDIA GeForce RTX 3090 (24135 MiB, 23811 MiB free)\n")
    assert paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == "ok"


# --- the driver release refusing a GPU (corpus 930, 1098) ---------------------------------------------------------


def test_the_release_refusing_an_h100_is_no_flavours_fault() -> None:
    # NVIDIA/nvtrust#55: `The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2330)` / `NVRM: installed in this system is not
    # supported by the` / `NVRM: NVIDIA 550.90.07 driver release.`, under the user's `open driver 550.90.07`.
    events = fact(pasted(body("1098")), "gpu_events")
    assert isinstance(events, GpuEvents)
    assert [(r.bdf, r.device_id, r.release) for r in events.refused] == [("0000:01:00.0", "2330", "550.90.07")]
    status, message = _status("1098", "DRV-OPEN-MODULE")
    assert status == "not-an-issue" and "Hopper" in message and "the open module is the one shown" in message


def test_a_dmesg_continuation_line_is_its_messages() -> None:
    # corpus 930: `NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system` then the indented
    # `      is not supported by the NVIDIA 580.126.09 driver release.`
    events = fact(pasted(body("930")), "gpu_events")
    assert isinstance(events, GpuEvents)
    assert [(r.bdf, r.release) for r in events.refused] == [("000a:00:00.0", "580.126.09")]
    assert _status("930", "DRV-OPEN-MODULE")[0] == "not-an-issue"


def test_modelled_the_release_refusing_a_blackwell_gpu_under_proprietary_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: the proprietary module's banner, nvidia-smi's listing of an RTX 5090 is absent; the refusal of an
    # RTX 5090 (10de:2b85) is a Blackwell GPU, which only the open module drives: the rule does not speak for it.
    text = ("[    7.982876] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Release Build  "
            "(dvs-builder@U16-I2-C05-14-2)  Wed Jul 26 23:15:31 UTC 2024\n"
            "[   38.034696] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\n"
            "[   38.034696] NVRM: installed in this system is not supported by the\n"
            "[   38.034696] NVRM: NVIDIA 550.90.07 driver release.\n")
    assert paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status != "not-an-issue"


# --- other forms once refused (corpus 1099, 1103, 1066, 1105) -----------------------------------------------------


def test_torch_process_group_nccl_lines_are_an_engine_log() -> None:
    # sgl-project/sglang#3932: `[rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] ... watchdog at work: 32`.
    assert isinstance(fact(pasted(body("1099")), "serving_log"), ServingLog)


def test_a_collect_env_cut_to_its_library_list_is_the_report() -> None:
    # vllm-project/vllm#13200: from `Versions of relevant libraries:` on.
    report = fact(pasted(body("1103")), "collect_env")
    assert isinstance(report, CollectEnv)
    assert (report.torch_version, report.torch_cuda, report.nccl_version) == ("2.5.1+cu124", "12.4", "2.21.5")
    assert not report.gpu_models and not report.driver_version


# `apt list --installed` rows of the driver's packages (name/suites,now version arch [installed...]): real, from an
# Ubuntu forums thread (a transitional nvidia-driver-530 at 535's version, and 545's list of another user) and a
# user's notes of a TensorFlow set-up (535.183.01); the corpus's 2176 is NVIDIA/nvidia-docker#1525.
APT_LIST_ROWS = (
    ("nvidia-compute-utils-535/jammy-updates,jammy-security,now 535.129.03-0ubuntu0.22.04.1 amd64 [installed,automatic]\n"
     "nvidia-driver-530/jammy-updates,jammy-security,now 535.129.03-0ubuntu0.22.04.1 amd64 [installed]\n", "535.129.03"),
    ("nvidia-driver-545/noble,now 545.29.06-0ubuntu0~gpu24.04.1 amd64 [installed]\n", "545.29.06"),
    ("nvidia-driver-535/jammy-updates,jammy-security,now 535.183.01-0ubuntu0.22.04.1 amd64 [installed]\n"
     "nvidia-settings/jammy,now 510.47.03-0ubuntu1 amd64 [installed,automatic]\n", "535.183.01"),
)


def test_an_apt_list_row_states_the_installed_driver() -> None:
    for text, version in APT_LIST_ROWS:
        driver = fact(pasted(text), "nvidia_driver")
        assert isinstance(driver, NvidiaDriver), text
        assert (driver.version, driver.loaded) == (version, None), text


def test_modelled_an_apt_row_not_installed_states_no_driver() -> None:
    # Modelled: `apt list nvidia-driver-535` of a package only available (no `[installed`), and nvidia-settings alone
    # (its version is its own, not the driver's).
    for text in ("nvidia-driver-535/jammy-updates 535.183.01-0ubuntu0.22.04.1 amd64\n",
                 "nvidia-settings/jammy,now 510.47.03-0ubuntu1 amd64 [installed,automatic]\n"):
        assert not isinstance(fact(pasted(text), "nvidia_driver"), NvidiaDriver), text


def test_corpus_2176_the_listed_driver_runs_the_image_cuda() -> None:
    # Corpus 2176: `nvidia-compute-utils-470/unknown,now 470.57.02-0ubuntu1 amd64 [installed,automatic]` beside
    # `docker run --gpus all nvidia/cuda:11.4.0-base-ubuntu20.04`: R470 supports CUDA 11.4.
    assert _status("2176", "DRV-CUDA-COMPAT")[0] == "ok"


def test_a_dpkg_row_and_an_rpm_name_state_the_installed_driver() -> None:
    # ollama/ollama#10288's `ii  nvidia-driver-570  570.124.06-0ubuntu1 ...`; wilicc/gpu-burn#92's
    # `nvidia-driver-latest-dkms-545.23.08-1.el7.x86_64`: installed, not shown loaded.
    for prefix, version in (("1066", "570.124.06"), ("1105", "545.23.08")):
        driver = fact(pasted(body(prefix)), "nvidia_driver")
        assert isinstance(driver, NvidiaDriver)
        assert (driver.version, driver.flavour, driver.loaded) == (version, None, None)
