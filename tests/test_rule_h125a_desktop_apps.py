"""Desktop LLM apps run on the machine itself (issue 28, h125a): where the paste says how the program runs and no
container is shown, the container checks about its container are not applicable.

- An AppImage (`Using appimage`, LM Studio's bug form; facts/container.STATED_APPIMAGE): a desktop application's
  one-file package, run on the desktop (corpus 2911).
- The project's manual installation (`Installed webui per manual installation`, text-generation-webui; facts/container
  .STATED_MANUAL_INSTALL): its own Python environment on the machine, not the project's container (corpus 2915).
- An issue template's operating-system answer naming Windows (`**Which operating system?**`, then `Windows 11 Education
  64-bit`; importers/prose_machine.form_os_answer): a Windows program (corpus 2913).

A container in the paste (a docker run, a compose file, a prompt or words that name one) keeps the question open.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container import ContainerInfo, stated_host
from stackaudit.importers.prose_machine import form_os_answer


@pytest.mark.parametrize(("prefix", "said"), [("2911", "Using appimage"),
                                              ("2915", "Installed webui per manual installation")])
def test_desktop_or_manual_install_runs_on_the_host(prefix: str, said: str) -> None:
    # Corpus 2911 (lmstudio-ai/lmstudio-bug-tracker#1734): LM Studio 0.4.9 `Using appimage` on KDE neon; corpus 2915
    # (oobabooga/textgen#3084): text-generation-webui installed by hand, llama.cpp's ./main beside it.
    info = fact(pasted(body(prefix)), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and said in info.evidence[0]
    assert capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_windows_os_answer_is_a_windows_program() -> None:
    # Corpus 2913 (lmstudio-ai/lmstudio-bug-tracker#2312): `**Which operating system?**`, then `Windows 11 Education
    # 64-bit`: CTR-GPU-ACCESS, DRV-PERSISTENCE and MEM-MIG are Linux's.
    r = capture_checks("2913", "CTR-GPU-ACCESS", "DRV-PERSISTENCE", "MEM-MIG")
    assert {k: v.status for k, v in r.items()} == dict.fromkeys(("CTR-GPU-ACCESS", "DRV-PERSISTENCE", "MEM-MIG"),
                                                                "not-applicable")
    assert "Windows 11 Education" in r["CTR-GPU-ACCESS"].message


@pytest.mark.parametrize("line", ["I run the LM-Studio-0.3.5-x64.AppImage on Ubuntu 24.04",
                                  "./Jan-0.5.16-x86_64.AppImage",
                                  "launched it from the AppImage",
                                  "installed via the manual installation",
                                  "I installed it following the manual install instructions"])
def test_modelled_host_install_words(line: str) -> None:
    # Modelled: other wordings of the same statements.
    assert stated_host(line)


@pytest.mark.parametrize("line", ["the AppImage runs fine but in docker the GPU is missing",
                                  "AppImage support would be nice",
                                  "see the manual installation section",
                                  "I installed the driver manually",
                                  "installed per manual installation inside the container"])
def test_modelled_words_that_name_a_container_or_no_install_say_nothing(line: str) -> None:
    # Modelled: a container named on the line, a wish, a pointer to the docs, a driver installed by hand.
    assert stated_host(line) == ""


def test_modelled_appimage_beside_a_docker_run_stays_open() -> None:
    # Modelled: the words beside a pasted `docker run` that starts the engine: the spec decides, not the words.
    text = ("Using appimage for the desktop app, and the server as below.\n"
            "docker run --gpus all -p 1234:1234 ghcr.io/example/llmster:latest\n")
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host)


@pytest.mark.parametrize(("lines", "want"), [
    (["**Which operating system?**", "", "Windows 11 Pro"], "OS: Windows 11 Pro"),
    (["### OS", "", "Windows"], "OS: Windows"),
    (["### Operating System", "Windows 10"], "OS: Windows 10"),
    (["### OS", "", "Windows, Docker"], ""),
    (["### OS", "", "WSL2"], ""),
    (["**Which operating system?**", "", "some text", "Windows 11"], ""),
])
def test_modelled_os_answers(lines: list[str], want: str) -> None:
    # Modelled: the question as a form heading or a bold question, the answer one or two lines below; an answer that
    # names Docker or WSL (ollama's form offers both) is a Linux VM's or container's, and a line further down is none.
    assert form_os_answer(lines, len(lines) - 1)[1] == want


def test_modelled_windows_answer_in_a_paste(tmp_path: Path) -> None:
    # Modelled: LM Studio's bug template on Windows 10, a GeForce RTX 4070 listed.
    text = ("**Which version of LM Studio?**\n\nLM Studio 0.3.30\n\n**Which operating system?**\n\nWindows 10 Pro\n\n"
            "**What is the bug?**\n\nThe CUDA 12 runtime loads only 30 of 48 layers on my RTX 4070.\n")
    r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS", "DRV-PERSISTENCE")
    assert r["CTR-GPU-ACCESS"].status == "not-applicable" and "Windows 10 Pro" in r["CTR-GPU-ACCESS"].message
    assert r["DRV-PERSISTENCE"].status == "not-applicable"
