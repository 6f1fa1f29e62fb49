"""A quantised format's kernel against the GPU's compute capability (issue 28, blind DS and DX; RT-KERNEL-ARCH).

- The program that checks a format's kernel refusing the GPU's architecture in its own words is a RT-KERNEL-ARCH issue
  (facts/symptoms.py QUANT_ARCH_REFUSED): Triton's `type fp8e4nv not supported in this architecture` (corpus 2789),
  TensorRT's `Networks with FP8 precision require hardware with FP8 support` (corpus 2791), TensorRT-LLM's `FP8 FMHA
  cannot be enabled on Pre-Hopper Arch` (corpus 2792), vLLM's `The quantization method X is not supported for the
  current GPU. Minimum capability: N` and its compressed-tensors scheme's `Min capability`. The issue covers the GPUs the
  check's own facts judged (Symptom.on_judged: 2789, 2 GPUs shown).
- A collect_env under vLLM's bug form (`<summary>The output of `python collect_env.py`</summary>`) is vLLM's, cut before
  its vLLM section or not (facts/collect_env.py VLLM_FORM): a GPU below vLLM's floor is an issue (corpus 2795).
- TensorRT's `[MemUsageChange] Init CUDA: ... now: CPU N, GPU M (MiB)` is its CUDA context at work
  (facts/cuda_ran.py TRT_INIT_CUDA): DRV-CUDA-COMPAT ok (corpus 2791, 2720).
- A list's engine release as users write it (facts/python_env.py STATED_VERSION): TensorRT-LLM by its short name
  (`TRTLLM v0.20.0rc0`, corpus 2837), a remark after the version (`vLLM: 0.27.1 (V1 engine)`, corpus 2850), a stray
  closing quote (`0.12.0.dev2024070200"`, corpus 2792); and the user's sentence naming the release they run
  (STATED_RELEASE_WORDS: `I am using 0.8.3 version of vllm`, corpus 2797). RT-KERNEL-ARCH reads that release for a whole
  vLLM command, as RT-CUDA-GRAPHS does, and its ok covers the GPUs the source shows (2850: 1 GPU; 1643: 8 GPUs).

Real pastes are corpus captures (their public threads in their headers); the rest is modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.facts.python_env import STATED_RELEASE_WORDS, python_env_from_stated_versions
from stackaudit.facts.symptoms import find_symptoms
from stackaudit.importers.evidence import is_evidence

KERNEL, COMPAT = "RT-KERNEL-ARCH", "DRV-CUDA-COMPAT"


@pytest.mark.parametrize(("prefix", "words"), [
    ("2789", "type fp8e4nv not supported in this architecture"),
    ("2791", "Networks with FP8 precision require hardware with FP8 support"),
    ("2792", "Fp8 FMHA cannot be enabled on pre-Hopper"),
])
def test_a_quantised_format_refused_for_the_architecture_is_an_issue(prefix: str, words: str) -> None:
    result = capture_checks(prefix, KERNEL)[KERNEL]
    assert result.status == "issue", (prefix, result.message)
    assert any(words in line for line in result.evidence), prefix


def test_the_refusal_covers_the_gpus_the_engine_runs_on() -> None:
    # Corpus 2789: SGLang's whole command at TP 2 with check_env's two A10s; the refusal names no GPU.
    result = capture_checks("2789", KERNEL)[KERNEL]
    assert result.coverage is not None and result.coverage.text() == "2 of 2 GPUs shown"


# Modelled on the refusals' real wordings (vllm-project/vllm#1488, #4202, #14154, #14040, #17581; NVIDIA/Model-Optimizer
# #70; NVIDIA/TensorRT-LLM#1864): another format, another GPU, a worker's log prefix, a tuple's repr, a cut line.
REFUSALS = [
    "ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. "
    "Current capability: 70.",
    "ERROR 03-03 10:00:00 [engine.py:400] ValueError: The quantization method bitsandbytes is not supported for the "
    "current GPU. Minimum capability: 70. Current capability: 52.",
    "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', "
    "'Current capability: 75.')",
    "RuntimeError: Quantization scheme is not supported for the current GPU. Min capability: 89. Current capability: 86.",
    "(VllmWorker rank=1 pid=4410) ERROR 05-02 10:22:18 [multiproc_executor.py:470] ValueError(\"type fp8e4nv not "
    "supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")",
    "[09/11/2024-21:49:27] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Networks with "
    "FP8 Q/DQ layers require hardware with FP8 support.)",
    "[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: FP8 FMHA cannot "
    "be enabled on Pre-Hopper Arch. (/src/tensorrt_llm/cpp/tensorrt_llm/plugins/gptAttentionCommon/gptAttentionCommon.cpp:",
    "type fp8e4nv not supported in this architecture. The suppor",
]


@pytest.mark.parametrize("line", REFUSALS)
def test_the_refusal_in_other_words(line: str) -> None:
    assert [h.symptom.name for h in find_symptoms([line])] == ["quant-arch-refused"], line
    assert is_evidence(line)


# Counter-examples (modelled): the type list without the refusal, a format the GPU runs, a capability met, advice.
NOT_REFUSALS = [
    "The supported fp8 dtypes are ('fp8e4nv', 'fp8e5')",
    "INFO 05-02 10:22:18 [fp8.py:60] Using fp8e4nv for the FP8 MoE kernel",
    "The quantization method awq is supported for the current GPU.",
    "FP8 FMHA can be enabled on Hopper and Ada",
    "Networks with FP8 precision run on H100 with FP8 support",
]


@pytest.mark.parametrize("line", NOT_REFUSALS)
def test_no_refusal_proves_no_kernel_arch_issue(line: str) -> None:
    assert not [h for h in find_symptoms([line]) if h.symptom.check == KERNEL], line


def test_a_refusal_alone_is_a_kernel_arch_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, REFUSALS[1] + "\n", KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert result.fix is not None and "format this GPU's kernels run" in result.fix.runtime


def test_a_report_under_vllms_form_is_vllms() -> None:
    # Corpus 2795: vLLM's collect_env cut before its vLLM section, a GTX TITAN X (Maxwell) beside an RTX 4060 Ti.
    result = capture_checks("2795", KERNEL)[KERNEL]
    assert result.status == "issue", result.message
    assert "GTX TITAN X" in result.message and "vLLM's floor" in result.message


# Modelled: torch's collect_env of a Maxwell GPU, under vLLM's form (as rendered and as its 2024 form wrote it), under
# PyTorch's form, and alone.
REPORT = """\
Collecting environment information...
PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
Is CUDA available: True
GPU models and configuration: GPU 0: NVIDIA GeForce GTX 980 Ti
Nvidia driver version: 550.120
"""


@pytest.mark.parametrize(("above", "vllm"), [
    ("### Your current environment\n\n<details>\n<summary>The output of <code>python collect_env.py</code></summary>\n\n"
     "```text\n", True),
    ("### Your current environment\n\n```text\nThe output of `python collect_env.py`\n", True),
    ("### Versions\n\nPlease run `python collect_env.py` and paste the output below.\n\n```\n", False),
    ("", False),
])
def test_only_vllms_form_names_vllm(tmp_path: Path, above: str, vllm: bool) -> None:
    result = paste_checks(tmp_path, above + REPORT + ("```\n" if "```" in above else ""), KERNEL)[KERNEL]
    assert (result.status == "issue") is vllm, (above, result.message)


def test_the_form_line_is_read_into_the_report_only_from_vllms_words() -> None:
    assert parse_collect_env("<summary>The output of `python collect_env.py`</summary>\n" + REPORT).vllm_form
    assert not parse_collect_env(REPORT).vllm_form


@pytest.mark.parametrize("prefix", ["2791", "2720"])
def test_tensorrts_memory_ledger_shows_cuda_at_work(prefix: str) -> None:
    result = capture_checks(prefix, COMPAT)[COMPAT]
    assert result.status == "ok", (prefix, result.message)
    assert "MemUsageChange" in result.message


@pytest.mark.parametrize(("line", "package", "version"), [
    ("-  TRTLLM v0.20.0rc0", "tensorrt-llm", "0.20.0rc0"),  # corpus 2837
    ("- TRT-LLM: 0.16.0", "tensorrt-llm", "0.16.0"),  # modelled
    ("TensorRT-LLM 0.10.0", "tensorrt-llm", "0.10.0"),  # modelled
    ("- vLLM: 0.27.1 (V1 engine)", "vllm", "0.27.1"),  # corpus 2850
    ('TensorRT-LLM version: 0.12.0.dev2024070200"', "tensorrt-llm", "0.12.0.dev2024070200"),  # corpus 2792
    ("I am using 0.8.3 version of vllm,driver 570.124.06, ", "vllm", "0.8.3"),  # corpus 2797
    ("We're running vLLM 0.6.3 on two L40S.", "vllm", "0.6.3"),  # modelled
])
def test_a_stated_release(line: str, package: str, version: str) -> None:
    env = python_env_from_stated_versions(line + "\n").environments[0]
    assert env.packages[package] == version, line
    assert is_evidence(line)


@pytest.mark.parametrize("line", [
    "It works with 0.8.3 but not with vllm 0.9.0.",
    "After I upgraded to vLLM 0.9.0 the server hangs.",
    "the 0.8.3 version of vllm was faster",
])
def test_a_sentence_that_names_a_release_another_way_states_none(line: str) -> None:
    assert STATED_RELEASE_WORDS.search(line) is None, line


@pytest.mark.parametrize(("prefix", "coverage"), [("2850", "1 of 1 GPU shown"), ("1643", "8 of 8 GPUs shown")])
def test_a_whole_vllm_command_with_its_release_is_ok_over_the_gpus_shown(prefix: str, coverage: str) -> None:
    result = capture_checks(prefix, KERNEL)[KERNEL]
    assert result.status == "ok", (prefix, result.message)
    assert result.coverage is not None and result.coverage.text() == coverage


@pytest.mark.parametrize("prefix", ["2792", "2797", "2837"])
def test_the_stated_release_settles_the_runtime(prefix: str) -> None:
    result = capture_checks(prefix, COMPAT)[COMPAT]
    assert result.status == "ok", (prefix, result.message)
