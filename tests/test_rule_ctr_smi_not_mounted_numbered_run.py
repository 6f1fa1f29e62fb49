"""Two container readings of blind batch BD (corpus 1990, 1993).

- facts/symptoms.py smi-not-mounted: a GPU test container whose start fails with `exec: "nvidia-smi": executable file
  not found in $PATH` was not handed the driver (the NVIDIA runtime mounts nvidia-smi with its libraries):
  CTR-GPU-ACCESS issue.
- facts/container_specs.DOCKER_RUN_START: a `docker run` bare after a numbered list item's mark (`1. docker run ... \\`,
  a bug report's reproduction step) is read as the command it is.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

GPU = "CTR-GPU-ACCESS"
SHM = "CTR-SHM-SIZE"


def test_nvidia_docker_1_run_without_nvidia_smi_is_an_issue() -> None:
    # Real: NVIDIA/nvidia-docker#845 (corpus 1993): cuda:10.0 finds no nvidia-smi, cuda:9.0 runs it.
    got = capture_checks("1993", GPU)[GPU]
    assert got.status == "issue"
    assert "nvidia-smi" in got.message


# Real: NVIDIA/nvidia-docker#865 (nvidia-docker 1, its container without the driver volume).
V1_RUN = """\
```
$ nvidia-docker run --rm nvidia/cuda nvidia-smi
docker: Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process caused "exec: \\"nvidia-smi\\": executable file not found in $PATH": unknown.
```
"""

# Real: NVIDIA/nvidia-docker#1668 (the toolkit's `--gpus all`, runc's newer wording).
TOOLKIT_RUN = """\
I followed all the installation steps but when I run `sudo docker run --rm --gpus all nvidia/cuda:11.0.3-base-ubuntu20.04 nvidia-smi`  it throws the following error:
`docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "nvidia-smi": executable file not found in $PATH: unknown.`
"""

# Real: NVIDIA/nvidia-docker#457 (nvidia-docker 1 with a plain ubuntu image).
UBUNTU_RUN = """\
```
ubuntu@runc:~$ nvidia-docker run --rm -ti ubuntu:16.04 nvidia-smi
docker: Error response from daemon: oci runtime error: container_linux.go:262: starting container process caused "exec: \\"nvidia-smi\\": executable file not found in $PATH".
```
"""

def test_other_threads_nvidia_smi_not_found_in_the_container(tmp_path: Path) -> None:
    for text in (V1_RUN, TOOLKIT_RUN, UBUNTU_RUN):
        got = paste_checks(tmp_path, text, GPU)[GPU]
        assert got.status == "issue", (text[:60], got.message)
        assert "executable file not found" in got.message


def test_numbered_item_docker_run_is_read() -> None:
    # Real: huggingface/text-generation-inference (corpus 1990): `1. docker run -it --gpus all --ipc=host ... \\`.
    got = capture_checks("1990", GPU, SHM)
    assert got[SHM].status == "ok"
    assert "host IPC" in got[SHM].message
    # Its request is read; nothing inside shows the GPU, and CUDA's 804 there rules the access out (not-an-issue).
    assert got[GPU].status == "not-an-issue" and "804" in got[GPU].message


# Modelled on the issue template's reproduction steps of text-generation-inference and vLLM: numbered steps.
NUMBERED = """\
### Reproduction

1. docker run --gpus all --shm-size 1g -p 8080:80 \\
  -v $PWD/data:/data \\
  ghcr.io/huggingface/text-generation-inference:2.0.4 --model-id {model}
2. curl 127.0.0.1:8080/generate
"""

# Modelled counter-example: a numbered sentence that names docker run is no command.
NUMBERED_PROSE = """\
### Steps

1. docker run hangs when I add the flag
2. the server never answers
"""


def test_numbered_steps_of_other_templates(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, NUMBERED.format(model="teknium/OpenHermes-2.5-Mistral-7B"), SHM)[SHM]
    assert got.status == "ok", got.message
    assert "1 GiB" in got.message or "1g" in got.message.lower() or "1.0 GiB" in got.message
    assert paste_checks(tmp_path, NUMBERED_PROSE, GPU)[GPU].status in ("not-applicable", "unknown")
