"""Issue 28 (h86b): engine verdicts on blind batches AV and AX where both experts agree.

- IC-CUSTOM-ALLREDUCE: vLLM's "lacks GPU P2P capability or P2P test failed" at TP 2 (or an unshown TP size), with
  neither the GPU models nor their links shown, is unknown: the line does not separate cards the driver gives no P2P
  (by design) from a P2P-capable pair whose test failed (a fault).
- CTR-SHM-SIZE: an engine's own lines in the machine's journal (`hpry ollama[28685]: ...`) show it run as a systemd
  service of the machine: no container's /dev/shm limit is in its path (not applicable).
- RT-TRTLLM-ALLREDUCE: TensorRT-LLM's builder before trtllm-build (examples/<model>/build.py) takes
  `--use_custom_all_reduce` as an opt-in switch (`action='store_true'`): its whole build without it, and runs of its
  engine, all-reduce through NCCL (ok).

Issue 28 (h96a), blind batch BR: that opt-in holds for a world size given as a shell variable (corpus 2152); a paste
whose every TensorRT-LLM build is for one GPU, served by one Triton rank, has no TP group to place (corpus 2153); and
tritonserver's `--model-repo` is its `--model-repository`.

Real lines are quoted verbatim from the threads named beside each; modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_command_line

AR = "IC-CUSTOM-ALLREDUCE"
SHM = "CTR-SHM-SIZE"
TRT = "RT-TRTLLM-ALLREDUCE"

# https://github.com/NVIDIA/TensorRT-LLM/issues/753 (issue body, TensorRT-LLM 0.6.0): Baichuan's build.py for two GPUs
# and its run under mpirun, as posted.
TRTLLM_753 = """\
python build.py --model_version v1_13b \\
                --model_dir baichuan-inc/Baichuan-13B-Chat \\
                --dtype float16 \\
                --use_gemm_plugin float16 \\
                --use_gpt_attention_plugin float16 \\
                --output_dir ./tmp/baichuan_v1_13b/trt_engines/fp16/2-gpu/ \\
                --world_size 2

mpirun -n 2 --allow-run-as-root \\
    python ../run.py --input_text "hello" \\
                     --max_output_len=50 \\
                     --tokenizer_dir=baichuan-inc/Baichuan-13B-Chat \\
                     --engine_dir=./tmp/baichuan_v1_13b/trt_engines/fp16/2-gpu/
