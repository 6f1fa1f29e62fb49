"""`bench` measured vs ceiling per concurrency (issue 4's last point, issue 5).

Against the calibrated streaming server (tests/bench_support): Llama-3-8B (its published
config.json values, written here) on an RTX 4090 has a decode ceiling of about 65 tok/s per
stream; the server streams a token every 20 ms (50 tok/s), so the efficiency is about 77 %.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench_support.servers import calibrated_server
from stackaudit.bench import ceiling as bench_ceiling
from stackaudit.cli.main import main

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = pytest.mark.serial

# meta-llama/Meta-Llama-3-8B config.json (published values).
LLAMA3_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "hidden_act": "silu",
}
FAST = ["--input-tokens", "8", "--output-tokens", "8", "--warmup", "0", "--no-self-check", "--quiet",
        "--no-history", "--requests", "4"]
GAP_MS = 20.0


@pytest.fixture
def llama_config(tmp_path: Path) -> str:
    path = tmp_path / "Meta-Llama-3-8B" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LLAMA3_8B), encoding="utf-8")
    return str(path)


def _no_facts() -> dict[str, Any]:
    """This host's audit facts, as on a machine with no engine and no GPU (deterministic tests)."""
    from stackaudit.engine.collect import Missing

    return {"serving_model": Missing("serving_model", "no serving engine with a model argument is running"),
            "nvidia": Missing("nvidia", "no NVIDIA GPU on the PCI bus")}


@pytest.fixture(autouse=True)
def no_host_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_ceiling, "collect_facts", _no_facts)


