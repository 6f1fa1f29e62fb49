"""The container checks over two shapes of pasted spec.

The TensorRT Inference Server (TRTIS: image `nvcr.io/nvidia/tensorrtserver`, program `trtserver`) is Triton before
20.03: a serving container (facts/docker._SERVING), whose release before 20.10 serves every model from its one
process (facts/docker.one_process_triton). Its spec's own /dev/shm, memlock and stack values are judged.

A GPU container whose command is a shell session (`docker run -it IMAGE bash`) runs what is typed in it: an engine
command of more than one rank that the paste shows beside it is its workload for CTR-SHM-SIZE (corpus 1906).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container_specs import parse_docker_run
from stackaudit.facts.docker import one_process_triton

# Real: https://github.com/chiehpower/Setup-deeplearning-tools (its TRTIS README, "The commands of launching your
# TRTIS"), the server's run command as posted.
TRTIS_README = """\
docker run --runtime nvidia \\
    --rm --shm-size=1g \\
    --ulimit memlock=-1 \\
    --ulimit stack=67108864 \\
    -p 8000:8000 -p 8001:8001 -p 8002:8002 \\
    --name trt_serving \\
    -v $model_path:/models \\
    nvcr.io/nvidia/tensorrtserver:19.10-py3 \\
    trtserver --model-store=/models --strict-model-config=false
"""

# Modelled: the same server started with Docker's default /dev/shm (64 MiB) and no memlock ulimit.
TRTIS_DEFAULTS = """\
docker run --runtime nvidia --rm -p 8000:8000 -v /models:/models nvcr.io/nvidia/tensorrtserver:19.10-py3 trtserver --model-store=/models
"""

# Modelled: a bare shell in a GPU container, and a vLLM of one rank typed in it: nothing shares /dev/shm.
SHELL_ONE_RANK = """\
docker run -it --rm --gpus all nvidia/cuda:12.1.1-devel-ubuntu22.04 bash
pip install vllm
vllm serve facebook/opt-125m
"""

# Modelled: the same shell with a TP 2 server typed in it.
SHELL_TP2 = """\
docker run -it --rm --gpus all nvidia/cuda:12.1.1-devel-ubuntu22.04 bash
pip install vllm
vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
"""


def test_trtis_images_are_triton() -> None:
    c = parse_docker_run(" ".join(TRTIS_README.replace("\\\n", " ").split()))
    assert c.looks_like_serving
    assert one_process_triton("nvcr.io/nvidia/tensorrtserver:19.10-py3") == "19.10"
    assert one_process_triton("nvcr.io/nvidia/tritonserver:21.10-py3") == ""


def test_trtis_spec_values_judged(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TRTIS_README, "CTR-SHM-SIZE", "CTR-MEMLOCK", "CTR-STACK-ULIMIT", "CTR-GPU-ACCESS")
    assert r["CTR-SHM-SIZE"].status == "ok"
    assert r["CTR-MEMLOCK"].status == "ok"
    assert r["CTR-STACK-ULIMIT"].status == "ok" and "64 MiB" in r["CTR-STACK-ULIMIT"].message
    # --runtime nvidia with NVIDIA_VISIBLE_DEVICES from the image: read as a request, which alone shows no GPU inside.
    assert r["CTR-GPU-ACCESS"].status == "unknown" and "request GPUs:" in r["CTR-GPU-ACCESS"].message


def test_trtis_default_shm_is_one_process(tmp_path: Path) -> None:
    # TRTIS 19.10 serves every model in its one process: 64 MiB is not on any worker's path.
    r = paste_checks(tmp_path, TRTIS_DEFAULTS, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "not-an-issue"


def test_corpus_trtis_compose_and_clients_run() -> None:
    # triton-inference-server/server#4655 (compose, shm_size 1g) and #135 (docker run, --shm-size=1g and ulimits).
    r = capture_checks("1875", "CTR-SHM-SIZE")
    assert r["CTR-SHM-SIZE"].status == "ok"
    r = capture_checks("1901", "CTR-SHM-SIZE", "CTR-MEMLOCK", "CTR-STACK-ULIMIT")
    assert {k: v.status for k, v in r.items()} == {"CTR-SHM-SIZE": "ok", "CTR-MEMLOCK": "ok", "CTR-STACK-ULIMIT": "ok"}


def test_shell_session_runs_typed_engine(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, SHELL_TP2, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "issue" and "typed in its shell" in r.message
    r = paste_checks(tmp_path, SHELL_ONE_RANK, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status != "issue"


def test_corpus_1906_mlc_tp2_in_bash_container() -> None:
    # mlc-ai/mlc-llm#2498: `docker run -it --gpus all ... bash`, then `tensor_parallel_shards=2` compiled and served.
    assert capture_checks("1906", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "issue"
