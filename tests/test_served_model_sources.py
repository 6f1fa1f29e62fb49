"""Issue 29, the served model from what the source holds: the engine's argv, a container's command, a pasted
command line, a server log's configuration dump, `audit --model PATH|ID`, and the catalogue shipped with
stackaudit (data/models.toml), so that a model id resolves without a download."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ceiling_published import CONFIGS
from gap_pastes import H100_BUS, essay_paste, glm5_config, llama_paste, nvidia_smi_table
from stackaudit import models as catalogue
from stackaudit.ceiling.modelconfig import parse_arch
from stackaudit.cli.main import main


def _host(tmp_path: Path, capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json", *extra]) == 0
    return dict(json.loads(capsys.readouterr().out)["host"])


# -- the catalogue -----------------------------------------------------------------------------------------


def test_the_catalogue_holds_fifty_models_each_with_its_published_config() -> None:
    ids = catalogue.ids()
    assert len(ids) >= 50 and len(set(i.lower() for i in ids)) == len(ids)
    for model_id in ids:
        found = catalogue.lookup(model_id)
        assert found is not None and found.id == model_id
        assert found.source == f"https://huggingface.co/{model_id}/blob/main/config.json"
        arch = parse_arch(found.config, name=model_id)  # every entry is a config the ceiling can price
        assert arch.hidden > 0 and arch.layers > 0


def test_the_validation_reads_its_configs_from_the_catalogue() -> None:
    """One copy of each published number: the validation module (tests/ceiling_published.py) once held its own config literals."""
    from ceiling_published import MODEL_IDS

    assert set(MODEL_IDS) == set(CONFIGS)
    for name, model_id in MODEL_IDS.items():
        found = catalogue.lookup(model_id)
        assert found is not None and found.id == model_id and CONFIGS[name] == found.config, name


def test_lookup_by_id_case_and_reupload_and_format_suffix() -> None:
    assert catalogue.lookup("META-LLAMA/llama-3.1-8b-instruct").id == "meta-llama/Llama-3.1-8B-Instruct"  # type: ignore[union-attr]
    mirror = catalogue.lookup("RedHatAI/Qwen2.5-72B-Instruct")
    assert mirror is not None and mirror.id == "Qwen/Qwen2.5-72B-Instruct" and mirror.weights is None
    fp4 = catalogue.lookup("lukealonso/GLM-5-NVFP4")
    assert fp4 is not None and fp4.id == "zai-org/GLM-5" and fp4.weights == "nvfp4" and "from its name" in fp4.note
    fp8 = catalogue.lookup("deepseek-ai/DeepSeek-V3")
    assert fp8 is not None and fp8.config["quantization_config"]["quant_method"] == "fp8"
    assert catalogue.lookup("someone/NotAModel-7B") is None and catalogue.lookup("") is None


# -- where the model's name comes from -----------------------------------------------------------------------


def test_a_pasted_vllm_serve_line_and_one_h100_give_a_ceiling_without_flags(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = _host(tmp_path, capsys, llama_paste(tmp_path))
    assert "meta-llama/Llama-3.1-8B-Instruct on 1× H100" in host["ceiling"]
    # Llama-3.1-8B in BF16 reads ~16 GB per token: on 3.35 TB/s that is ~200 tok/s.
    assert 150 < host["ceiling_tok_s"] < 260
    assert "bf16" in host["ceiling_layout"]


def test_the_essays_pasted_sglang_command_resolves_a_quantised_reupload_by_its_base(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = _host(tmp_path, capsys, essay_paste(tmp_path))
    assert "lukealonso/GLM-5-NVFP4 on 8× RTX PRO 6000 Blackwell Server, TP 8" in host["ceiling"]
    assert 30 < host["ceiling_tok_s"] < 400
    layout = host["ceiling_layout"]
    assert "read as zai-org/GLM-5 with nvfp4 weights" in layout and "attention kept in bf16 (assumed" in layout


@pytest.mark.parametrize("log", [
    # vLLM v1 engine-config line (vllm/v1/engine/core.py), and SGLang's server_args dump (entrypoints/engine.py).
    "INFO 01-13 10:00:02 [core.py:69] Initializing a V1 LLM engine (v0.10.1) with config: "
    "model='Qwen/Qwen2.5-7B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-7B-Instruct', "
    "tensor_parallel_size=1, pipeline_parallel_size=1, enforce_eager=False\n",
    "[2026-01-13 10:00:02] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B-Instruct', "
    "tokenizer_path='Qwen/Qwen2.5-7B-Instruct', tp_size=1, disable_cuda_graph=False)\n",
])
def test_a_server_logs_configuration_dump_names_the_model(log: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "log.txt"
    paste.write_text(nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559) + "\n" + log, encoding="utf-8")
    host = _host(tmp_path, capsys, paste)
    assert "Qwen/Qwen2.5-7B-Instruct on 1× H100" in (host["ceiling"] or ""), host


def test_a_pasted_docker_run_names_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "docker.txt"
    paste.write_text(nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559) + "\n$ docker run --gpus all "
                     "--ipc=host -p 8000:8000 vllm/vllm-openai:v0.10.1 --model mistralai/Mistral-7B-Instruct-v0.3\n",
                     encoding="utf-8")
    host = _host(tmp_path, capsys, paste)
    assert "mistralai/Mistral-7B-Instruct-v0.3 on 1× H100" in (host["ceiling"] or ""), host


def test_a_model_neither_in_the_source_nor_the_catalogue_asks_for_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = llama_paste(tmp_path, command="$ vllm serve someone/Private-13B --max-model-len 8192\n")
    host = _host(tmp_path, capsys, paste)
    assert host["ceiling"] is None
    assert "someone/Private-13B" in host["ceiling_missing"] and "--model" in host["ceiling_missing"]


# -- audit --model -----------------------------------------------------------------------------------------


def test_model_flag_with_a_config_file_prices_it_at_the_engines_tp(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    host = _host(tmp_path, capsys, essay_paste(tmp_path), "--model", str(glm5_config(tmp_path)),
                 "--weights", "nvfp4,attention=nvfp4")
    assert "for GLM-5 on 8× RTX PRO 6000 Blackwell Server, TP 8" in host["ceiling"]
    bare = _host(tmp_path, capsys, essay_paste(tmp_path), "--model", str(glm5_config(tmp_path)), "--weights", "nvfp4")
    assert host["ceiling_tok_s"] > bare["ceiling_tok_s"]  # attention at 4 bits reads fewer bytes


def test_model_flag_with_a_catalogue_id_and_no_engine_assumes_every_gpu(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "smi.txt"
    paste.write_text(nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS * 1, 700, 81559), encoding="utf-8")
    host = _host(tmp_path, capsys, paste, "--model", "Qwen/Qwen2.5-7B-Instruct")
    assert "for Qwen/Qwen2.5-7B-Instruct on 1× H100" in host["ceiling"]
    assert "TP 1 assumed" in host["ceiling_layout"]


@pytest.mark.parametrize(("flags", "words"), [
    (["--model", "someone/NotAModel-7B"], "nor is it in stackaudit's catalogue"),
    (["--model", "zai-org/GLM-5", "--weights", "nvfp9"], "unknown format"),
])
def test_bad_model_or_weights_is_one_line_and_exit_2(flags: list[str], words: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    rc = main(["audit", "--from", str(llama_paste(tmp_path)), *flags])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
