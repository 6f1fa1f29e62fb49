"""Issue 28 (h124a): RT-CUDA-GRAPHS from the engine, its release and its launch.

An engine release from before the engine had CUDA graphs at all has none to turn off: vLLM before 0.2.6
(vllm-project/vllm#1926), TGI before 1.4.0 (huggingface/text-generation-inference#1428) are not-applicable, the
release read from a list, the user's words, uv's install record or a TGI image's tag (versions.FIRST_RELEASE). vLLM's
engine arguments printed as a whole Python dict are the engine's command (corpus 2863), and a llama-bench table shows
llama.cpp, whose only backend there may be Vulkan (corpus 2845).

The corpus files are real pastes; every other text here is modelled on them and says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

CHECK = "RT-CUDA-GRAPHS"


def _graphs(tmp_path: Path, text: str) -> tuple[str, str]:
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    return r.status, r.message


def test_the_corpus_releases_before_graphs_are_not_applicable() -> None:
    vllm = capture_checks("2835", CHECK)[CHECK]  # `vLLM 0.1.2` in the setup list
    assert vllm.status == "not-applicable" and "vLLM 0.1.2 is older than 0.2.6" in vllm.message
    tgi = capture_checks("2796", CHECK)[CHECK]  # `Docker image: ...text-generation-inference:latest (1.1.0)`
    assert tgi.status == "not-applicable" and "TGI 1.1.0 is older than 1.4.0" in tgi.message


# Modelled: a setup list as 2835's, each with one engine line in another wording.
SETUP = "Setup details:\n```\nNVIDIA Driver Version: 525.105.17\nGPU: 1 x NVIDIA A100-SXM4-40GB\n{line}\n```\n"


@pytest.mark.parametrize("line", [
    "vLLM 0.2.1",
    "- vLLM: v0.2.5",
    " + vllm==0.2.1",  # uv's record of the package it installed
    "I'm on vLLM 0.1.2 and the throughput is lower than the blog's.",
    "TGI v1.1.0",
    "text-generation-inference 1.1",
    "TGI version: 1.3.4",
    "Docker image: `ghcr.io/huggingface/text-generation-inference:1.1.0`",
    "Docker image: `ghcr.io/huggingface/text-generation-inference:latest` (1.1.0)",
])
def test_a_release_before_graphs_in_any_wording_is_not_applicable(tmp_path: Path, line: str) -> None:
    status, message = _graphs(tmp_path, SETUP.format(line=line))
    assert status == "not-applicable", message
    assert "the first release with CUDA graphs" in message


@pytest.mark.parametrize("line", [
    "vLLM 0.2.6",  # the first release with graphs
    "TGI 1.4.0",
    "Docker image: `ghcr.io/huggingface/text-generation-inference:2.0.4`",
])
def test_a_release_with_graphs_stays_open_without_its_launch(tmp_path: Path, line: str) -> None:
    status, message = _graphs(tmp_path, SETUP.format(line=line))
    assert status == "unknown", message


def test_two_engines_one_with_graphs_stay_open(tmp_path: Path) -> None:
    # Modelled: one list names vLLM 0.1.2 and SGLang 0.4.3: the SGLang run captures graphs.
    status, message = _graphs(tmp_path, SETUP.format(line="vLLM 0.1.2\nSGLang 0.4.3"))
    assert status == "unknown", message


def test_a_command_of_a_release_before_graphs_is_not_applicable_not_ok(tmp_path: Path) -> None:
    # Modelled: a whole vLLM command (no eager-mode flag) beside the release a list states.
    command = "```\npython -m vllm.entrypoints.api_server --model facebook/opt-13b --tensor-parallel-size 1\n```\n"
    status, message = _graphs(tmp_path, command + SETUP.format(line="vLLM 0.2.1"))
    assert status == "not-applicable", message
    status, message = _graphs(tmp_path, command + SETUP.format(line="vLLM 0.2.7"))
    assert status == "ok", message


@pytest.mark.parametrize(("image", "want"), [
    ("ghcr.io/huggingface/text-generation-inference:1.1.0", "not-applicable"),
    ("ghcr.io/huggingface/text-generation-inference:1.4", "unknown"),  # graphs asked for only with its switch
])
def test_a_tgi_image_tag_names_its_release(tmp_path: Path, image: str, want: str) -> None:
    # Modelled: TGI's own docker run, whole.
    text = (f"```\ndocker run --gpus all --shm-size 1g -p 8080:80 -v $PWD/data:/data {image} "
            "--model-id TheBloke/Llama-2-70B-chat-GPTQ --quantize gptq --num-shard 4\n```\n")
    status, message = _graphs(tmp_path, text)
    assert status == want, message


def test_a_printed_vllm_args_dict_is_the_engine_command() -> None:
    r = capture_checks("2863", CHECK, "IC-CUSTOM-ALLREDUCE")
    assert r[CHECK].status == "ok" and "--max-context-len-to-capture" in r[CHECK].message
    assert r["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


# Modelled on corpus 2863: a program's print of its vLLM worker's arguments, as pprint wraps a dict.
ARGS = """\
{'block_size': 16,
 'enforce_eager': EAGER,
 'gpu_memory_utilization': 0.9,
 'max_context_len_to_capture': 8192,
 'max_model_len': 4096,
 'model_path': '/models/qwen-7b',
 'swap_space': 4,
 'tensor_parallel_size': 2,
 'worker_use_ray': False}
"""


def test_a_printed_dict_that_turns_graphs_off_is_an_issue(tmp_path: Path) -> None:
    status, message = _graphs(tmp_path, ARGS.replace("EAGER", "True"))
    assert status == "issue" and "--enforce-eager" in message, message
    assert _graphs(tmp_path, ARGS.replace("EAGER", "False"))[0] == "ok"


@pytest.mark.parametrize("text", [
    ARGS.replace("EAGER", "False").replace(" 'worker_use_ray': False}\n", ""),  # cut before its closing brace
    ARGS.replace("EAGER", "False").replace(" 'swap_space': 4,\n", ""),  # a key of vLLM's missing: another program's
])
def test_a_cut_or_foreign_dict_is_no_command(tmp_path: Path, text: str) -> None:
    status, message = _graphs(tmp_path, text)
    assert status != "ok", message


def test_llama_bench_shows_llama_cpp_on_any_backend(tmp_path: Path) -> None:
    r = capture_checks("2845", CHECK)[CHECK]  # Vulkan rows on an AMD RX 580
    assert r.status == "not-applicable" and "llama.cpp" in r.message
    # Modelled: the same table's row run on the CUDA backend, with no USE_GRAPHS line (the majority's reading, h68k).
    table = ("| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
             "| llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA | 99 | tg128 | 128.41 ± 0.12 |\n")
    status, message = _graphs(tmp_path, table)
    assert status == "not-applicable" and "llama.cpp" in message, message


def test_a_vllm_container_of_a_stated_release_before_graphs_is_not_applicable(tmp_path: Path) -> None:
    # Modelled: a whole docker run of vLLM's image beside the release a list states.
    run = ("```\ndocker run --gpus all --ipc=host vllm/vllm-openai:latest --model facebook/opt-13b\n```\n")
    status, message = _graphs(tmp_path, run + SETUP.format(line="vLLM 0.2.1"))
    assert status == "not-applicable", message
    status, message = _graphs(tmp_path, run + SETUP.format(line="vLLM 0.2.7"))
    assert status != "not-applicable", message
