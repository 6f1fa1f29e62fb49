"""Blind run R (issue 28): a check that cannot apply to what the paste shows says so, from what is shown.

1. RT-TORCH-ARCH / RT-CUDA-GRAPHS: the only engine shown is ollama or llama.cpp, as a container image
   (facts/applicability.GGML_IMAGES) or in the user's own words (importer `prose engine`, fact `stated_engines`):
   a sentence no other reader takes, never a command or a machine's line, and alone no pasted output.
2. MEM-MIG: every GPU shown lacks MIG (its MIG cell reads N/A, or its model is not in NVIDIA's MIG user guide).
3. PWR-GPU-POWER-LIMIT: a cap at the board's default, the default from the GPU table (the V100 PCIe rows).

Each rule on real pastes (corpus captures, with their threads) and a modelled counter-example where it must not fire.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.cli.main import main
from stackaudit.facts.applicability import ggml_image_engine
from stackaudit.facts.engine_command import stated_engines
from stackaudit.facts.sources import USER_ENGINES
from stackaudit.gputable import has_mig, lookup, resolve_cut_name
from stackaudit.importers.recognition import recognise

ENGINE_CHECKS = ("RT-TORCH-ARCH", "RT-CUDA-GRAPHS")


def _statuses(results: dict[str, Any], *ids: str) -> dict[str, str]:
    return {cid: results[cid].status for cid in ids}


# --- 1. the only engine shown is ollama or llama.cpp ------------------------------------------------------------

@pytest.mark.parametrize(("capture", "engine"), [
    # Real: https://github.com/ollama/ollama/issues/12084, `docker run ... ollama/ollama:latest` beside nvidia-smi.
    ("482", "ollama"),
    # Real: https://github.com/ollama/ollama/issues/1561, a compose service with `image: ollama/ollama:latest`.
    ("162", "ollama"),
    # Real: https://github.com/ollama/ollama/issues/7786, a compose service with `image: ollama/ollama`.
    ("260", "ollama"),
])
def test_an_ollama_image_is_the_engine_shown(capture: str, engine: str) -> None:
    results = capture_checks(capture, *ENGINE_CHECKS)
    assert _statuses(results, *ENGINE_CHECKS) == dict.fromkeys(ENGINE_CHECKS, "not-applicable")
    assert "ollama" in results["RT-TORCH-ARCH"].message


@pytest.mark.parametrize("capture", [
    # Real: https://github.com/ollama/ollama/issues/5024, "ollama seems to only use 1 nvidia gpu" above nvidia-smi.
    "483",
    # Real: https://github.com/ollama/ollama/issues/6926, "i can use nvidia-smi in linux and ollama docker".
    "491",
    # Real: https://github.com/ollama/ollama/issues/9362, "after `ollama run deepseek-r1:1.5b ...` is executed".
    "319",
    # Real: https://github.com/ollama/ollama/issues/6933, "I am using ollama from docker" above nvidia-smi.
    "411",
])
def test_the_users_words_naming_ollama_are_the_weakest_source(capture: str) -> None:
    results = capture_checks(capture, *ENGINE_CHECKS)
    assert _statuses(results, *ENGINE_CHECKS) == dict.fromkeys(ENGINE_CHECKS, "not-applicable")
    assert results["RT-TORCH-ARCH"].message.startswith("the only engine the paste shows is ollama")


def _words_read(text: str) -> list[str]:
    """The lines the user's-words reader took from a paste (the document USER_ENGINES)."""
    return recognise(text, "paste").record.docs.get(USER_ENGINES.name, "").splitlines()


@pytest.mark.parametrize("line", [
    # Real lines of machines and commands the old reader took (corpus 67, 45, 394, 464, 413, 455, 33).
    "vllm-dev) (base) root@host:~/vllm# vllm serve  /models/Qwen2.5-7B-Instruct --tensor-parallel-size=2",
    "python3 -m sglang.check_env",
    "docker  pull vllm/vllm-openai:latest and then run it with the defaults",
    "[TensorRT-LLM][WARNING] Using an engine plan file across different models of devices is not recommended",
    "/home/user/.local/lib/python3.10/site-packages/transformers/utils/hub.py:124: FutureWarning: Using "
    "`TRANSFORMERS_CACHE` is deprecated and will be removed in v5 of Transformers. Use `HF_HOME` instead.",
    "### Which llama.cpp modules do you know to be affected?",
    "root  409237  python -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2",
    "ollama run llama3 and then ask it a question about the weather",
    "docker run -d --gpus all -v ollama:/root/.ollama -p 11434:11434 --name ollama ollama/ollama",
])
def test_a_command_or_a_machines_line_is_not_the_users_words(line: str) -> None:
    """Counter-example: each line is a command, a log, a warning or a template's heading, never the user's words,
    even where no other reader takes it."""
    assert _words_read(line + "\n") == []


