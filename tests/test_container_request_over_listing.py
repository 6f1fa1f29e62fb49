"""CTR-GPU-ACCESS: a request for every GPU is judged over the GPUs the source lists (issue 28).

- A compose service that asks for every GPU (a device reservation with no count, `runtime: nvidia`) beside the
  host's nvidia-smi cut in its header, with no engine log and nothing typed inside the container: no GPU is shown for
  the request to hand over, so the request is no proof of access: unknown (corpus 1755, vllm-project/vllm#8885).
- The same cut listing beside the engine's own log from the container stays ok (corpus 798, vllm-project/vllm#18995),
  and so does one beside nvidia-smi typed at the container's own prompt (corpus 1016, gpustack/gpustack).

- Two whole `docker run`s whose environment names GPUs (`--env NVIDIA_VISIBLE_DEVICES=0,1`, no request: the
  nvidia-docker 2 way) are GPU containers by intent; both in the host's IPC namespace, they share its /dev/shm (IPC and
  /dev/shm ok), and a rank's NCCL line of its ring set-up shows CUDA reached its device there (corpus 1754,
  NVIDIA/nccl#324).

Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted, symptom_names

ACCESS = "CTR-GPU-ACCESS"

# One GPU row of nvidia-smi's table (modelled on a V100's), to finish corpus 1755's cut header.
_V100_ROWS = """|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla V100-SXM2-32GB           On  |   00000000:06:00.0 Off |                    0 |
| N/A   33C    P0             42W /  300W |       0MiB /  32768MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
```
"""


def test_every_gpu_request_over_a_listing_cut_before_any_gpu_is_unknown() -> None:
    # Corpus 1755: the compose reserves every GPU; the host's nvidia-smi stops at its column headers.
    result = capture_checks("1755", ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "cut before its first GPU" in result.message and "mixtral7x8b" in result.message


def test_the_same_request_over_a_listed_gpu_stays_ok(tmp_path: Path) -> None:
    # Modelled: corpus 1755 with its nvidia-smi finished by one GPU row.
    text = body("1755").rstrip("\n").removesuffix("|") + _V100_ROWS
    assert fact(pasted(text), "gpus").gpus, "the modelled row must be read as a GPU"
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_an_engine_log_from_the_container_keeps_the_request_ok() -> None:
    # Corpus 798: `--gpus all`, the host's nvidia-smi cut in its header, and vLLM's CUDA error from the container.
    result = capture_checks("798", ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_nvidia_smi_typed_inside_the_container_keeps_the_request_ok() -> None:
    # Corpus 1016: `gpus: all`, and nvidia-smi typed at the container's prompt (root@b888322c7439) answers with the
    # host's driver before its table is cut.
    result = capture_checks("1016", ACCESS)[ACCESS]
    assert result.status == "ok", result.message
    container = fact(pasted(body("1016")), "container")
    assert ("b888322c7439", "nvidia-smi --version") in container.exec_into


# --- GPU containers named by their environment (corpus 1754, NVIDIA/nccl#324) --------------------------------------

IPC = "CTR-IPC-ISOLATION"
SHM = "CTR-SHM-SIZE"


def test_two_host_ipc_containers_named_by_their_environment() -> None:
    # Corpus 1754: two whole `docker run --env NVIDIA_VISIBLE_DEVICES=0,1 ... --ipc=host ... bash` containers, one DDP
    # rank typed into each, and rank 1's NCCL line of its ring set-up.
    results = capture_checks("1754", ACCESS, IPC, SHM)
    assert results[IPC].status == "ok", results[IPC].message
    assert "pytorch_test_0" in results[IPC].message and "pytorch_test_1" in results[IPC].message
    assert results[SHM].status == "ok", results[SHM].message
    assert results[ACCESS].status == "ok", results[ACCESS].message
    assert "NCCL INFO Ring" in results[ACCESS].message
    specs = fact(pasted(body("1754")), "docker_containers")
    assert all(c.gpus_by_env and not c.gpu_requested for c in specs.containers)


def test_one_private_namespace_beside_host_ipc_is_not_ok(tmp_path: Path) -> None:
    # Modelled: corpus 1754 with the second container's --ipc=host left out.
    text = body("1754").replace("--ipc=host \\\n--uts=host \\\n--pid=host \\\n-v /root:/root \\\n"
                                "pytorch/pytorch:1.3-cuda10.1-cudnn7-runtime \\\nbash",
                                "--uts=host \\\n--pid=host \\\n-v /root:/root \\\n"
                                "pytorch/pytorch:1.3-cuda10.1-cudnn7-runtime \\\nbash")
    assert text != body("1754")
    assert paste_checks(tmp_path, text, IPC)[IPC].status != "ok"


def test_without_the_nccl_line_the_default_runtime_stays_unshown(tmp_path: Path) -> None:
    # Modelled: corpus 1754 cut before its NCCL line: no GPU request, and nothing shows the GPUs reached the containers.
    text = body("1754").split("3. From the logs")[0]
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "default runtime" in result.message


def test_nccl_ring_set_up_lines_of_each_form() -> None:
    # NCCL's ring, channel and tree lines as real logs print them: NVIDIA/nccl#367 (2.4, `Ring 00 : 11[0] -> 12[0] via
    # direct shared memory`), NVIDIA/nccl#360 (2.7, `Channel 00/04 :    0   1`, `Trees [0] ...`).
    from stackaudit.facts.serving_logs import NCCL_RINGS

    for line in ("26a46eb2b1d3:111315:111399 [0] NCCL INFO Ring 00 : 11[0] -> 12[0] via direct shared memory",
                 "iZ8vb69v6s60nfnp50dd1dZ:297:305 [0] NCCL INFO Channel 00/04 :    0   1",
                 "iZ8vb69v6s60nfnp50dd1dZ:297:305 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1|-1->0->1/-1/-1"):
        assert NCCL_RINGS.search(line), line
    # Its bootstrap and network lines come before any CUDA device is read.
    for line in ("iZ8vb69v6s60nfnp50dd1dZ:297:297 [0] NCCL INFO Bootstrap : Using [0]eth0:172.26.10.27<0>",
                 "iZ8vb69v6s60nfnp50dd1dZ:297:297 [0] NCCL INFO NET/Socket : Using [0]eth0:172.26.10.27<0>"):
        assert not NCCL_RINGS.search(line), line


