"""Where the program ran, as a paste's prompts, paths and report show it (facts/container.py; issue 28, task h120b).

bash's prompt of a home directory alone (`~/tabbyAPI$ python3 main.py`: `$` is a user's other than root, `~` that
user's home) and fish's own prompt (`user@hostname ~> nvidia-smi --version`) are a login user's shell on the machine,
as `kgk2@bock:~$` is: CTR-GPU-ACCESS is not applicable. Python's warning line names its file in a home environment even
where the paste glued a word before it. A collect_env whose userland is of one distribution family and whose kernel is
built by the other ran in a container: torch initialising CUDA there is the container's (CTR-GPU-ACCESS ok).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container import ContainerInfo
from stackaudit.importers._paste import prompt_host, strip_prompt_line, view

ACCESS = "CTR-GPU-ACCESS"

_SMI = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.154.05             Driver Version: 535.154.05   CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0  On |                  N/A |
"""


@pytest.mark.parametrize(("prefix", "said"), [("2659", "~/Fooocus/Fooocus$"), ("2750", "~/tabbyAPI$"),
                                              ("2740", "user@hostname"), ("2666", "/home/camus/")])
def test_the_corpus_pastes_run_on_the_machine(prefix: str, said: str) -> None:
    info = fact(pasted(body(prefix)), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and said in info.evidence[0], info
    assert capture_checks(prefix, ACCESS)[ACCESS].status == "not-applicable"


def test_the_prompts_are_read() -> None:
    shown = view("~/Fooocus/Fooocus$ lspci | grep -i nvidia\nuser@hostname ~> nvidia-smi --version\n~$ nvidia-smi\n")
    assert shown.lines[:3] == ["lspci | grep -i nvidia", "nvidia-smi --version", "nvidia-smi"]
    assert shown.prompt_envs == {0: "\t\t~/Fooocus/Fooocus$", 1: "\tuser", 2: "\t\t~$"}
    for prefix in ("1491", "1656"):
        assert not isinstance(fact(pasted(body(prefix)), "container"), ContainerInfo), prefix
    assert prompt_host("user@hostname ~> nvidia-smi --version") == "hostname"
    # Fish's root prompt ends `#` (_USER_PROMPT); a home prompt as root is not this form (modelled).
    assert strip_prompt_line("root@hostname ~# nvidia-smi") == "nvidia-smi"
    assert strip_prompt_line("~/dir# nvidia-smi") is None


@pytest.mark.parametrize("text", [
    # Modelled: a program run at a home directory's prompt, another GPU's table under it.
    f"~/vllm$ python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B\n~/vllm$ nvidia-smi\n{_SMI}",
    f"~$ ./llama-server -m model.gguf -ngl 99\n~$ nvidia-smi\n{_SMI}",
    # Modelled: the directory is named for the program the paste's lines name (its checkout in the user's home).
    "When I start ComfyUI I get \"RuntimeError: CUDA error: no kernel image is available for execution on the "
    f"device\"\n~/ComfyUI$ nvidia-smi\n{_SMI}",
    # Fish's prompt is a login user's, as `user@host:~$` is (_login_prompt).
    f"dev@gpubox ~/src> nvidia-smi\n{_SMI}",
])
def test_modelled_home_and_fish_prompts_are_the_machines_shell(text: str, tmp_path: Path) -> None:
    info = fact(pasted(text), "container")
    assert isinstance(info, ContainerInfo) and info.on_host, text
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "not-applicable"


@pytest.mark.parametrize("text", [
    # A command typed there that names a container: the output may be the container's (modelled).
    f"~/vllm$ docker exec -it vllm nvidia-smi\n{_SMI}",
    f"dev@gpubox ~> docker run --rm --gpus all nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\n{_SMI}",
    # A bare `$` names no home (a document's convention), and a prompt's host that is a container's id (modelled).
    f"$ nvidia-smi\n{_SMI}",
    f"dev@802f556c99c8 ~> nvidia-smi\n{_SMI}",
    # A look at the GPU alone at a home directory's prompt is the host's, whatever runs the engine (corpus 1656, 1491:
    # ollama and Triton in containers); so is one in a directory the paste names nowhere else (modelled).
    f"~$ nvidia-smi\n{_SMI}",
    f"~/tmp$ nvidia-smi\n{_SMI}",
    f"~/vllm-test$ nvidia-smi\n{_SMI}",
])
def test_modelled_other_prompts_say_nothing_of_the_machine(text: str) -> None:
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host), text


