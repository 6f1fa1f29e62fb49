"""The world size of a TensorRT-LLM engine from the build a paste shows (issue 28, blind DS and DT; RT-TRTLLM-ALLREDUCE).

- trtllm-build takes the engine's TP and PP from the checkpoint it builds: a conversion shown that wrote its
  `--checkpoint_dir` (`convert_checkpoint.py`, or the quantisation script `quantize.py --qformat ...`), with no
  `--tp_size` / `--pp_size` above 1, builds an engine of one GPU (facts/engine_command.py built_world_sizes,
  built_for_one_gpu): RT-TRTLLM-ALLREDUCE and IC-TOPOLOGY-PLACEMENT are not applicable (corpus 2792, 2804). A build the
  paste cuts is read where its own sizes or its output directory's name (`1-gpu`) state the same size.
- A build that forces the custom all-reduce on (`--use_custom_all_reduce enable`) for several GPUs of a product line
  with peer-to-peer (data-centre parts, not GeForce) looks like the failing setting and is not: not-an-issue (corpus
  2803).
- A command whose lines each stand in an inline code span of their own, each but the last ending in `\\`, is read as
  the command (importers/_paste.py span_command_run; corpus 2804).

Real pastes are corpus captures (their public threads in their headers); the rest is modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.importers._paste import view

ALLREDUCE, PLACEMENT = "RT-TRTLLM-ALLREDUCE", "IC-TOPOLOGY-PLACEMENT"


@pytest.mark.parametrize(("prefix", "script"), [("2792", "quantize.py"), ("2804", "convert_checkpoint.py")])
def test_a_checkpoint_converted_for_one_gpu_builds_a_one_gpu_engine(prefix: str, script: str) -> None:
    results = capture_checks(prefix, ALLREDUCE, PLACEMENT)
    for check in (ALLREDUCE, PLACEMENT):
        assert results[check].status == "not-applicable", (prefix, check, results[check].message)
        assert script in results[check].message


def test_custom_all_reduce_forced_on_data_centre_gpus_is_not_an_issue() -> None:
    # Corpus 2803: the draft engine built with `--use_custom_all_reduce enable` at TP 4 on four A100 80G.
    result = capture_checks("2803", ALLREDUCE)[ALLREDUCE]
    assert result.status == "not-an-issue", result.message
    assert "4 GPUs" in result.message and "A100" in result.message


# Modelled on corpus 2792's two steps: the conversion's sizes, the build's checkpoint and its own flags vary.
def _steps(quantize: str = "", build: str = "", checkpoint: str = "./quantized_fp8/") -> str:
    return (f"python ../quantization/quantize.py --model_dir /m --dtype bfloat16 --qformat fp8 --output_dir "
            f"./quantized_fp8 --calib_size 256{quantize}\n\n"
            f"trtllm-build --checkpoint_dir {checkpoint} --output_dir ./engine/ --gemm_plugin bfloat16{build}\n")


@pytest.mark.parametrize(("quantize", "build", "checkpoint", "one_gpu"), [
    ("", "", "./quantized_fp8/", True),
    (" --tp_size 1 --pp_size 1", "", "quantized_fp8", True),
    (" --tp_size 2", "", "./quantized_fp8/", False),  # a checkpoint of two ranks
    (" --pp_size 2", "", "./quantized_fp8/", False),
    ("", " --auto_parallel 2", "./quantized_fp8/", False),  # the build plans two ranks itself
    ("", "", "./other_ckpt/", False),  # a checkpoint no conversion shown wrote
])
def test_the_engine_is_as_wide_as_its_checkpoint(tmp_path: Path, quantize: str, build: str, checkpoint: str,
                                                 one_gpu: bool) -> None:
    result = paste_checks(tmp_path, _steps(quantize, build, checkpoint), ALLREDUCE)[ALLREDUCE]
    assert (result.status == "not-applicable") is one_gpu, (quantize, build, checkpoint, result.message)


def test_another_projects_quantize_script_is_no_conversion() -> None:
    # Modelled: a quantize.py without TensorRT-LLM's --qformat is another project's.
    host = pasted("python quantize.py --model_dir /m --output_dir ./q --bits 4\n")
    commands = fact(host, "engine_commands")
    assert not [c for c in getattr(commands, "commands", ()) if c.converts]


def test_a_cut_build_needs_its_size_stated_before_the_cut(tmp_path: Path) -> None:
    # Modelled: corpus 2804's shape, the build cut inside its flags, its output directory named for one GPU or not.
    for out, one_gpu in (("./trt_engine/fp16/1-gpu", True), ("./trt_engine/fp16", False)):
        text = ("python convert_checkpoint.py --model_dir /m --output_dir ./ckt_out --dtype float16\n\n```\n"
                f"trtllm-build --checkpoint_dir ./ckt_out \\\n    --output_dir {out} \\\n    --gemm_plugin float16 \\\n"
                "    --remove_input_paddi\n")
        result = paste_checks(tmp_path, text, ALLREDUCE)[ALLREDUCE]
        assert (result.status == "not-applicable") is one_gpu, (out, result.message)


@pytest.mark.parametrize(("gpus", "status"), [("4xA100 80G", "not-an-issue"), ("4x RTX 4090", "unknown")])
def test_forced_custom_all_reduce_by_the_gpus_product_line(tmp_path: Path, gpus: str, status: str) -> None:
    # Modelled on corpus 2803: the same forced build on data-centre GPUs and on GeForce cards (no P2P with the stock
    # driver, where the forced kernels fail: the paste shows no failure, so it stays open).
    text = (f"hardware: {gpus}\n\n```\npython convert_checkpoint.py --model_dir /m --output_dir ./ckpt --dtype float16 "
            "--tp_size 4\ntrtllm-build --checkpoint_dir ./ckpt --output_dir ./engine --use_custom_all_reduce enable "
            "--gemm_plugin float16\n```\n")
    result = paste_checks(tmp_path, text, ALLREDUCE)[ALLREDUCE]
    assert result.status == status, (gpus, result.message)


def test_a_command_whose_lines_are_each_a_span_is_read_whole() -> None:
    # Corpus 2804's shape (modelled): each line of the command is an inline code span of its own.
    lines = view("**- convert ckt:**\n`python convert_checkpoint.py \\`\n`    --model_dir /m \\`\n"
                 "`    --output_dir ./ckt_out_1gpu \\`\n`    --dtype float16`\n").lines
    assert lines[1:5] == ["python convert_checkpoint.py \\", "    --model_dir /m \\", "    --output_dir ./ckt_out_1gpu \\",
                         "    --dtype float16"]


@pytest.mark.parametrize("text", [
    "`ls -la \\`\n`    /opt/models`\n",  # a run of spans that is no command the recognisers read
    "`python convert_checkpoint.py \\`\n",  # one span alone
    "`python convert.py \\`\n`    --dtype float16`\n",  # another program's
])
def test_other_spans_keep_their_backticks(text: str) -> None:
    assert view(text).lines[0].startswith("`"), text


def test_tensorrt_llm_on_an_nvswitch_board_is_ok_whatever_its_strategy() -> None:
    # Corpus 2837: TensorRT-LLM v0.20.0rc0 in the list, B200 GPUs, a trtllm-bench report; no flag shown.
    result = capture_checks("2837", ALLREDUCE)[ALLREDUCE]
    assert result.status == "ok", result.message
    assert "joined by NVLink" in result.message


@pytest.mark.parametrize(("prefix", "coverage"), [("983", "8 of 8 GPUs shown"), ("996", "4 of 4 GPUs shown")])
def test_tensorrt_llm_on_hgx_modules_is_ok(prefix: str, coverage: str) -> None:
    # Corpus 983: eight H100 80GB HBM3 (NVSwitch); 996: four A800-SXM4 (a 4-GPU board, NVLinked directly).
    result = capture_checks(prefix, ALLREDUCE)[ALLREDUCE]
    assert result.status == "ok", (prefix, result.message)
    assert result.coverage is not None and result.coverage.text() == coverage


# Modelled: TensorRT-LLM's release in a list beside a GPU named in a list, and a forced strategy with its config unseen.
@pytest.mark.parametrize(("gpu", "status"), [
    ("NVIDIA H100 80GB HBM3", "ok"),  # the SXM module's NVML name
    ("NVIDIA A100-SXM4-80GB", "ok"),
    ("NVIDIA H100", "unknown"),  # may be the PCIe or NVL card
    ("NVIDIA L40S", "unknown"),  # a PCIe card: its P2P is the question
    ("NVIDIA GeForce RTX 4090", "unknown"),
])
def test_the_board_decides_only_for_nvswitch_modules(tmp_path: Path, gpu: str, status: str) -> None:
    text = f"- GPU: {gpu}\n- TensorRT-LLM version: 0.20.0\n"
    result = paste_checks(tmp_path, text, ALLREDUCE)[ALLREDUCE]
    assert result.status == status, (gpu, result.message)


def test_no_tensorrt_llm_shown_is_not_judged_by_the_board(tmp_path: Path) -> None:
    # Modelled: H100 SXM named, vLLM's release only: the board says nothing of a TensorRT-LLM that is not shown.
    result = paste_checks(tmp_path, "- GPU: NVIDIA H100 80GB HBM3\n- vLLM version: 0.9.0\n", ALLREDUCE)[ALLREDUCE]
    assert result.status != "ok", result.message