def test_two_host_ipc_gpu_containers_of_one_device_each(tmp_path: Path) -> None:
    # Modelled on NVIDIA/nccl#324's reproduction (a comment of the thread): two `docker run --gpus device=N --ipc host
    # --network host ... bash` containers, one nccl-tests rank typed into each.
    runs = "\n\n".join(f"docker run --gpus \"device={n}\" --ipc host --network host --pid host --uts host \\\n"
                       f"  --rm -it -e NCCL_DEBUG=INFO -v /work:/work -w /work my_cuda_nccl_image bash"
                       for n in (0, 1))
    result = paste_checks(tmp_path, f"```bash\n{runs}\n```\n", IPC)[IPC]
    assert result.status == "ok", result.message


# --- MEM-PINNED-HOST: a pinned allocation refused by CUDA's own start error (corpus 1639) ---------------------------

PINNED = "MEM-PINNED-HOST"


def test_pinned_pool_refused_by_an_insufficient_driver_is_not_the_hosts() -> None:
    # Corpus 1639 (Triton 23.02 with no driver in its container): the pinned memory manager's pool fails with CUDA's
    # `driver version is insufficient`.
    result = capture_checks("1639", PINNED)[PINNED]
    assert result.status == "not-an-issue", result.message
    assert "pinned_memory_manager.cc" in result.message


