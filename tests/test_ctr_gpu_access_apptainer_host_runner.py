"""CTR-GPU-ACCESS's unknown path: where the program ran, and what its own lines say of the GPU (issue 28, h72a).

- Apptainer (Singularity) is a container runtime: the shell `singularity shell` opens in its container prompts
  `Singularity>` (`Apptainer>`), and `singularity exec [--nv] IMAGE CMD` runs CMD in the image's container, as `docker
  exec` does in a running one (facts/container.exec_inside). What those commands print is the container's own view:
  nvidia-smi listing the GPUs, nccl-tests' ranks opening them, read as ok (corpus 1604).
- ollama starting its model's runner from a CPU library (`runners/cpu_avx2/ollama_llama_server`) leaves a GPU request
  shown for its container unproven (facts/symptoms.py ollama-cpu-runner doubts the ok): unknown (corpus 1622).
- The user's words that run `ollama serve` set in Markdown (`I run **ollama serve** on Ubuntu`, corpus 1634), or
  ollama's Linux release binary by its path (`./ollama-linux-amd64`, corpus 1630), put the engine on the host: not
  applicable.

Real pastes are corpus captures or public threads (URL above each); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted, symptom_names
from stackaudit.facts.container import ContainerInfo, exec_inside, stated_host

ACCESS = "CTR-GPU-ACCESS"

# https://github.com/ComparativeGenomicsToolkit/cactus/issues/339 (comment by RenzoTale88, 2020-10-28), verbatim, the
# stored copy cut after GPU 1's rows.
CACTUS_SINGULARITY_EXEC = """\
singularity exec --nv --bind $PWD:/mnt ./cactus_v1.2.3-gpu.sif nvidia-smi
INFO:    Convert SIF file to sandbox...
WARNING: underlay of /etc/localtime required more than 50 (95) bind mounts
WARNING: underlay of /usr/bin/nvidia-smi required more than 50 (291) bind mounts
Wed Oct 28 11:44:45 2020
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.40.04    Driver Version: 418.40.04    CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla K80           Off  | 00000000:06:00.0 Off |                    0 |
| N/A   27C    P8    26W / 149W |     11MiB / 11441MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla K80           Off  | 00000000:07:00.0 Off |                    0 |
| N/A   33C    P8    30W / 149W |     11MiB / 11441MiB |      0%      Default |
"""

# https://github.com/apptainer/singularity/pull/2020 (comment by ArangoGutierrez, 2018-09-22), verbatim, the stored copy
# cut at the process table's heading.
SINGULARITY_PR_EXEC = """\
[eduardo@rhel7 tmp]$ nvidia-container-[TAB]
nvidia-container-cli           nvidia-container-runtime       nvidia-container-runtime-hook
[eduardo@rhel7 tmp]$ singularity  exec --nv docker://ubuntu nvidia-smi
Fri Sep 21 21:13:47 2018
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 396.37                 Driver Version: 396.37                    |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Quadro M620         Off  | 00000000:01:00.0  On |                  N/A |
| N/A   51C    P8    N/A /  N/A |   1055MiB /  1999MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""

# https://github.com/ollama/ollama/issues/7005 (comment by phukrit7171, 2024-09-27), verbatim: ollama in Docker starting
# its CUDA runner, the line a CPU runner's must not be mistaken for.
OLLAMA_CUDA_RUNNER = (
    'time=2024-09-27T17:09:32.659Z level=INFO source=server.go:388 msg="starting llama server" '
    'cmd="/usr/lib/ollama/runners/cuda_v12/ollama_llama_server --model /root/.ollama/models/blobs/'
    'sha256-b6e1d703db0da8227fdb7127d8716bbc5049c9bf17ca2bb345be9470d217f3fc --ctx-size 4096 --batch-size 512 '
    '--embedding --log-disable --n-gpu-layers 30 --mmproj /root/.ollama/models/blobs/'
    'sha256-eb569aba7d65cf3da1d0369610eb6869f4a53ee369992a804d5810a80e9fa035 --parallel 1 --port 42495"\n'
)


def test_apptainer_exec_names_its_image_and_command() -> None:
    assert exec_inside("singularity exec --nv --bind $PWD:/mnt ./cactus_v1.2.3-gpu.sif nvidia-smi") == \
        ("apptainer", "./cactus_v1.2.3-gpu.sif", "nvidia-smi")
    assert exec_inside("apptainer exec -B /data:/data --nv img.sif python3 -c 'import torch'")[1:] == \
        ("img.sif", "python3 -c import torch")
    # `run` and `shell` start the image's runscript or a shell, no command of the line's own.
    assert exec_inside("singularity run --nv img.sif") == ("", "", "")
    assert exec_inside("singularity exec --nv img.sif") == ("", "", "")


