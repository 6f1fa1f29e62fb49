"""Issue 28, DRV-CUDA-COMPAT where a paste states its versions alone: a copied nvidia-smi header line, a hardware
list's `Driver:`, and the system toolkit (nvcc's `Cuda compilation tools, release X`, `CUDA Toolkit: X`).

nvidia-smi prints `Driver Version:` only from a loaded driver, so a copied header line names the loaded one. Where no
torch is shown, the toolkit is the only CUDA on the paste: a driver of its CUDA or newer runs what it builds (ok), an
older one of its major by minor-version compatibility (not an issue), an older major not at all (issue).

Real pastes from three threads (corpus 170, 390, 410) for the toolkit, three (247, 264, 170) for the driver line;
the counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted


def _compat(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message


def test_nvcc_12_0_under_driver_550_is_ok() -> None:
    status, message = _compat("410")  # ollama/ollama#10765: GTX 1650, driver 550.144.03 (CUDA 12.4)
    assert status == "ok" and "toolkit 12.0" in message and "12.4" in message


def test_nvcc_12_4_under_a_copied_header_of_driver_591_is_ok() -> None:
    status, message = _compat("170")  # Luce-Org/lucebox#84: WSL 2, the header copied into a hardware list
    assert status == "ok" and "591.86" in message and "toolkit 12.4" in message


def test_toolkit_13_0_in_a_hardware_list_under_driver_580_is_ok() -> None:
    status, message = _compat("390")  # NVIDIA/cuda-samples#390: `Driver: 580.95.05`, `CUDA Toolkit: CUDA 13.0`
    assert status == "ok" and "580.95.05" in message and "toolkit 13.0" in message


def test_a_copied_header_line_names_the_loaded_driver() -> None:
    for prefix, version in (("247", "470.141.03"), ("264", "535.104.05"), ("170", "591.86")):
        driver = fact(pasted(body(prefix)), "nvidia_driver")
        assert driver.version == version and driver.loaded, prefix


def test_modelled_two_header_lines_of_different_drivers_name_none() -> None:
    # Modelled: two machines' header lines in one paste: no one driver.
    text = ("NVIDIA-SMI 470.141.03   Driver Version: 470.141.03   CUDA Version: 11.4\n"
            "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n")
    driver = fact(pasted(text), "nvidia_driver")
    assert not hasattr(driver, "version") and "several driver versions" in driver.reason


def test_modelled_a_newer_toolkit_of_the_same_major_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled: 410 with nvcc 12.6 on the 12.4 driver: minor-version compatibility runs what it builds.
    text = body("410").replace("release 12.0, V12.0.140", "release 12.6, V12.6.85")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "not-an-issue" and "minor-version" in r.message


def test_modelled_a_toolkit_of_a_newer_major_is_the_issue(tmp_path: Path) -> None:
    # Modelled: 410 with nvcc 13.0 on the R550 driver: CUDA 13 needs R580.
    text = body("410").replace("release 12.0, V12.0.140", "release 13.0, V13.0.48")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "13.x" in r.message


# --- a CUDA that ends a line of the user's items (facts/nvidia.STATED_CUDA_ITEM, h100c) -----------------------------

def test_a_cuda_ending_a_line_of_items_is_the_stated_cuda() -> None:
    from stackaudit.facts.nvidia import stated_cuda_item

    # Real lines: corpus 2230 (NVIDIA/k8s-device-plugin#352), 1736 and 760 (other threads' environment lists).
    for line, cuda in [("ubuntu 16.04 nvidia 2080  drivier-version 430.64  cuda 10.0", "10.0"),
                       ("- Nvidia Driver: 535.54.03, Cuda: 12.2", "12.2"),
                       ("  - Nvidia driver version 580.65.06, CUDA version 13.0", "13.0")]:
        m = stated_cuda_item(line)
        assert m is not None and m.group(1) == cuda, line
    # Corpus 1005's copied nvidia-smi header is the driver's figure, and a sentence's CUDA is no item (modelled).
    assert stated_cuda_item("*  NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2 ") \
        is None
    assert stated_cuda_item("I use cuda 12.2") is None


def test_a_cuda_item_nvidia_smi_reported_is_the_drivers_figure() -> None:
    # Corpus 2256 (ollama/ollama#16957): the user says nvidia-smi reported it, so it is the driver's CUDA (header).
    toolkit = fact(pasted(body("2256")), "cuda_toolkit")
    assert (toolkit.version, toolkit.stated, toolkit.header) == ("12.4", True, True)
    # Modelled: the same item without nvidia-smi named stays the user's CUDA, which may be the one in use.
    plain = fact(pasted("OS: Windows 11\nDriver: 552.x, CUDA 12.4\n"), "cuda_toolkit")
    assert (plain.version, plain.header) == ("12.4", False)


def test_corpus_2230_the_users_cuda_10_0_under_driver_430_is_ok() -> None:
    # Both readers: the CUDA 10.0 the user names (lines 3, 7) is at or below driver 430.64's CUDA 10.1 (line 16).
    status, message = _compat("2230")
    assert status == "ok" and "CUDA 10.0" in message and "driver 430.64" in message, message


def test_modelled_a_cuda_item_above_the_drivers_older_major_is_not_ok(tmp_path: Path) -> None:
    # Corpus 2230's words with a CUDA of a major the R430 driver (CUDA 10.1) does not run.
    text = body("2230").replace("cuda 10.0", "cuda 11.8")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "ok"