"""

# https://github.com/vllm-project/vllm/issues/23921 (corpus 1032's thread): one worker's line of a release with the
# real P2P test; the line names no GPU.
VLLM_23921 = ("(Worker pid=1592) WARNING 05-11 03:01:18 [custom_all_reduce.py:165] Custom allreduce is disabled because "
              "your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify "
              "disable_custom_all_reduce=True explicitly.\n")


def test_kaito_log_without_the_gpus_is_unknown() -> None:
    """Real (kaito-project/kaito#866, corpus 1914): a vLLM log at two GPUs, models and links not shown."""
    r = capture_checks("1914", AR)[AR]
    assert r.status == "unknown" and "neither the GPU models nor their links" in r.message


def test_ci_log_without_the_gpus_is_unknown() -> None:
    """Real (vllm-project/vllm#4770, corpus 241): the CI agent's cached P2P verdict for GPUs 0,1."""
    assert capture_checks("241", AR)[AR].status == "unknown"


def test_a_worker_line_at_tp_two_is_unknown(tmp_path: Path) -> None:
    """Real line (vllm-project/vllm#23921) under a modelled TP 2 command."""
    r = paste_checks(tmp_path, "vllm serve m --tensor-parallel-size 2\n" + VLLM_23921, AR)[AR]
    assert r.status == "unknown" and "nvidia-smi topo -p2p" in r.hint


def test_the_named_pair_or_a_group_above_two_stays_an_issue(tmp_path: Path) -> None:
    # Modelled counter-examples: a named P2P-capable PCIe pair; and a group of four, which reaches vLLM's P2P test only
    # after NVML reported the GPUs NVLink-connected.
    pair = ("GPU 0: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
            "GPU 1: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000001)\n")
    assert paste_checks(tmp_path, pair + "vllm serve m --tensor-parallel-size 2\n" + VLLM_23921, AR)[AR].status == "issue"
    assert paste_checks(tmp_path, "vllm serve m --tensor-parallel-size 4\n" + VLLM_23921, AR)[AR].status == "issue"


def test_an_engine_in_the_host_journal_is_a_service_of_the_machine() -> None:
    """Real: ollama/ollama#10369 (corpus 1891, both readers), #10833 (1670, the second reader), #13498 (1759) and
    #10999 (1882): ollama's lines in the journal under its own name, each from a different thread."""
    for prefix in ("1891", "1670", "1759", "1882"):
        r = capture_checks(prefix, SHM)[SHM]
        assert r.status == "not-applicable" and "host's journal" in r.message, (prefix, r.message)


def test_the_same_lines_from_a_container_are_not_a_host_service(tmp_path: Path) -> None:
    # Modelled counter-examples: ollama's own line as `docker logs` prints it (no journal prefix), and the journald
    # log driver's default tag (the container's short id) in the journal.
    line = ('time=2025-04-22T21:35:11.156+08:00 level=INFO source=routes.go:1554 msg="server config" '
            'env="map[CUDA_VISIBLE_DEVICES:0]"\n')
    assert paste_checks(tmp_path, "$ docker logs ollama\n" + line, SHM)[SHM].status != "not-applicable"
    tagged = "Apr 22 21:35:11 hpry 3f2a9c1b7d4e[1204]: " + line
    assert paste_checks(tmp_path, tagged, SHM)[SHM].status != "not-applicable"


def test_a_legacy_build_without_the_switch_all_reduces_through_nccl(tmp_path: Path) -> None:
    """Real: NVIDIA/TensorRT-LLM#521 (corpus 1889, both readers), #395 (1625) and #753 (its build and run; the
    prompt's Chinese text replaced by `hello`)."""
    for prefix in ("1889", "1625"):
        r = capture_checks(prefix, TRT)[TRT]
        assert r.status == "ok" and "opt-in" in r.message, (prefix, r.message)
    assert paste_checks(tmp_path, TRTLLM_753, TRT)[TRT].status == "ok"


def test_the_switch_or_another_engine_leaves_it_open(tmp_path: Path) -> None:
    # Modelled counter-examples: the same build with the switch on, and a run of an engine whose build is not shown.
    on = TRTLLM_753.replace("--world_size 2\n", "--world_size 2 --use_custom_all_reduce\n")
    assert paste_checks(tmp_path, on, TRT)[TRT].status == "unknown"
    other = TRTLLM_753.replace("--engine_dir=./tmp/baichuan_v1_13b/trt_engines/fp16/2-gpu/",
                               "--engine_dir=./engines/other/")
    assert paste_checks(tmp_path, other, TRT)[TRT].status == "unknown"


# https://github.com/NVIDIA/TensorRT-LLM/issues/538 (issue body, 2023-12-04): a build.py for four GPUs, as posted.
TRTLLM_538 = ("python build.py --model_dir ./model --dtype float16 --remove_input_padding --use_gpt_attention_plugin "
              "float16 --enable_context_fmha --use_gemm_plugin float16 --output_dir ../../tmp --world_size 4 "
              "--tp_size 4\n")


def test_a_legacy_build_is_opt_in_whatever_its_world_size(tmp_path: Path) -> None:
    """Real: corpus 2152 (NVIDIA/TensorRT-LLM#1047, both readers: `--world_size ${WORLD_SIZE}`, a shell variable) and
    #538 (world size 4). Modelled: #538's build with `--world_size $NGPUS`, and with the switch on."""
    r = capture_checks("2152", TRT)[TRT]
    assert r.status == "ok" and "opt-in" in r.message, r.message
    assert paste_checks(tmp_path, TRTLLM_538, TRT)[TRT].status == "ok"
    variable = TRTLLM_538.replace("--world_size 4 --tp_size 4", "--world_size $NGPUS --tp_size $NGPUS")
    assert paste_checks(tmp_path, variable, TRT)[TRT].status == "ok"
    on = variable.replace("--tp_size $NGPUS", "--tp_size $NGPUS --use_custom_all_reduce")
    assert paste_checks(tmp_path, on, TRT)[TRT].status == "unknown"


PLACE = "IC-TOPOLOGY-PLACEMENT"
# Corpus 2153 (triton-inference-server/tensorrtllm_backend#75): a one-GPU build.py and a plain tritonserver, trimmed.
ONE_GPU_TRITON = """\
```
python build.py --model_dir ${model_directory} \\
                --dtype float16 \\
                --use_inflight_batching \\
                --output_dir engines/fp16/1-gpu/
```
```
tritonserver --model-repo=/tensorrtllm_backend/triton_model_repo --disable-auto-complete-config
```
"""


@pytest.mark.parametrize("line", [
    "tritonserver --model-repo=/tensorrtllm_backend/triton_model_repo --disable-auto-complete-config",  # corpus 2153
    "tritonserver --model-repo=/models",  # rtzr/tritony README's docker run
    "tritonserver --model-repo=/models --model-control-mode=explicit",  # a Triton Kaldi ASR guide
])
def test_triton_takes_its_model_repository_option_by_prefix(line: str) -> None:
    """tritonserver parses its options with getopt_long, which takes `--model-repo` for `--model-repository`."""
    command = parse_command_line(line)
    assert command is not None and command.engine == "triton"


def test_a_one_gpu_build_served_by_one_triton_rank_has_no_group(tmp_path: Path) -> None:
    """Real: corpus 2153 (both readers: not-applicable). Modelled: the same under `mpirun -n 4`, and built for 4."""
    r = capture_checks("2153", PLACE)[PLACE]
    assert r.status == "not-applicable" and "one GPU" in r.message, r.message
    assert paste_checks(tmp_path, ONE_GPU_TRITON, PLACE)[PLACE].status == "not-applicable"
    ranks = ONE_GPU_TRITON.replace("tritonserver --model", "mpirun -n 4 tritonserver --model")
    assert paste_checks(tmp_path, ranks, PLACE)[PLACE].status != "not-applicable"
    four = ONE_GPU_TRITON.replace("--use_inflight_batching", "--world_size 4 --tp_size 4")
    assert paste_checks(tmp_path, four, PLACE)[PLACE].status != "not-applicable"
