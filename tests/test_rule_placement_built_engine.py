"""IC-TOPOLOGY-PLACEMENT for a TensorRT-LLM engine built for every GPU (corpus 1866, 1842).

A TensorRT-LLM engine holds the TP x PP it was built with (`convert_checkpoint.py --tp_size 4`); its launch
(`mpirun -n 4 tritonserver ...`, `run.py --engine_dir ...`) states no size of its own. Built for the host's GPU count,
its group is every GPU: no placement to choose (facts/parallelism.group_of_every_gpu).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"

# NVIDIA/TensorRT-LLM#1826 (four A40, TensorRT-LLM 0.11): the issue body's machine and commands.
A40_BUILD = """\
### System Info

CentOS Linux release 7.9.2009

Nvida A40 * 4

TensorRT-LLM version: 0.11.0.dev2024061800

### Reproduction

python3 convert_checkpoint.py --model_dir /media/Llama-2-13b-hf/  --output_dir /media/tllm_checkpoint_4gpu_tp4  \
--dtype float16  --tp_size 4

trtllm-build --checkpoint_dir /media/tllm_checkpoint_4gpu_tp4  --output_dir /media/llama-13b-engines-fp16-4gpu  \
--gemm_plugin float16 --multi_block_mode enable

python3 run.py --engine_dir /media/llama-13b-engines-fp16-4gpu  --max_output_len 1024 \
--tokenizer_dir /media/Llama-2-13b-hf/ --input_text "hello"
"""

# NVIDIA/TensorRT-LLM#1047 (an AWS g5.12xlarge of four A10G): the build's sizes are a shell variable, unread.
A10G_BUILD = """\
### System Info

1x AWS g5.12xlarge  (4x NVIDIA A10G)

```
python scripts/tensorrt_llm/mistral/build.py \\
        --model_dir "${MODELS_PATH}/${MODEL_ID}" \\
        --dtype float16 \\
        --world_size ${WORLD_SIZE} \\
        --tp_size  ${WORLD_SIZE} \\
        --output_dir "${TRT_ENGINE_PATH}/${MODEL_ID}/${WORLD_SIZE}-gpu"
```
"""


def test_capture_1866_triton_launch_runs_the_built_tp() -> None:
    """Real (capture 1866, NVIDIA/TensorRT-LLM#2813): `--tp_size 4` on 4x A100, `mpirun -n 4 tritonserver ...`."""
    r = capture_checks("1866", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "TP 4" in r.message and "host's 4 GPUs" in r.message


def test_real_run_py_launch(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, A40_BUILD, PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "host's 4 GPUs" in r.message


def test_real_triton_launch(tmp_path: Path) -> None:
    """The same build launched as tensorrtllm_backend#398's maintainer gives it (`mpirun -n 4 tritonserver ...`)."""
    text = A40_BUILD.rsplit("python3 run.py", 1)[0] + "mpirun -n 4 --allow-run-as-root tritonserver " \
        "--model-repository=/triton_model_repo\n"
    assert paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT].status == "not-an-issue"


def test_real_unread_sizes_stay_open(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, A10G_BUILD, PLACEMENT)[PLACEMENT].status == "unknown"


def test_modelled_engine_on_half_the_host_stays_open(tmp_path: Path) -> None:
    """Modelled: the A40 build on a host of eight: a group of four of eight, whose placement the source does not show."""
    text = A40_BUILD.replace("Nvida A40 * 4", "Nvida A40 * 8").rsplit("python3 run.py", 1)[0] \
        + "mpirun -n 4 --allow-run-as-root tritonserver --model-repository=/triton_model_repo\n"
    assert paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT].status == "unknown"
