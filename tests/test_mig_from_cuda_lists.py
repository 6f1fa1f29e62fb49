"""MEM-MIG from GPU listings that are not nvidia-smi (checks/mem._mig_from_models, facts/applicability.SUBJECTS).

- A CUDA program's own device list (llama.cpp's `ggml_cuda_init`) naming a GPU of a model with MIG by its product
  alone shows MIG off on it: CUDA names a MIG instance after its slice (`... MIG 1g.10gb`). Corpus 1158.
- Models without MIG make the check not applicable through the engine's subject rule, over the GPUs shown, also
  where the listing may leave GPUs out (a CUDA list: CUDA_VISIBLE_DEVICES). Corpus 1190.
- mmengine's collect_env (`lmdeploy check_env`) cut before its `PyTorch:` line is still the report, so its GPU
  list reaches the `gpus` fact. Corpus 1187.
Real text is corpus captures (their headers name the public threads); text marked modelled is built from them.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.testing import run_checks


def test_corpus_1158_a_whole_a100_in_llama_cpp_device_list_is_mig_off() -> None:
    # ggml-org/llama.cpp#2641: `Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0`.
    result = capture_checks("1158", "MEM-MIG")["MEM-MIG"]
    assert result.status == "ok"
    assert "A100-SXM4-80GB" in result.message and "MIG 1g.10gb" in result.message


def test_modelled_a_mig_instance_in_the_device_list_is_not_mig_off() -> None:
    # Modelled on corpus 1158: the same list with CUDA's name for a MIG instance of the A100.
    text = body("1158").replace("NVIDIA A100-SXM4-80GB,", "NVIDIA A100-SXM4-80GB MIG 1g.10gb,")
    assert "MIG 1g.10gb," in text
    assert run_checks(pasted(text), ["MEM-MIG"])["MEM-MIG"].status != "ok"


def test_modelled_nvidia_smi_list_alone_does_not_show_mig_off() -> None:
    # Modelled: `nvidia-smi -L` names a MIG-enabled GPU by its product too (its instances, if any, below it).
    text = "$ nvidia-smi -L\nGPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
    assert run_checks(pasted(text), ["MEM-MIG"])["MEM-MIG"].status == "unknown"


def test_corpus_1190_models_without_mig_in_a_cuda_list_are_not_applicable_over_the_gpus_shown() -> None:
    # ggml-org/llama.cpp#10533: an RTX 3090 and three Tesla P40 in llama.cpp's device list.
    result = capture_checks("1190", "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable"
    assert result.coverage is not None and result.coverage.count == 4


def test_corpus_1187_check_env_cut_before_its_pytorch_line_is_read() -> None:
    # InternLM/lmdeploy#4053: sys.platform down to NVCC, `GPU 0,1,2,3,4,5,6,7: Tesla V100-SXM2-32GB`.
    report = fact(pasted(body("1187")), "collect_env")
    assert (report.tool, report.torch_version) == ("openmmlab", "")
    assert report.gpu_models == ("Tesla V100-SXM2-32GB",) * 8
    assert capture_checks("1187", "MEM-MIG")["MEM-MIG"].status == "not-applicable"