def test_a_glued_warning_path_in_a_home_environment_is_the_machine() -> None:
    # Modelled: another program glued to another warning of a home venv's torch.
    line = ("comfyui/home/ana/ComfyUI/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA "
            "initialization: CUDA unknown error - this may be due to an incorrectly set up environment\n")
    info = fact(pasted(line), "container")
    assert isinstance(info, ContainerInfo) and info.on_host
    assert "/home/ana/ComfyUI/venv/lib/python3.11/site-packages/" in info.evidence[0]


@pytest.mark.parametrize("line", [
    # A path under another directory's `home` is no user's home (modelled), nor is a glued word on a line that is no
    # Python warning (modelled).
    "/data/home/ana/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: "
    "CUDA unknown error",
    "backup/home/ana/venv/lib/python3.11/site-packages/torch/cuda/__init__.py CUDA initialization: CUDA unknown error",
])
def test_other_glued_paths_say_nothing(line: str) -> None:
    info = fact(pasted(line + "\n"), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host), line


def test_a_userland_over_another_distributions_kernel_is_a_container() -> None:
    # Corpus 2658 (AUTOMATIC1111/stable-diffusion-webui#15875): Ubuntu 18.04.3 over openEuler's BC-Linux kernel.
    info = fact(pasted(body("2658")), "container")
    assert isinstance(info, ContainerInfo) and info.in_container and "oe2203" in info.evidence[0]
    result = capture_checks("2658", ACCESS)[ACCESS]
    assert result.status == "ok", result.message
    assert "in the container" in result.message


_REPORT = """\
Collecting environment information...
PyTorch version: 2.4.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: {os}
GCC version: (GCC) 11.4.0
Clang version: Could not collect
CMake version: Could not collect
Libc version: glibc-2.35

Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-{kernel}-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB
Nvidia driver version: 550.54.15
"""


@pytest.mark.parametrize(("os", "kernel", "inside"), [
    # Modelled: the other way round, an RPM userland over Ubuntu's kernel, and Ubuntu over RHEL's.
    ("Rocky Linux 9.3 (Blue Onyx) (x86_64)", "5.15.0-91-generic", True),
    ("Ubuntu 22.04.4 LTS (x86_64)", "4.18.0-513.5.1.el8_9.x86_64", True),
    ("Ubuntu 22.04.4 LTS (x86_64)", "5.15.0-200.131.27.el8uek.x86_64", True),
    # A userland over its own family's kernel, or a kernel that names no family (WSL's, a vanilla build): nothing.
    ("Ubuntu 22.04.4 LTS (x86_64)", "5.15.0-1034-azure", False),
    ("Debian GNU/Linux 12 (bookworm) (x86_64)", "6.1.0-18-amd64", False),
    ("CentOS Linux 7 (Core) (x86_64)", "3.10.0-1160.el7.x86_64", False),
    ("Ubuntu 22.04.4 LTS (x86_64)", "5.15.133.1-microsoft-standard-WSL2", False),
    ("Ubuntu 22.04.4 LTS (x86_64)", "6.6.10-arch1-1", False),
])
def test_modelled_reports_of_a_userland_and_its_kernel(os: str, kernel: str, inside: bool) -> None:
    info = fact(pasted(_REPORT.format(os=os, kernel=kernel)), "container")
    assert (isinstance(info, ContainerInfo) and info.in_container) == inside, (os, kernel)