def test_pinned_refusals_by_cause() -> None:
    # ggml's refusal with CUDA's 803 (ollama/ollama#5517) is CUDA's start, not the host's page-locked memory.
    line = ("ggml_cuda_host_malloc: failed to allocate 2560.00 MiB of pinned memory: system has unsupported display "
            "driver / cuda driver combination")
    assert "pinned-alloc-cuda-unstarted" in symptom_names(line + "\n")
    assert "pinned-alloc-failed" not in symptom_names(line + "\n")
    # Refused for memory (ggml-org/llama.cpp#1233's form, TensorFlow's host allocator; modelled Triton with ENOMEM):
    # still the host's page-locked memory.
    for line in ("WARNING: failed to allocate 1024.00 MB of pinned memory: out of memory",
                 "could not allocate pinned host memory of size: 34359738368"):
        assert symptom_names(line + "\n") == ["pinned-alloc-failed"], line
    triton_oom = ("W0605 06:26:38.147148 1 pinned_memory_manager.cc:236] Unable to allocate pinned system memory, "
                  "pinned memory pool will not be available: out of memory")
    assert "pinned-alloc-cuda-unstarted" not in symptom_names(triton_oom + "\n")


# --- CTR-IPC-ISOLATION: a cut spec that shows no GPU container (corpus 1663) ----------------------------------------


def test_cut_spec_without_a_gpu_container_does_not_say_nothing_split(tmp_path: Path) -> None:
    # Corpus 1663 (ray-project/kuberay): a RayService whose replica asks for num_gpus: 2, cut in its head's resources;
    # the GPU worker groups lie past the cut.
    result = capture_checks("1663", IPC)[IPC]
    assert result.status == "unknown", result.message
    assert "ray-head" in result.message
    # Corpus 462: a cut pod spec that shows the engine's own container (trtllm-serve, TP 4) keeps its ranks there.
    assert capture_checks("462", IPC)[IPC].status == "not-applicable"
    # Modelled: corpus 1663 with its head given a GPU: a GPU container is shown, so the rule stands down.
    text = body("1663").replace("                  cpu: 1\n", "                  cpu: 1\n                  nvidia.com/gpu: 1\n", 1)
    assert text != body("1663")
    assert paste_checks(tmp_path, text, IPC)[IPC].status != "unknown"


# A program's own failure before any CUDA work the paste shows leaves a GPU request unproven (facts/symptoms.py
# `doubts`: nvml-init-failed-unsaid, localai-backend-died-on-load; issue 28, h106a).
@pytest.mark.parametrize(("prefix", "row", "quoted"), [
    ("2413", "nvml-init-failed-unsaid", "Error: Failed to initialize NVML"),
    ("2421", "localai-backend-died-on-load", "error reading from server: EOF"),
])
def test_program_failing_before_cuda_leaves_the_request_unproven(prefix: str, row: str, quoted: str) -> None:
    # Corpus 2413 (NVIDIA/dcgm-exporter#234): `docker run --gpus all` of dcgm-exporter on a Jetson, NVML fails;
    # corpus 2421 (mudler/LocalAI#10625): LocalAI's CUDA 13 image with --gpus all, its backend dies on load.
    assert row in symptom_names(body(prefix))
    r = capture_checks(prefix, ACCESS)[ACCESS]
    assert r.status == "unknown" and quoted in r.message


def test_failures_that_name_their_cause_or_are_judged_keep_their_verdict() -> None:
    # Corpus 273 (another thread): the bare NVML failure in a pod whose GPUs the device cgroup lost stays an issue;
    # corpus 2169 (another thread): LocalAI's EOF with no container shown stays unknown, not ok.
    assert capture_checks("273", ACCESS)[ACCESS].status == "issue"
    assert capture_checks("2169", ACCESS)[ACCESS].status == "unknown"
    # Modelled: NVML's failure with its cause is another row's; the words inside a sentence are no failure line.
    assert "nvml-init-failed-unsaid" not in symptom_names("Failed to initialize NVML: Unknown Error\n")
    assert "nvml-init-failed-unsaid" not in symptom_names("we saw Failed to initialize NVML and then rebooted\n")


def test_request_alone_without_a_failure_is_unknown_unquoted(tmp_path: Path) -> None:
    # Modelled counter-example: the same docker run as corpus 2413's without its failure lines: its request alone shows
    # no GPU inside (unknown, issue 28 h121c), and no failure line is quoted.
    text = ("`docker run --rm    --gpus all    --net host    --cap-add SYS_ADMIN  "
            "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.0-3.2.0-ubuntu22.04`\n")
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "unknown" and "the log shows" not in result.message
