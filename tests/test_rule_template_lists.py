"""Environment lists that issue templates ask for, filled in by hand (issue 28, blind 1736).

- TensorRT-LLM's template asks `GPU name`: the key reads as a list's `GPU:` line (facts/gpus.py _LIST_GPU_KEY), the
  template's bracketed hint before the colon left out. A full-width colon is the same key.
- TensorRT-LLM's `TensorRT-LLM branch or tag` and an engine name followed by `version` name the release
  (facts/python_env.py STATED_VERSION).
- ollama's release as a list line (`ollama version: 0.9.6`), and its bug report form's `### Ollama version` heading
  with the answer under it (facts/ollama_cli.py VERSION, importers/ollama_cli.py form_version_answer).
- A list's OS line naming a distribution names the tool that changes the kernel command line
  (facts/boot_loader.py STATED_OS).
- The open kernel modules' bug form asks `### Kernel Release`: its answer, alone or with what `uname -a` prints after
  the release, is the kernel (importers/evidence.py form_answer, facts/system.py STATED_KERNEL); `uname -a` with the
  host name left out is `uname -a` (facts/system.py UNAME_LINE, corpus 1787).
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.collect import Missing
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.boot_loader import cmdline_tool_from_stated_os, stated_os_tool
from stackaudit.facts.gpus import listed_model
from stackaudit.facts.python_env import STATED_VERSION
from stackaudit.facts.sources import EVIDENCE_LINES
from stackaudit.facts.system import OS_KERNEL
from stackaudit.host.memory import fake_host
from stackaudit.importers.ollama_cli import form_version_answer
from stackaudit.importers.registry import document_appended
from test_kern_checks import LSCPU_XEON, cpufreq_files
from test_kernel_cmdline_fix import PLAIN_UNAME

# TensorRT-LLM's `GPU name` answers, as users filled the template in.
GPU_NAME_LINES = [
    ("  - GPU name: L4", "L4"),  # https://github.com/NVIDIA/TensorRT-LLM/issues/1187
    ("- GPU name: NVIDIA A100-40G", "A100 40GB"),  # https://github.com/triton-inference-server/tensorrtllm_backend/issues/390
    ("GPU name: A100", "A100"),  # https://github.com/NVIDIA/TensorRT-LLM/issues/1507
    ("- GPU name: NVIDIA A40, 46GB", "A40"),  # https://github.com/NVIDIA/TensorRT-LLM/issues/1601 (corpus 1736)
    ("GPU ：Tesla V100-SXM2-32GB", "Tesla V100 SXM2 32GB"),  # corpus 1572 (a full-width colon)
]


@pytest.mark.parametrize(("line", "model"), GPU_NAME_LINES)
def test_template_gpu_name_is_the_list_gpu(line: str, model: str) -> None:
    assert listed_model(line) == model
    gpus = fact(pasted(line + "\n"), "gpus")
    assert [g.model for g in gpus.gpus] == [model]


def test_modelled_template_hint_is_not_the_answer() -> None:
    # Modelled: the template's hint left in the key names its examples; the answer after the colon is the GPU.
    hint = "- GPU name (e.g., NVIDIA H100, NVIDIA A100, NVIDIA L40S)"
    assert listed_model(hint) == ""
    assert isinstance(fact(pasted(hint + "\n"), "gpus"), Missing)
    assert listed_model(hint + ": NVIDIA L4") == "L4"


def test_modelled_gpu_name_in_a_sentence_is_no_list_line() -> None:
    # Modelled: a sentence that mentions the key compares, it does not list the machine.
    assert listed_model("The GPU name: H100 is faster than A100 here") == ""


def test_a40_template_list_has_no_mig_and_no_fabric_manager_1736() -> None:
    # corpus 1736 (NVIDIA/TensorRT-LLM#1601): `- GPU name: NVIDIA A40, 46GB`, a PCIe card without MIG.
    results = capture_checks("1736", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert results["MEM-MIG"].status == "not-applicable" and "A40" in results["MEM-MIG"].message
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"


# --- the engine's release a template names ----------------------------------------------------------------------

RELEASE_LINES = [
    ("  - TensorRT-LLM branch or tag (e.g., main, v0.7.1):  0.9.0.dev2024020600", "0.9.0.dev2024020600"),  # TRT-LLM#1187
    ("**TensorRT-LLM branch or tag:** v0.8.0", "0.8.0"),  # https://github.com/NVIDIA/TensorRT-LLM/issues/1507
    ("  - TensorRT-LLM branch or tag: v0.16.0", "0.16.0"),  # corpus 175 (NVIDIA/TensorRT-LLM#2694)
    ("vllm version: v0.10.2rc1", "0.10.2rc1"),  # corpus 949 (vllm-project/vllm#24383)
    ("vLLM Version: 0.6.1.post2@9ba0817ff1eb514f51cc6de9cb8e16c98d6ee44f", "0.6.1.post2"),  # corpus 542 (vllm#8691)
]


@pytest.mark.parametrize(("line", "version"), RELEASE_LINES)
def test_template_release_keys(line: str, version: str) -> None:
    m = STATED_VERSION.match(line)
    assert m is not None and m.group("version") == version


@pytest.mark.parametrize("line", ["- TensorRT-LLM branch: main, v0.9.0, 118b3d7", "TensorRT-LLM : main branch",
                                  "- TensorRT-LLM branch or tag: main"])
def test_modelled_branch_name_is_no_release(line: str) -> None:
    # tensorrtllm_backend#390's `main, v0.9.0, 118b3d7` names three things; `main` alone names no release.
    assert STATED_VERSION.match(line) is None


def test_template_release_feeds_python_env() -> None:
    env = fact(pasted("  - TensorRT-LLM branch or tag (e.g., main, v0.7.1):  0.9.0.dev2024020600\n"), "python_env")
    assert env.environments[0].engine == "trtllm"
    assert env.environments[0].packages == {"tensorrt-llm": "0.9.0.dev2024020600"}


def test_template_release_beside_an_r535_driver_175() -> None:
    # corpus 175 (NVIDIA/TensorRT-LLM#2694): TensorRT-LLM v0.16.0, a CUDA 12 build, under driver 535.161.07.
    r = capture_checks("175", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "0.16.0" in r.message and "535.161.07" in r.message


# --- ollama's release in a list or its form ---------------------------------------------------------------------

# ollama's bug report form, as GitHub renders it: the heading, a blank line, the answer.
FORM_ANSWERS = [
    ("0.1.31", "0.1.31"),  # https://github.com/ollama/ollama/issues/3771
    ("0.18.0", "0.18.0"),  # https://github.com/ollama/ollama/issues/14874
    ("0.14.2", "0.14.2"),  # https://github.com/ollama/ollama/issues/13814
]


@pytest.mark.parametrize(("answer", "release"), FORM_ANSWERS)
def test_ollama_form_version_is_the_release(answer: str, release: str) -> None:
    text = f"### GPU\n\nNvidia\n\n### CPU\n\nIntel\n\n### Ollama version\n\n{answer}\n"
    assert fact(pasted(text), "ollama_shown").release == release


@pytest.mark.parametrize("answer", ["Latest", "0.12.5+"])
def test_ollama_form_answer_that_names_no_release(answer: str) -> None:
    # ollama/ollama#15801 answers `Latest`; corpus 1309's `0.12.5+` is a lower bound, not the release that ran.
    assert form_version_answer(["### Ollama version", "", answer], 0) is None


@pytest.mark.parametrize(("line", "release"), [("ollama version: 0.9.6", "0.9.6"),  # corpus 1306
                                               ("Ollama version :  0.30.5", "0.30.5"),  # corpus 1572
                                               ("ollama: 0.2.1", "0.2.1")])  # corpus 1333
def test_ollama_list_version_line(line: str, release: str) -> None:
    assert fact(pasted(line + "\n"), "ollama_shown").release == release


def test_ollama_list_version_beside_the_driver_1572() -> None:
    # corpus 1572: `Ollama version :  0.30.5` under driver 535.288.01 (CUDA 12.2): the release picks a v12 runner.
    r = capture_checks("1572", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert "0.30.5" in r.message


def test_modelled_ollama_not_found_is_no_release() -> None:
    # Modelled: a shell's `ollama: command not found` names no release.
    assert isinstance(fact(pasted("bash: ollama: command not found\n"), "ollama_shown"), Missing)


# --- the distribution a list's OS line names --------------------------------------------------------------------

OS_LINES = [
    ("- Os: Ubuntu 20.04", "update-grub"),  # corpus 1736 (NVIDIA/TensorRT-LLM#1601)
    ("OS: Ubuntu 22.04 (Jammy)", "update-grub"),  # https://github.com/NVIDIA/TensorRT-LLM/issues/1507
    ("- OS: Ubuntu: 22.04", "update-grub"),  # https://github.com/triton-inference-server/tensorrtllm_backend/issues/390
    ("* OS: CentOS 7", "grubby"),  # corpus 1105
    ("OS: CentOS7", "grubby"),  # corpus 1509
    ("- **OS:** Ubuntu 24.04.4 LTS", "update-grub"),  # corpus 800
]


@pytest.mark.parametrize(("line", "tool"), OS_LINES)
def test_list_os_line_names_the_cmdline_tool(line: str, tool: str) -> None:
    assert stated_os_tool(line) == tool
    assert fact(pasted(line + "\n"), "cmdline_tool").name == tool


@pytest.mark.parametrize("line", [
    '- os:DISTRIB_DESCRIPTION="Ubuntu 22.04.4 LTS"(docker)',  # NVIDIA/TensorRT-LLM#1860: the container's
    "- OS: Both native Ubuntu and also WSL",  # corpus 1175: two systems
    "We moved from OS: Ubuntu to CentOS last year",  # modelled: a sentence
])
def test_os_line_that_names_no_host_distribution(line: str) -> None:
    assert stated_os_tool(line) == ""


def test_modelled_two_families_name_no_tool() -> None:
    with pytest.raises(ParseError):
        cmdline_tool_from_stated_os("- OS: Ubuntu 22.04\n- OS: CentOS 7\n")


def test_list_os_line_shapes_a_kernel_parameter_fix() -> None:
    # Modelled: a governor left at powersave on a host whose list says CentOS 7: the fix is grubby's form.
    host = fake_host(files=cpufreq_files(driver="acpi-cpufreq", governor="powersave", epp=None),
                     commands={"lscpu": LSCPU_XEON, "uname -a": PLAIN_UNAME})
    document_appended(EVIDENCE_LINES.name, "* OS: CentOS 7\n")(host.record)
    r = run_checks(host, ["KERN-CPUFREQ-GOVERNOR"])["KERN-CPUFREQ-GOVERNOR"]
    assert r.status == "issue" and r.fix is not None
    forms = [p.describe() for s in r.fix.steps for p in s.persistent]
    assert any("grubby" in f for f in forms) and not any("update-grub" in f for f in forms), forms


def test_modelled_list_os_inside_a_container_names_no_host_tool() -> None:
    # Modelled: the paste shows a container (/.dockerenv): a list's OS there may be the image's.
    host = fake_host(files={"/.dockerenv": ""})
    document_appended(EVIDENCE_LINES.name, "* OS: CentOS 7\n")(host.record)
    assert isinstance(fact(host, "cmdline_tool"), Missing)
    plain = fake_host(files={})
    document_appended(EVIDENCE_LINES.name, "* OS: CentOS 7\n")(plain.record)
    assert fact(plain, "cmdline_tool").name == "grubby"


# NVIDIA/open-gpu-kernel-modules' bug form, its `Kernel Release` field as users answered it (the form's text around it
# kept, as GitHub renders it).
KERNEL_RELEASE_FORMS = [
    ("5.14.21", "5.14.21"),  # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/624
    ("6.8.0-87-generic #88~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Tue Oct 14 14:03:14 UTC 2 x86_64 x86_64 x86_64 GNU/Linux",
     "6.8.0-87-generic"),  # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/961
    ("5.4.0-91-generic    x86_64 GNU/Linux", "5.4.0-91-generic"),  # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/322
    ("6.4.1-zen1-1-zen (x86_64)", "6.4.1-zen1-1-zen"),  # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/526
    ("Linux 6.14.2-300.fc42.x86_64", "6.14.2-300.fc42.x86_64"),  # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/831
]


@pytest.mark.parametrize(("answer", "release"), KERNEL_RELEASE_FORMS)
def test_kernel_release_form_field_is_the_kernel(answer: str, release: str) -> None:
    text = (f"### Operating System and Version\n\nUbuntu 22.04.5 LTS\n\n### Kernel Release\n\n{answer}\n\n"
            "### Please confirm you are running a stable release kernel (e.g. not a -rc). We do not accept bug reports "
            "for unreleased kernels.\n")
    assert fact(pasted(text), "kernel").release == release


def test_uname_without_its_host_name_is_uname_1787() -> None:
    # NVIDIA/open-gpu-kernel-modules#246 (corpus 1787): the form's answer is `uname -a` less its host name.
    kernel = fact(pasted(body("1787")), "kernel")
    assert (kernel.release, kernel.machine, kernel.hostname) == ("5.4.0-109-generic", "x86_64", "")


@pytest.mark.parametrize("answer", ["latest", "6.2 and later", "The kernel modules are loaded, but the GPU is not found."])
def test_modelled_kernel_release_answer_that_names_no_release(answer: str) -> None:
    assert isinstance(fact(pasted(f"### Kernel Release\n\n{answer}\n\n### Hardware: GPU\n\nTuring\n"), "kernel"), Missing)


def test_modelled_other_form_heading_is_not_read_as_kernel() -> None:
    # Modelled: a release under another field's heading names no kernel.
    text = "### NVIDIA Open GPU Kernel Modules Version\n\n550.67\n\n### Bug Incidence\n\nOnce\n"
    assert isinstance(fact(pasted(text), "kernel"), Missing)


# `uname -a` in inline code, as nvidia-docker's issue template's checklist takes it (facts/system.py UNAME_LINE).
UNAME_IN_CODE = [
    # NVIDIA/nvidia-docker#756: in single backticks.
    ("`Linux amax 4.4.0-31-generic #50-Ubuntu SMP Wed Jul 13 00:07:12 UTC 2016 x86_64 x86_64 x86_64 GNU/Linux`",
     "4.4.0-31-generic", "#50-Ubuntu"),
    # NVIDIA/nvidia-docker#1025: in triple backticks on its one line.
    ("```Linux localhost.localdomain 3.10.0-957.21.3.el7.x86_64 #1 SMP Tue Jun 18 16:35:19 UTC 2019 x86_64 x86_64 "
     "x86_64 GNU/Linux```", "3.10.0-957.21.3.el7.x86_64", "#1 SMP"),
    # NVIDIA/nvidia-docker#1364: in single backticks.
    ("`Linux patience 5.4.0-42-generic #46-Ubuntu SMP Fri Jul 10 00:24:02 UTC 2020 x86_64 x86_64 x86_64 GNU/Linux`",
     "5.4.0-42-generic", "#46-Ubuntu"),
    # NVIDIA/nvidia-container-toolkit#300 (corpus 2051): the build number GitHub rewrote into a link when it moved
    # the issue from nvidia-docker.
    ("`Linux <host> 5.3.0-40-generic NVIDIA/nvidia-docker#32~18.04.1-Ubuntu SMP Mon Feb 3 14:05:59 UTC 2020 x86_64 "
     "x86_64 x86_64 GNU/Linux`", "5.3.0-40-generic", "#32~18.04.1-Ubuntu"),
]


@pytest.mark.parametrize(("line", "release", "build"), UNAME_IN_CODE)
def test_uname_in_inline_code(line: str, release: str, build: str) -> None:
    kernel = fact(pasted(f" - [x] Kernel version from `uname -a`\n{line}\n"), "kernel")
    assert (kernel.release, kernel.machine) == (release, "x86_64") and kernel.version.startswith(build)


def test_modelled_code_span_naming_linux_is_no_uname() -> None:
    # Modelled: prose in a code span that names Linux and a version, with no build and machine, is no uname line.
    assert isinstance(fact(pasted("`Linux 5.15 kernel` is what I run, see owner/repo#12\n"), "kernel"), Missing)


def test_a_summary_row_of_os_and_kernel_names_the_kernel() -> None:
    # Issue 28 (h106d): corpus 2422's `| **OS / Kernel** | Ubuntu 24.04.4 LTS, kernel 6.17.0-35-generic |`.
    kver = capture_checks("2422", "KVER-NVIDIA-KERNEL-COMBOS")["KVER-NVIDIA-KERNEL-COMBOS"]
    assert "kernel 6.17.0-35-generic" in kver.message, kver.message
    m = OS_KERNEL.match("OS / Kernel: Ubuntu 24.04.4 LTS, kernel 6.17.0-35-generic")
    assert m is not None and m.group(1) == "6.17.0-35-generic"
    # A distribution's release alone names no kernel.
    assert OS_KERNEL.match("OS / Kernel: Ubuntu 24.04.4 LTS") is None


# sgl-project/sglang#9145 (issue body by 464319127, 2025-08-13; corpus 2448): the environment list as posted, each key
# before a full-width colon.
FULL_WIDTH_LIST = """\
## Env
```
Docker：docker pull docker.1ms.run/lmsysorg/sglang:b200-cu129
sglang：newest
sgl_kernel：0.3.3
flashinfer：0.2.11
torch：2.8.0+cu129
transformers：4.55.0
```
"""


def test_full_width_colon_list_states_torch() -> None:
    env = fact(pasted(FULL_WIDTH_LIST), "python_env")
    assert env.environments[0].packages["torch"] == "2.8.0+cu129"
    assert env.environments[0].torch_cuda == "12.9"
    # The same list with ASCII colons states the same; a full-width colon inside a value is left as it is.
    assert fact(pasted(FULL_WIDTH_LIST.replace("：", ": ")), "python_env").environments[0].packages == \
        env.environments[0].packages


def test_modelled_full_width_colon_after_prose_is_no_key() -> None:
    # Modelled: a sentence ending in a full-width colon (`The error message is as follows：`, corpus 1644) states
    # nothing; a torch version in a sentence is no list line either.
    text = "The error message is as follows：\nI installed torch：maybe the wrong one\n"
    assert isinstance(fact(pasted(text), "python_env"), Missing)