def test_a_line_another_reader_takes_is_read_once() -> None:
    """Real (corpus 482, https://github.com/ollama/ollama/issues/12084): the `docker run` line is the docker run
    reader's alone; the reader of the user's words takes only the sentence above it (the one below starts with the
    program's name, `docker can see ollama having 4 gpus`, and is left unread)."""
    spans = recognise(next(Path(__file__).parent.joinpath("data", "captures").glob("482-*.txt")).read_text(),
                      "482").recognised  # the header's lines count: the paste's lines 1 and 3 are 9 and 11
    assert ("docker run", 11, 11) in spans
    assert [(a, b) for kind, a, b in spans if kind == "prose engine"] == [(9, 9)]


@pytest.mark.parametrize("paste", [
    "ollama seems to only use 1 nvidia gpu on my machine\n",  # the user's words alone
    # A deep `docker inspect` after a sentence naming the engine: the inspect is refused, the sentence alone is not
    # an output (tests/test_security_bounds.py has the paste without the sentence).
    "I ran docker inspect on the ollama container and got this:\n$ docker inspect ollama\n[{\"Id\": \"abc\", "
    "\"Config\": {\"Env\": " + "[" * 100_000 + "]" * 100_000 + "}}]\n",
])
def test_the_users_words_alone_are_not_recognisable(tmp_path: Path, paste: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "words.txt"
    path.write_text(paste)
    assert main(["audit", "--from", str(path)]) == 2
    assert "nothing recognisable" in capsys.readouterr().err


def test_images_and_words_name_the_engines() -> None:
    assert ggml_image_engine("ollama/ollama:latest") == "ollama"
    assert ggml_image_engine("docker.io/ollama/ollama:rocm") == "ollama"
    assert ggml_image_engine("ghcr.io/ggerganov/llama.cpp:server-cuda") == "llamacpp"  # corpus 282
    assert ggml_image_engine("ghcr.io/ggml-org/llama.cpp:server") == "llamacpp"
    assert ggml_image_engine("vllm/vllm-openai:latest") == ""
    assert ggml_image_engine("ghcr.io/open-webui/open-webui:main") == ""  # corpus 84: a UI, no engine named
    assert ggml_image_engine("myorg/ollama-proxy:1") == ""
    assert stated_engines("ollama seems to only use 1 nvidia gpu") == ("ollama",)
    assert stated_engines("I moved from ollama to vLLM last week") == ("ollama", "vllm")
    assert stated_engines("the llama.cpp build and my PyTorch script") == ("llamacpp", "torch")
    assert stated_engines("OLLAMA_HOST=0.0.0.0 is set") == ()  # a variable name, not the engine
    assert stated_engines("pulled ollama/ollama:latest and vllm.entrypoints") == ()  # an image and a module


# Modelled: the lines of a real ollama thread (ollama#5024) with one more source that shows a PyTorch engine.
OLLAMA_WORDS = ("I have NVIDA H100 multiple of them with NVLINK but ollama seems to only use 1 nvidia gpu. I tried "
                "various deployments but here is current one:\n")
# Its nvidia-smi table's first GPU (the user's words alone are no pasted output).
H100_TABLE = """
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA H100 PCIe               Off | 00000000:17:00.0 Off |                    0 |
| N/A   35C    P0              49W / 310W |      7MiB / 81559MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
"""


def test_the_modelled_paste_alone_is_ollama() -> None:
    """The counter-examples below change one thing: without it, the paste shows ollama alone."""
    with_table = OLLAMA_WORDS + H100_TABLE
    assert _words_read(with_table) == [OLLAMA_WORDS.strip()]


@pytest.mark.parametrize("more", [
    "\nvllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n",  # a vLLM command line
    "\nThe same GPUs also run our PyTorch training jobs at night.\n",  # the user's words naming PyTorch
    "\ndocker run --gpus all -p 8000:8000 vllm/vllm-openai:latest --model Qwen/Qwen2.5-7B-Instruct\n",  # a container
])
def test_a_pytorch_engine_anywhere_keeps_the_checks_open(tmp_path: Path, more: str) -> None:
    """Counter-example (modelled): ollama in the user's words, and a PyTorch engine in another line."""
    results = paste_checks(tmp_path, OLLAMA_WORDS + more + H100_TABLE, *ENGINE_CHECKS)
    assert results["RT-TORCH-ARCH"].status != "not-applicable"
    assert paste_checks(tmp_path, OLLAMA_WORDS + H100_TABLE, *ENGINE_CHECKS)["RT-TORCH-ARCH"].status == "not-applicable"


def test_a_compose_log_prefix_is_not_the_users_words() -> None:
    """Counter-example (real, corpus 282, https://github.com/ggml-org/llama.cpp/issues/1866): a container's log
    lines behind `llama-cpp    |` under a kubelet's prefix name the service, and stay with no reader."""
    body = next(Path(__file__).parent.joinpath("data", "captures").glob("282-*.txt")).read_text()
    body = body.split("# ----- end of header; everything below this line is the capture, verbatim -----\n", 1)[1]
    prefixed = "\n".join("2023-10-19T14:25:03.801614288+08:00 stderr F " + line for line in body.split("\n"))
    assert "prose engine" not in {kind for kind, _, _ in recognise(prefixed, "282").recognised}


# --- 2. MEM-MIG on GPUs without MIG -----------------------------------------------------------------------------

@pytest.mark.parametrize(("capture", "model"), [
    # Real: https://github.com/ollama/ollama/issues/6926, two NVIDIA A10, GPU 0's MIG M. N/A, GPU 1's cell cut.
    ("491", "NVIDIA A10"),
    # Real: https://github.com/NVIDIA/TensorRT-LLM/issues/1487 (capture 277), two A10G, the table cut in GPU 1.
    ("277", "NVIDIA A10G"),
    # Real: https://github.com/NVIDIA/k8s-device-plugin/issues/243 (capture 299), a V100S whose MIG M. reads N/A.
    ("299", "V100S"),
])
def test_mig_is_not_applicable_on_the_gpus_shown(capture: str, model: str) -> None:
    result = capture_checks(capture, "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable"
    assert model in result.message


def test_a_cut_table_says_so_in_the_message() -> None:
    message = capture_checks("491", "MEM-MIG")["MEM-MIG"].message
    assert "GPUs after it are not in this source" in message


# Modelled from corpus 491's rows: an A100 whose MIG cell is cut beside an A10 whose cell reads N/A.
A10_AND_CUT_A100 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A10          Off  | 00000000:04:00.0 Off |                    0 |
|  0%   48C    P0    58W / 150W |   2160MiB / 23028MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-PCIE-40GB Off| 00000000:44:00.0 Off |                    0 |
| N/A   29C    P0    32W / 250W |      2MiB / 40960MiB |      0%      Default |
"""


def test_a_gpu_with_mig_whose_cell_is_cut_keeps_it_open(tmp_path: Path) -> None:
    """Counter-example (modelled): the A100 may have MIG on; its cell is not shown."""
    assert paste_checks(tmp_path, A10_AND_CUT_A100, "MEM-MIG")["MEM-MIG"].status == "unknown"


def test_mig_parts_of_closed_architectures() -> None:
    # NVIDIA's MIG user guide lists no Ampere part outside GA100 (A100, A30) and no Ada part.
    assert has_mig("NVIDIA RTX A4000") is False and has_mig("NVIDIA RTX 4000 Ada Generation") is False
    assert has_mig("NVIDIA A30") is None  # a MIG part the table has no row for: its own MIG cell decides
    assert has_mig("NVIDIA RTX PRO 4500 Blackwell") is None  # Blackwell's list still grows


# --- 3. a power cap at the board's default ----------------------------------------------------------------------

@pytest.mark.parametrize(("capture", "cap"), [
    # Real: https://github.com/ollama/ollama/issues/11599, one `Tesla V100-PCIE...` with 32510 MiB at 250 W.
    ("492", "GPU 0 250 W"),
    # Real: https://github.com/NVIDIA/nccl/issues/199, four `Tesla V100-PCIE...` with 32502 MiB at 250 W.
    ("347", "GPU 2 250 W"),
    # Real: https://github.com/ollama/ollama/issues/6926, two NVIDIA A10 at 150 W.
    ("491", "GPU 1 150 W"),
])
def test_a_cap_at_the_boards_default_is_ok(capture: str, cap: str) -> None:
    result = capture_checks(capture, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "ok"
    assert cap in result.message


def test_the_v100_rows_resolve_only_the_pcie_boards() -> None:
    assert lookup("Tesla V100-PCIE-16GB").spec.power_w == 250
    cut = resolve_cut_name("Tesla V100-PCIE...", 16160, None)
    assert cut is not None and cut.spec is not None and cut.spec.name == "Tesla V100 PCIe 16GB"
    # Real: https://github.com/Wan-Video/Wan2.1/issues/5, `Tesla V100-SXM2...` with 32768 MiB at 300 W: the
    # NVLink module is another part, which no V100 PCIe row may claim (its own rows are SXM2's).
    sxm2 = resolve_cut_name("Tesla V100-SXM2...", 32768, 300)
    assert sxm2 is not None and sxm2.spec is not None and sxm2.spec.name == "Tesla V100 SXM2 32GB"
    assert not any("PCIe" in name for name in sxm2.candidates)


# Modelled from corpus 492's table: the same V100 PCIe capped at 200 W.
V100_CAPPED = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.223.02   Driver Version: 470.223.02   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla V100-PCIE...  On   | 00000000:00:0D.0 Off |                    0 |
| N/A   38C    P0    36W / 200W |   5038MiB / 32510MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_a_cap_below_the_default_is_still_an_issue(tmp_path: Path) -> None:
    """Counter-example (modelled): 200 W on a 250 W board is below the default."""
    assert paste_checks(tmp_path, V100_CAPPED, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status == "issue"
