"""GPUs shared by several processes, as the paste shows it (MEM-GPU-SHARED), and a container that cannot use its GPU
because of how the GPU is shared (CTR-GPU-ACCESS).

- The MPS control daemon's own log, with no GPU table beside it: every CUDA client shares the GPUs through it, an issue
  as it is beside a table (corpus 2731).
- A second `docker run` the paste cuts before its image, given the same GPUs as a serving run and publishing that run's
  engine port on another host port: a second instance of the server, up beside the first (corpus 2733).
- HAMi-core's line in the engine's log with the memory the engine found at start a slice of the GPU's whole memory:
  the pod is given a vGPU share (corpus 2736).
- A compose file and a `docker run` in one paste: the containers of both are read (corpus 2655).
- CUDA's MPS client failing to connect (error 805) in a container given GPUs: the container is not given the MPS
  daemon's pipe directory and IPC namespace (corpus 2730).

Corpus text is verbatim; the modelled variants say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.container_specs import parse_docker_run
from stackaudit.facts.nvidia_daemons import parse_daemon_log

SHARED = "MEM-GPU-SHARED"
ACCESS = "CTR-GPU-ACCESS"

# kubernetes-sigs/dra-driver-nvidia-gpu#1153 (Phillezi): the DRA driver's MPS control daemon's log, one space before
# the pid (also in tests/test_paste_daemons.py).
DRA_1153_MPS = """\
[2026-05-31 23:46:49.893 Control 11107] Starting control daemon using socket /tmp/nvidia-mps/control
[2026-05-31 23:46:49.893 Control 11107] To connect CUDA applications to this daemon, set env CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps
[2026-05-31 23:46:49.893 Control 11107] CUDA MPS Control binary version: 13030
"""


def test_an_mps_daemons_log_without_a_gpu_table_shares_the_gpus(tmp_path: Path) -> None:
    # Corpus 2731 (NVIDIA/nvidia-container-toolkit#277): aws-virtual-gpu-device-plugin's MPS container, its control
    # daemon pid 1 starting a server for user 1000.
    r = capture_checks("2731", SHARED)[SHARED]
    assert r.status == "issue" and "MPS control daemon is running (pid 1" in r.message
    assert "Starting new server 17 for user 1000" in r.message
    assert any("Starting control daemon" in e for e in r.evidence)
    assert parse_daemon_log(body("2731")).mps.log[0].endswith("Starting control daemon using socket /tmp/nvidia-mps/control")
    # Another daemon's log, its pid written after one space (a real paste, above).
    r = paste_checks(tmp_path, DRA_1153_MPS, SHARED)[SHARED]
    assert r.status == "issue" and "pid 11107" in r.message
    # Modelled: the daemon's lines cut away, only a server's left: no control daemon shown, nothing judged from MPS.
    server_only = "[2026-05-31 23:46:50.101 Server 11200] Server has started\n"
    assert paste_checks(tmp_path, server_only, SHARED)[SHARED].status != "issue"


GH200_2733_FIRST = """\
docker run --rm --gpus all \\
    -p 8000:8000 \\
    --ipc=host \\
    -v /llm-store/Llama-3.1-8B-Instruct:/model \\
    --name vllm-llama \\
    vllm-nvidia:latest \\
    --host 0.0.0.0 \\
    --port 8000 \\
    --gpu-memory-utilization 0.3 \\
    --model /model \\

