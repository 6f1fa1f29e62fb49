"""The audit headline shows the ceiling of the served model on the detected GPUs (issue 4)."""

from __future__ import annotations

import json

from nvidia_support import hgx, host_for, vllm_files
from stackaudit.ceiling import compute
from stackaudit.cli.audit import headline_ceiling
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.gputable import lookup
from stackaudit.report.render import render

# The audit as `stackaudit audit` runs it: with the headline ceiling (the engine imports no product).
AUDIT = AuditOptions(ceiling=headline_ceiling())
# Qwen3-32B's published config.json values (huggingface.co/Qwen/Qwen3-32B).
QWEN3_32B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120,
             "intermediate_size": 25600, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128,
             "num_hidden_layers": 64, "vocab_size": 151936, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
             "max_position_embeddings": 40960}
CACHE = "/root/.cache/huggingface/hub/models--Qwen--Qwen3-32B/snapshots/9216db5781bf21249d130ec9da846c4624c16137"


def _host(with_config: bool = True, model: str = "Qwen/Qwen3-32B"):  # type: ignore[no-untyped-def]
    files, procs = vllm_files("--tensor-parallel-size 8", workers=0)
    procs = {pid: argv.replace("Qwen/Qwen3-32B", model) for pid, argv in procs.items()}
    files["/proc/4101/environ"] = "HOME=/root\0PATH=/opt/vllm/bin:/usr/bin\0"
    if with_config:
        files[f"{CACHE}/config.json"] = json.dumps(QWEN3_32B)
    return host_for(hgx(count=8), extra_files=files, processes=procs)


def test_headline_ceiling_matches_the_ceiling_api() -> None:
    report = run_audit(_host(), AUDIT)
    line = report.host["ceiling"]
    assert line and "Qwen/Qwen3-32B" in line and "8× H100" in line and "TP 8" in line
    expected = compute(QWEN3_32B, lookup("NVIDIA H100 80GB HBM3").spec, gpus=8, tp=8, concurrencies=[1])
    assert f"~{expected.levels[0].ceiling('overhead').tokens_per_s:.0f} tok/s" in line
    text = render(report, "text")
    assert "Ceiling: ~" in text
    assert report.host["gpus"]["names"] == ["NVIDIA H100 80GB HBM3"]


def test_no_config_on_the_host_falls_back_to_the_catalogue_and_an_unknown_model_to_no_line() -> None:
    # Issue 29: Qwen/Qwen3-32B is in stackaudit's catalogue (its published config), so the ceiling is the same.
    report = run_audit(_host(with_config=False), AUDIT)
    assert report.host["ceiling_tok_s"] == run_audit(_host(), AUDIT).host["ceiling_tok_s"]
    report = run_audit(_host(with_config=False, model="someone/Private-32B"), AUDIT)
    assert report.host["ceiling"] is None and "catalogue" in report.host["ceiling_missing"]
    assert "Ceiling:" not in render(report, "text")