def test_nccl_tests_at_a_singularity_prompt_are_the_containers() -> None:
    # Corpus 1604 (NVIDIA/nccl-tests#41): `Singularity> ./build/all_reduce_perf ... -g 4` lists its four V100s.
    result = capture_checks("1604", ACCESS)[ACCESS]
    assert result.status == "ok", result.message
    info = fact(pasted(body("1604")), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "apptainer"
    assert "Singularity>" in info.evidence[0]


def test_nvidia_smi_run_by_singularity_exec_lists_the_gpus(tmp_path: Path) -> None:
    for text, gpus in ((CACTUS_SINGULARITY_EXEC, 2), (SINGULARITY_PR_EXEC, 1)):
        result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
        assert result.status == "ok", result.message
        assert "run inside the container" in result.message and f"lists {gpus} GPU(s)" in result.message


def test_a_singularity_shell_without_gpus_is_no_ok(tmp_path: Path) -> None:
    # Modelled on apptainer/singularity#6203 (a `singularity shell` opened without --nv, its prompt `Singularity>`):
    # nvidia-smi there cannot reach the driver. The container is read, and nothing in it shows a GPU reached.
    failed = ("Singularity> nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
              "Make sure that the latest NVIDIA driver is installed and running.\n")
    info = fact(pasted(failed), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "apptainer" and info.ran_inside == ("nvidia-smi",)
    assert paste_checks(tmp_path, failed, ACCESS)[ACCESS].status != "ok"
    # Modelled: the host's own nvidia-smi typed at a host prompt beside a Singularity shell is not the container's.
    mixed = ("user@node:~$ nvidia-smi -L\nGPU 0: Tesla V100-PCIE-16GB (UUID: GPU-0f3b0c55-2b1e-11ee-be56-0242ac120002)\n"
             "user@node:~$ singularity shell img.sif\nSingularity> nvidia-smi -L\nbash: nvidia-smi: command not found\n")
    info = fact(pasted(mixed), "container")
    assert isinstance(info, ContainerInfo) and info.in_container and info.ran_inside == ()
    # Corpus 65: a redacted prompt host (`root@<redacted>:/usr/local/airflow#`) ends in `>` too, and is no such shell.
    info = fact(pasted(body("65")), "container")
    assert not (isinstance(info, ContainerInfo) and info.kind == "apptainer")


def test_ollama_cpu_runner_leaves_the_gpu_request_unproven(tmp_path: Path) -> None:
    # Corpus 1622 (ollama/ollama#2809): `--gpus=all`, then ollama starts runners/cpu_avx2.
    result = capture_checks("1622", ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "serving containers request GPUs" in result.message and "cpu_avx2" in result.message
    assert "ollama-cpu-runner" in symptom_names(body("1622"))
    # ollama/ollama#7005: its CUDA runner is no such line.
    assert symptom_names(OLLAMA_CUDA_RUNNER) == []
    # Modelled: corpus 1622 with the CUDA runner in the CPU runner's place keeps the request's ok.
    gpu = body("1622").replace("runners/cpu_avx2/", "runners/cuda_v11/")
    assert paste_checks(tmp_path, gpu, ACCESS)[ACCESS].status == "ok"


def test_user_words_that_run_ollama_on_the_host() -> None:
    # Corpus 1634 (ollama/ollama#8638) and 1630 (ollama/ollama#6149).
    for prefix in ("1634", "1630"):
        result = capture_checks(prefix, ACCESS)[ACCESS]
        assert result.status == "not-applicable", (prefix, result.message)
    assert stated_host("I run **ollama serve** on Ubuntu 22.04.5 LTS.") == "I run **ollama serve"
    assert stated_host("the protable edition that doesn't needs root installation (./ollama-linux-amd64).") == \
        "./ollama-linux-amd64"
    # Modelled counter-examples: a container named on the line, the archive downloaded, a path into another directory.
    assert stated_host("I run **ollama serve** inside a docker container") == ""
    assert stated_host("curl -L https://ollama.com/download/ollama-linux-amd64.tgz -o ./ollama-linux-amd64.tgz") == ""
    assert stated_host("I copied bin/ollama-linux-amd64 to /usr/bin/ollama") == ""