"""


def test_a_second_run_cut_before_its_image_on_another_host_port_is_a_second_server(tmp_path: Path) -> None:
    # Corpus 2733 (vllm-project/vllm#10643): vllm-llama on port 8000 with --gpus all, then a second run with --gpus all
    # publishing 8001:8000, cut inside its volume.
    r = capture_checks("2733", SHARED)[SHARED]
    assert r.status == "issue" and "vllm-llama" in r.message and "8001:8000" in r.message
    # Modelled from 2733: the first run and a second cut after its port mapping.
    second = "docker run --rm --gpus all \\\n    -p 8001:8000 \\\n    --ipc=host \\\n    -v /llm-store/Qwen2.5-7"
    assert paste_checks(tmp_path, GH200_2733_FIRST + second, SHARED)[SHARED].status == "issue"
    # The same host port: the run typed again (Docker refuses a port the first still holds), not a second server.
    again = second.replace("8001:8000", "8000:8000")
    assert paste_checks(tmp_path, GH200_2733_FIRST + again, SHARED)[SHARED].status != "issue"
    # Another container port: not the engine's port, nothing says the cut run serves it.
    other = second.replace("8001:8000", "9001:9000")
    assert paste_checks(tmp_path, GH200_2733_FIRST + other, SHARED)[SHARED].status != "issue"
    # Given another GPU than the first: nothing shared.
    first_0 = GH200_2733_FIRST.replace("--gpus all", """--gpus '"device=0"'""")
    apart = second.replace("--gpus all", """--gpus '"device=1"'""")
    assert paste_checks(tmp_path, first_0 + apart, SHARED)[SHARED].status != "issue"
    same = second.replace("--gpus all", """--gpus '"device=0"'""")
    r = paste_checks(tmp_path, first_0 + same, SHARED)[SHARED]
    assert r.status == "issue" and "GPU 0" in r.message


def test_published_ports_as_docker_run_writes_them() -> None:
    c = parse_docker_run("docker run -p 8001:8000 --publish 127.0.0.1:9000:9090/tcp -p 7000 --gpus all img")
    assert c.published_ports == (("8001", "8000"), ("9000", "9090"), ("", "7000"))


def test_hami_core_in_the_engines_log_with_a_slice_of_the_gpu_is_a_vgpu_share(tmp_path: Path) -> None:
    # Corpus 2736 (Project-HAMi/HAMi#1381): vLLM finds 23.4375 GiB free on an H20 (96 GiB) beside HAMi-core's error.
    r = capture_checks("2736", SHARED)[SHARED]
    assert r.status == "issue" and "HAMI-core ERROR" in r.message and "NVIDIA H20 (96 GiB)" in r.message
    text = body("2736")
    # Modelled: without HAMi-core's line the memory held is not shown to be a share: not judged an issue.
    alone = text.replace("`[HAMI-core ERROR (utils.c:160)]: host pid is error!`", "")
    assert alone != text
    assert paste_checks(tmp_path, alone, SHARED)[SHARED].status != "issue"
    # Nearly the whole GPU free: HAMi-core gives the pod the GPU's memory, no slice shown.
    whole = text.replace("Initial free memory 23.4375 GiB", "Initial free memory 93.5 GiB")
    assert paste_checks(tmp_path, whole, SHARED)[SHARED].status != "issue"
    # Another GPU and HAMi's former name (4paradigm's k8s-vgpu-scheduler), v0's reading in bytes.
    other = (text.replace("NVIDIA H20", "NVIDIA GeForce RTX 4090")
             .replace("[HAMI-core ERROR (utils.c:160)]", "[4pdvGPU Warn(28:140476096096064:util.c:135)]")
             .replace("Initial free memory 23.4375 GiB", "Initial free memory 10737418240"))
    r = paste_checks(tmp_path, other, SHARED)[SHARED]
    assert r.status == "issue" and "24 GiB" in r.message and "10.00 GiB" in r.message
    # The GPUs not listed: the whole memory is not shown, nothing to measure the slice against.
    unlisted = text.split("Two HAMi vGPU devices")[0]
    assert paste_checks(tmp_path, unlisted, SHARED)[SHARED].status != "issue"


def test_a_compose_file_and_a_docker_run_are_read_together(tmp_path: Path) -> None:
    # Corpus 2655 (YanWenKun/ComfyUI-Docker#60): the compose service sets CUDA_VISIBLE_DEVICES: all beside a
    # `docker run ... ubuntu nvidia-smi` test; the service's variable leaves CUDA no device.
    r = capture_checks("2655", ACCESS)[ACCESS]
    assert r.status == "issue" and "comfyui: CUDA_VISIBLE_DEVICES=all" in r.message
    # Modelled: the variable naming device 0 leaves the service its GPU.
    text = body("2655").replace("CUDA_VISIBLE_DEVICES: all", "CUDA_VISIBLE_DEVICES: 0")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status != "issue"


def test_an_mps_client_that_cannot_connect_in_a_container_given_gpus(tmp_path: Path) -> None:
    # Corpus 2730 (NVIDIA/nvidia-container-toolkit#714): `docker run -it --ipc=true --gpus device=7 vllm`, then Error 805.
    r = capture_checks("2730", ACCESS)[ACCESS]
    assert r.status == "issue" and "805" in r.message and "--ipc=host" in r.message
    assert "MPS pipe directory" in r.fix.steps[0].does
    # Modelled: CUDA's own name for the error, under a container given GPUs.
    run = "docker run -it --gpus all --name vllm vllm/vllm-openai:latest --model m\n"
    named = run + "RuntimeError: CUDA error: cudaErrorMpsConnectionFailed\n"
    assert paste_checks(tmp_path, named, ACCESS)[ACCESS].status == "issue"
    # The same line with no container shown is the daemon's own failure on the host, not this check's.
    bare = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 805: MPS client failed to connect to the " \
           "MPS control daemon or the MPS server.\n"
    assert paste_checks(tmp_path, bare, ACCESS)[ACCESS].status != "issue"
