"""Issue 28 (h83c): DRV-CUDA-COMPAT from an environment list: the driver under a plural key (`Nvidia Drivers: 581.29`)
and the engine named with its release (`Koboldcpp version: 1.99.4`).

The driver lines are real environment lists (corpus 1857, and projects' READMEs and reports found by search); the
counter-examples (a floor, a branch) are real too; the engine lines not from a paste are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia import STATED_DRIVER
from stackaudit.importers.prose_engine import LISTED_ENGINE_RELEASE


@pytest.mark.parametrize(("line", "driver"), [
    ("Nvidia Drivers: 581.29 - CUDA Version: 13.0  ", "581.29"),  # corpus 1857 (LostRuins/koboldcpp)
    ("    NVIDIA Drivers: 555.42.06", "555.42.06"),  # an environment block of a project's report
    ("* NVIDIA drivers: 535.54.03", "535.54.03"),  # a distribution's release notes
    ("    - NVIDIA Drivers: 530.30.02", "530.30.02"),  # a project's build environment list
    ("- GPU driver version is **535.154.05**", "535.154.05"),  # corpus 2418: a bullet's sentence, the version in bold
])
def test_a_plural_drivers_key_names_the_driver(line: str, driver: str) -> None:
    m = STATED_DRIVER.search(line)
    assert m is not None and m.group(1) == driver


@pytest.mark.parametrize("line", [
    "- NVIDIA drivers: 545+ for `:gpu` image, 525+ for `:gpu-legacy` image",  # a floor, not the installed driver
    "# ✅ NVIDIA drivers: 535.xx",  # a branch
    "The driver is 535.154.05 on the other host",  # a sentence, not a list's bullet: no key at the line's start
])
def test_a_floor_or_a_branch_names_no_driver(line: str) -> None:
    assert STATED_DRIVER.search(line) is None


def test_corpus_1857_driver_and_koboldcpp_listed_is_ok() -> None:
    r = capture_checks("1857", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "581.29" in r.message, r.message


@pytest.mark.parametrize(("line", "name"), [
    ("Koboldcpp version: 1.99.4", "Koboldcpp"),  # corpus 1857
    ("- vLLM Version: 0.6.3", "vLLM"),  # modelled on the issue templates' environment lists
    ("**Ollama version:** 0.3.11", "Ollama"),  # modelled
])
def test_an_engine_named_with_its_release_in_a_list(line: str, name: str) -> None:
    m = LISTED_ENGINE_RELEASE.match(line)
    assert m is not None and m.group("name") == name


def test_a_listed_release_of_no_engine_shows_none(tmp_path: Path) -> None:
    """Modelled: the same list naming another program's release and the driver: no engine, so no runtime to judge."""
    text = "OS: Windows 11\nBlender version: 4.2.1\nNvidia Drivers: 581.29 - CUDA Version: 13.0\n"
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message


@pytest.mark.parametrize(("line", "name"), [
    ("vllm @ git+https://github.com/vllm-project/vllm@d537c625cb039983a0bf61aa36ba8139a2905609", "vllm"),  # corpus 1659
    ("vllm==0.2.7", "vllm"),  # modelled: pip freeze
    ("sglang==0.4.6.post5", "sglang"),  # modelled: pip freeze
])
def test_a_requirement_line_of_an_engine(line: str, name: str) -> None:
    from stackaudit.facts.engine_command import stated_engines
    from stackaudit.importers.prose_engine import PIP_ENGINE_LINE

    m = PIP_ENGINE_LINE.match(line)
    assert m is not None and stated_engines(m.group("name")) == (name,)


@pytest.mark.parametrize("line", [
    "pip install -U 'vllm @ git+https://github.com/vllm-project/vllm.git'",  # a command, not what is installed
    "torch==2.1.0",  # a library, no serving engine (the caller leaves out torch's words)
])
def test_a_command_or_a_library_is_no_engine_requirement(line: str) -> None:
    from stackaudit.facts.engine_command import stated_engines
    from stackaudit.importers.prose_engine import PIP_ENGINE_LINE

    m = PIP_ENGINE_LINE.match(line)
    assert m is None or stated_engines(m.group("name")) in ((), ("torch",))


def test_corpus_1659_vllm_from_git_on_a_dated_545_driver_is_ok() -> None:
    r = capture_checks("1659", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "2023-12-12" in r.message, r.message


@pytest.mark.parametrize(("line", "driver"), [
    ("GPU driver 590.48.01", "590.48.01"),  # corpus 1900 (sgl-project/sglang, an issue form's environment list)
    ("- GPU driver 580.159.04 (CachyOS) vs 580.142 (Debian)", "580.159.04"),  # a project's notes of its hosts
    ("- **NVIDIA GPU Driver 566.07** or compatible", "566.07"),  # a project's README of its test machine
])
def test_gpu_before_driver_names_the_driver(line: str, driver: str) -> None:
    m = STATED_DRIVER.search(line)
    assert m is not None and m.group(1) == driver


@pytest.mark.parametrize("line", [
    "- GPU Driver 565 or later.",  # a floor (a project's requirements), no installed driver
    "- NVIDIA GPU (compatible with NVIDIA GPU driver 515 version)",  # a branch, and not at the line's start
])
def test_a_gpu_driver_floor_names_none(line: str) -> None:
    assert STATED_DRIVER.search(line) is None


def test_a_gpu_driver_line_settles_the_runtime_of_a_newer_driver() -> None:
    r = capture_checks("1900", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "590.48.01" in r.message


# --- the vendor's name alone before the version, a line of its own (h100c) ------------------------------------------

@pytest.mark.parametrize(("line", "driver"), [
    ("nVidia v550.142", "550.142"),  # corpus 2215 (mudler/LocalAI#4571), the user's environment list
    ("- NVIDIA 535.104.05", "535.104.05"),  # modelled: the same statement as a list item
])
def test_the_vendors_name_before_a_version_names_the_driver(line: str, driver: str) -> None:
    m = STATED_DRIVER.search(line)
    assert m is not None and m.group(1) == driver


@pytest.mark.parametrize("line", [
    "NVIDIA 2080",  # a GPU (corpus 2230's words), no driver's version
    "nvidia 530.41.03-15",  # corpus 1752: `pacman -Q`'s package row (its release after the version)
    "NVIDIA 550.54.15 and CUDA 12.4",  # modelled: the version does not end the line
])
def test_the_vendors_name_before_other_words_names_no_driver(line: str) -> None:
    assert STATED_DRIVER.search(line) is None


def test_corpus_2215_vendor_and_version_with_the_stated_cuda_is_ok() -> None:
    # Both readers: driver 550.142 (R550: CUDA 12.4) runs the CUDA 12.4 the user names.
    r = capture_checks("2215", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "driver 550.142" in r.message and "CUDA 12.4" in r.message, r.message
