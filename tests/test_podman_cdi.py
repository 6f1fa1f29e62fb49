"""Podman and CDI: `podman run` read as the container command `docker run` is (facts/container_specs.DOCKER_RUN_START),
a CDI device name (`--device nvidia.com/gpu=all`) as a GPU request (facts/docker.DockerContainer.gpu_requested and
gpu_count), a runtime that cannot resolve that name as a CTR-GPU-ACCESS failure (facts/symptoms.py
`cdi-gpu-unresolved`), a root prompt glued to its command (`#docker run ...` with output under it,
importers/_paste.py), and a container whose only command is a GPU check as no /dev/shm workload (CTR-SHM-SIZE).

Real pastes are verbatim from the public thread named beside each (or a corpus capture); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts.symptoms import find_symptoms

# NVIDIA/nvidia-container-toolkit#126 (raldone01): a list of commands that work, as inline code.
TOOLKIT_126 = "* `sudo podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L`\n"
# containers/podman#20257 (muety): Podman 3.4.4, older than 4.1, reads the CDI name as a device path.
PODMAN_20257 = """\
podman run --rm --device=nvidia.com/gpu=0 ubuntu nvidia-smi -L
```

I'm getting the following error.

```
Error: stat nvidia.com/gpu=0: no such file or directory
"""
# warmshao/FasterLivePortrait#116 (alakhsharmaa): `docker` is Podman's emulation, which turns --gpus into CDI.
LIVEPORTRAIT_116 = """\
docker run -it --gpus=all --name faster_liveportrait_3 -v ../docker_faster_live_portrait:/root/FasterLivePortrait \
--restart=always -p 9870:9870 shaoguo/faster_liveportrait:v3 /bin/bash
Emulate Docker CLI using podman. Create /etc/containers/nodocker to quiet msg.
Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all
"""
# NVIDIA/nvidia-container-toolkit#146 (irudkin): the error quoted in prose, the device name linked by GitHub.
TOOLKIT_146 = ("I am continually getting the error Error: error setting up CDI devices: unresolvable CDI devices "
               "[nvidia.com/gpu=all](http://nvidia.com/gpu=all).\n")
# NVIDIA/nvidia-container-toolkit#1239 (manuelbuil): containerd under Kubernetes, a CDI spec without the GPU's UUID.
TOOLKIT_1239 = ("  Warning  Failed     10s (x2 over 10s)  kubelet            Error: failed to create containerd task: "
                "failed to create shim task: OCI runtime create failed: could not apply required modification to OCI "
                "specification: error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices "
                "management.nvidia.com/gpu=GPU-e78e68c0-4e6a-737e-f9cc-4223fe50aead\n")


def _gpu_access(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]


def test_podman_run_is_read_as_a_container_with_a_cdi_gpu_request() -> None:
    # Four threads: corpus 568 (NixOS/nixpkgs#420638, a `› :` prompt), corpus 570 (triton-dev-containers#30, `$ sudo`),
    # toolkit#126 (inline code in a list), podman#20257 (a bare line).
    for text, image, count in ((body("568"), "ubuntu:latest", None),
                               (body("570"), "nvidia/cuda:11.0.3-base-ubuntu20.04", None),
                               (TOOLKIT_126, "ubuntu", None), (PODMAN_20257, "ubuntu", 1)):
        (c,) = fact(pasted(text), "docker_containers").containers
        assert (c.image, c.argv[0], c.gpu_requested, c.gpu_count) == (image, "nvidia-smi", True, count)


def test_cdi_names_of_single_gpus_are_counted() -> None:
    # Modelled: two GPUs by their CDI index; `=all` beside them leaves the count to the host.
    two = "$ podman run --rm --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 ubuntu nvidia-smi -L\n"
    every = "$ podman run --rm --device nvidia.com/gpu=0 --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
    assert fact(pasted(two), "docker_containers").containers[0].gpu_count == 2
    assert fact(pasted(every), "docker_containers").containers[0].gpu_count is None


def test_an_unresolvable_cdi_gpu_proves_ctr_gpu_access(tmp_path: Path) -> None:
    # Five threads, Podman's wording and Docker's / containerd's, with the request shown or the line alone.
    results = [capture_checks("568", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"], _gpu_access(tmp_path, LIVEPORTRAIT_116),
               _gpu_access(tmp_path, TOOLKIT_146), _gpu_access(tmp_path, TOOLKIT_1239),
               _gpu_access(tmp_path, PODMAN_20257)]
    for result in results:
        assert result.status == "issue", result.message
        assert any("nvidia.com/gpu=" in line for line in result.evidence)


def test_cdi_lines_that_are_no_failure_prove_nothing(tmp_path: Path) -> None:
    # Modelled: `nvidia-ctk cdi list` naming the devices, and another vendor's CDI device left unresolved.
    listing = "INFO[0000] Found 2 CDI devices\nnvidia.com/gpu=0\nnvidia.com/gpu=all\n"
    amd = "Error: setting up CDI devices: unresolvable CDI devices amd.com/gpu=all\n"
    assert find_symptoms(listing.splitlines()) == ()
    assert find_symptoms(amd.splitlines()) == ()
    # A podman run whose nvidia-smi answers inside the container (corpus 570): ok over the one GPU the table shows.
    healthy = capture_checks("570", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert healthy.status == "ok", healthy.message
    assert healthy.coverage is not None and healthy.coverage.count == 1


def test_a_root_prompt_glued_to_docker_run_is_read_where_output_follows() -> None:
    # Corpus 558 (NVIDIA/nvidia-docker#1171): `#docker run --rm nvidia/cuda:latest nvidia-smi`, then its answer.
    (c,) = fact(pasted(body("558")), "docker_containers").containers
    assert (c.image, c.argv, c.gpu_requested) == ("nvidia/cuda:latest", ("nvidia-smi",), False)
    assert capture_checks("558", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


def test_a_commented_out_docker_run_in_a_script_is_not_read() -> None:
    # Modelled on scripts that keep an old command commented out above the one they run, or at their end.
    script = ("#docker run --rm -d --gpus all vllm/vllm-openai:v0.9.0 --model m\n"
              "docker run --rm -d --gpus all --shm-size 16g vllm/vllm-openai:v0.10.0 --model m\n"
              "#docker run --rm -d --gpus all vllm/vllm-openai:v0.8.0 --model m\n")
    (c,) = fact(pasted(script), "docker_containers").containers
    assert c.image == "vllm/vllm-openai:v0.10.0"


def test_a_check_only_container_is_not_judged_for_shm(tmp_path: Path) -> None:
    # Corpus 558 (no GPU request) and 570 (a CDI request): nvidia-smi in a CUDA image, no engine.
    for prefix in ("558", "570"):
        assert capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-applicable"
    # Modelled: an engine started by podman with the same CDI request is judged (Docker's 64 MiB at TP 2).
    engine = "$ podman run -d --device nvidia.com/gpu=all vllm/vllm-openai:v0.10.0 --model m --tensor-parallel-size 2\n"
    assert paste_checks(tmp_path, engine, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "issue"
    # Modelled: a CUDA image running a program of its own is no check: not ruled out.
    program = "$ docker run --rm nvidia/cuda:12.4.1-runtime-ubuntu22.04 python3 train.py\n"
    assert paste_checks(tmp_path, program, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status != "not-applicable"


def test_podman_own_boolean_flags_leave_the_name_and_the_cdi_request() -> None:
    # Corpus 982 (turboderp-org/exllamav3#76): `--replace` takes no value, so `--name tabbyapi` is the name and the
    # CDI request is read: GPUs requested, not "no serving container".
    (c,) = fact(pasted(body("982")), "docker_containers").containers
    assert (c.name, c.image) == ("tabbyapi", "ghcr.io/theroyallab/tabbyapi:latest")
    assert c.gpu_requested
    assert "request GPUs: tabbyapi (all)" in capture_checks("982", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].message


def test_a_docker_option_with_a_value_still_takes_it() -> None:
    # Modelled counter-example: `--name` after a Docker option that takes a value keeps its own value.
    run = "$ podman run --network host --name srv --device nvidia.com/gpu=0 vllm/vllm-openai:v0.10.0 --model m\n"
    (c,) = fact(pasted(run), "docker_containers").containers
    assert (c.name, c.image, c.network_mode) == ("srv", "vllm/vllm-openai:v0.10.0", "host")


def test_a_run_after_the_bare_arrow_prompt_of_zsh_pure_and_starship_is_read() -> None:
    # Corpus 2378 (a WSL 2 ComfyUI thread): `❯ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi`, the
    # prompt's `❯` alone, no user or host; corpus 1460 (`❯ sudo docker run --rm --gpus 0 ...`) is another thread's.
    for text, image in ((body("2378"), "ubuntu"), (body("1460"), "nvidia/cuda:11.0-base")):
        (c,) = fact(pasted(text), "docker_containers").containers
        assert (c.image, c.argv[0], c.gpu_requested) == (image, "nvidia-smi", True)
    # Modelled: the arrow inside a sentence is no prompt, and a quoted run after it is left to the sentence's rules.
    assert isinstance(fact(pasted("build ❯ docker run later, maybe\n"), "docker_containers"), Missing)