def test_json_levels_carry_ceiling_and_efficiency(llama_config: str, capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.ceiling import compute, load_model
    from stackaudit.gputable import lookup

    # 32 tokens, not 8: the server keeps absolute deadlines, so a first token late under load
    # shortens the later gaps; over 31 gaps a 7 ms delay moves TPOT 1 %, over 7 gaps 5 %.
    longer = [*FAST]
    longer[longer.index("--output-tokens") + 1] = "32"
    with calibrated_server("--ttft-ms", "5", "--gap-ms", str(GAP_MS), "--tokenize") as url:
        rc = main(["bench", "--url", url, "-c", "1,4", *longer, "-f", "json",
                   "--ceiling-model", llama_config, "--ceiling-gpu", "RTX 4090"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    report = json.loads(captured.out)
    setup = report["ceiling"]
    assert setup["computed"] is True and setup["gpu"] == "RTX 4090"
    assert (setup["gpus"], setup["tp"]) == (1, 1)
    assert setup["context"] == 8 and "the prompt, 8 tokens" in setup["context_source"]
    assert setup["sources"]["model"] == "--ceiling-model" and setup["sources"]["gpu"] == "--ceiling-gpu"

    _, arch = load_model(llama_config)
    truth = compute(arch, lookup("RTX 4090").spec, gpus=1, tp=1, context=8, concurrencies=[1, 4])
    assert [level["concurrency"] for level in report["levels"]] == [1, 4]
    for level, ladder in zip(report["levels"], truth.levels, strict=True):
        # The existing keys are all still there.
        for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "output_tokens_per_s",
                    "output_tokens_per_s_per_stream", "requests", "errors", "valid"):
            assert key in level
        block = level["ceiling"]
        assert set(block) >= {"tokens_per_s_per_stream", "bandwidth_tokens_per_s", "binding", "efficiency"}
        ceiling = ladder.ceiling("overhead").tokens_per_s
        assert block["tokens_per_s_per_stream"] == pytest.approx(ceiling, rel=1e-9)
        assert block["bandwidth_tokens_per_s"] == pytest.approx(ladder.ceiling("bandwidth").tokens_per_s, rel=1e-9)
        assert block["binding"] == ladder.binding == "bandwidth"
        measured = level["output_tokens_per_s_per_stream"]
        assert block["efficiency"] == pytest.approx(measured / ceiling, rel=1e-9)
        assert block["bandwidth_efficiency"] == pytest.approx(measured / block["bandwidth_tokens_per_s"], rel=1e-9)
        # The server's truth: one token every 20 ms = 50 tok/s per stream, against ~65.
        assert measured == pytest.approx(1000.0 / GAP_MS, rel=0.05)
        assert 0.6 < block["efficiency"] < 0.95


def test_text_and_markdown_show_the_line(llama_config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "runs.sqlite3")
    fast = [f for f in FAST if f != "--no-history"]
    with calibrated_server("--ttft-ms", "5", "--gap-ms", str(GAP_MS), "--tokenize") as url:
        rc = main(["bench", "--url", url, "-c", "1", *fast, "--db", db,
                   "--ceiling-model", llama_config, "--ceiling-gpu", "rtx 4090", "--ceiling-context", "4096"])
        text = capsys.readouterr().out
        assert rc == 0
        rc = main(["bench", "--url", url, "-c", "1", *FAST, "-f", "markdown",
                   "--ceiling-model", llama_config, "--ceiling-gpu", "RTX 4090"])
        markdown = capsys.readouterr().out
        assert rc == 0
    line = re.search(r"measured ([\d.]+) tok/s per stream = (\d+) % of the (\d+) tok/s ceiling \(binding: bandwidth\)", text)
    assert line, text
    measured, percent, ceiling = float(line.group(1)), int(line.group(2)), int(line.group(3))
    assert abs(percent - 100 * measured / ceiling) <= 1.5
    assert "% of bandwidth alone" in text.replace(" %", "%")
    assert "ceiling: Meta-Llama-3-8B on 1× RTX 4090, TP 1" in text and "context 4096 (--ceiling-context)" in text
    assert re.search(r"- measured [\d.]+ tok/s per stream = \d+ % of the \d+ tok/s ceiling", markdown)
    # Stored in history with the levels, and shown by `bench history`.
    assert main(["bench", "history", "--db", db]) == 0
    assert "% of ceiling" in capsys.readouterr().out.replace(" %", "%")
    assert main(["bench", "history", "--db", db, "-f", "json"]) == 0
    from stackaudit.bench.history import History

    with History(db) as store:
        stored = store.get("latest").result
    assert stored["levels"][0]["ceiling"]["efficiency"] > 0 and stored["ceiling"]["context"] == 4096


def test_without_flags_and_without_facts_the_ceiling_is_null_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    with calibrated_server("--ttft-ms", "2", "--gap-ms", "1") as url:
        rc = main(["bench", "--url", url, "-c", "1", *FAST, "-f", "json"])
        assert rc == 0
        report = json.loads(capsys.readouterr().out)
        assert main(["bench", "--url", url, "-c", "1", *FAST]) == 0
        text = capsys.readouterr().out
    assert report["levels"][0]["ceiling"] is None
    assert report["ceiling"]["computed"] is False
    note = report["ceiling"]["note"]
    assert note.startswith("ceiling: not computed (") and "serving_model: no serving engine" in note
    assert "give --ceiling-model and --ceiling-gpu" in note
    assert note in text


def test_ceiling_derived_from_the_audit_facts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A local server, no flags: model, TP and GPU from the serving_model and nvidia facts."""
    from stackaudit.facts.nvidia import GpuInfo, NvidiaGpus
    from stackaudit.facts.serving_model import ServingModel

    served = ServingModel("vllm", "meta-llama/Meta-Llama-3-8B", 2, dict(LLAMA3_8B), "/models/config.json",
                          quantization="fp8", kv_cache_dtype="fp8")
    gpus = NvidiaGpus(gpus=(GpuInfo(0, name="NVIDIA H100 80GB HBM3"), GpuInfo(1, name="NVIDIA H100 80GB HBM3")))
    monkeypatch.setattr(bench_ceiling, "collect_facts", lambda: {"serving_model": served, "nvidia": gpus})
    with calibrated_server("--ttft-ms", "2", "--gap-ms", "5") as url:
        rc = main(["bench", "--url", url, "-c", "1", *FAST, "-f", "json"])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    setup = report["ceiling"]
    assert setup["computed"] is True
    assert setup["model"] == "meta-llama/Meta-Llama-3-8B" and setup["gpu"].startswith("H100")
    assert (setup["gpus"], setup["tp"], setup["weights"], setup["kv_dtype"]) == (2, 2, "fp8", "fp8")
    assert setup["sources"]["gpu"] == "audit fact nvidia" and setup["sources"]["tp"] == "audit fact serving_model"
    assert report["levels"][0]["ceiling"]["tokens_per_s_per_stream"] > 0


def test_remote_server_is_not_read_from_this_host() -> None:
    plan = bench_ceiling.prepare(bench_ceiling.CeilingFlags())

    def fail() -> dict[str, Any]:
        raise AssertionError("facts must not be collected for a remote server")

    setup, note = bench_ceiling.resolve(plan, "http://192.0.2.10:8000", 8, 8, facts_loader=fail)
    assert setup is None and "not on this host" in note and "give --ceiling-model and --ceiling-gpu" in note


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--ceiling-gpu", "RTX 4099"], "--ceiling-gpu: unknown GPU 'RTX 4099'; did you mean"),
        (["--ceiling-model", "/nonexistent/config.json"], "--ceiling-model: /nonexistent/config.json"),
        (["--ceiling-model", "MODEL", "--ceiling-gpu", "RTX 4090", "--ceiling-tp", "3", "--ceiling-gpus", "3"],
         "ceiling: --ceiling-tp 3 does not divide"),
        (["--ceiling-weights", "int3-magic"], "--ceiling-weights:"),
        (["--ceiling-tp", "0"], "--ceiling-tp must be at least 1"),
    ],
)
def test_bad_flags_exit_2_before_any_request(
    flags: list[str], message: str, llama_config: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import stackaudit.bench.runner as runner

    def no_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("run_bench was called: the flags were not checked first")

    monkeypatch.setattr(runner, "run_bench", no_run)
    times = tmp_path / "times.log"
    flags = [llama_config if f == "MODEL" else f for f in flags]
    with calibrated_server("--ttft-ms", "2", "--gap-ms", "1", "--log-times", str(times)) as url:
        rc = main(["bench", "--url", url, "-c", "1", *FAST, *flags])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert times.read_text(encoding="utf-8") == ""  # no completion was requested
