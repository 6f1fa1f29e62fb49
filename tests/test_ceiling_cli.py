"""`stackaudit ceiling` through the real CLI entry point, as a user runs it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import jsonschema
import pytest

from ceiling_published import CONFIGS
from stackaudit import __version__
from stackaudit.cli.main import main

CEILING_NAMES = {"bandwidth", "bandwidth+allreduce", "overhead", "overhead-eager", "compute"}
SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "ceiling.schema.json").read_text(encoding="utf-8"))


def write_config(directory: Path, model: str) -> Path:
    path = directory / model / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(CONFIGS[model]), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU-less host: pynvml is present but its library is not (as on CI)."""
    fake = types.ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    def nvml_init() -> None:
        raise NVMLError("NVML Shared Library Not Found")

    fake.NVMLError = NVMLError  # type: ignore[attr-defined]
    fake.nvmlInit = nvml_init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pynvml", fake)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["ceiling", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "DeepSeek-V3")
    rc, out, err = run(capsys, "--model", str(config), "--gpu", "H200", "--gpus", "8", "--tp", "8",
                       "--concurrency", "1,10", "--measured", "1=30.29,10=20", "--format", "json")  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["schema"] == 2 and doc["kind"] == "stackaudit.ceiling"
    assert doc["tool"] == {"name": "stackaudit", "version": __version__}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["generated_at"])
    assert doc["source"]["model"] == "DeepSeek-V3/config.json" and doc["source"]["gpu"] == "--gpu H200"
    assert str(tmp_path) not in json.dumps(doc["source"]) + doc["model"]["source"]  # file names, never local paths
    jsonschema.validate(doc, SCHEMA)
    assert doc["active_params"] == pytest.approx(36.62e9, rel=0.01)
    assert doc["embeddings_counted"] is False and doc["lm_head_counted"] is True
    assert [level["concurrency"] for level in doc["levels"]] == [1, 10]
    for level in doc["levels"]:
        assert level["bytes_per_token_per_gpu"] > 0
        names = {c["name"] for c in level["ceilings"]}
        assert names == CEILING_NAMES
        for ceiling in level["ceilings"]:
            assert set(ceiling) >= {"name", "tokens_per_s", "cause"}
            assert ceiling["tokens_per_s"] > 0 and ceiling["cause"]
            assert ceiling["aggregate_tokens_per_s"] == pytest.approx(
                ceiling["tokens_per_s"] * level["concurrency"]
            )
        assert level["binding"] in {"bandwidth", "allreduce", "overhead", "compute"}
        assert level["aggregate_tokens_per_s"] == pytest.approx(level["tokens_per_s"] * level["concurrency"])
        assert level["measured"]["percent_of"]["bandwidth"] > 0
    first = doc["levels"][0]
    bandwidth = next(c for c in first["ceilings"] if c["name"] == "bandwidth")["tokens_per_s"]
    assert first["measured"]["percent_of"]["bandwidth"] == pytest.approx(100 * 30.29 / bandwidth)
    assert doc["hardware"]["gpu"] == "H200 SXM" and "ambiguous" in doc["hardware"]["gpu_note"]


def test_text_output_explains_the_ladder_and_the_measured_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "GLM-5")
    rc, out, _ = run(capsys, "--model", str(config), "--gpu", "RTX PRO 6000", "--gpus", "8", "--tp", "8",
                     "--weights", "nvfp4,attention=bf16", "--context", "0", "--measured", "51.6")  # fmt: skip
    assert rc == 0
    assert "embeddings not counted" in out and "lm_head counted" in out
    assert "assumed RTX PRO 6000 Blackwell Workstation" in out
    assert "not supported on more than two PCIe-only GPUs" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("measured 51.6 tok/s"))
    assert "of bandwidth" in line and "of bandwidth+allreduce" in line
    assert "what would move it most:" in out
    assert "binding:" in out


def test_single_measured_value_applies_to_the_lowest_concurrency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "Llama-3-8B")
    rc, out, _ = run(capsys, "--model", str(config), "--gpu", "RTX 4090", "--concurrency", "1,8",
                     "--measured", "100", "--format", "json")  # fmt: skip
    assert rc == 0
    levels = json.loads(out)["levels"]
    assert levels[0]["measured"]["tokens_per_s"] == 100
    assert "measured" not in levels[1]


def test_markdown_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "Qwen3-30B-A3B")
    target = tmp_path / "ceiling.md"
    rc, out, _ = run(capsys, "--model", str(config), "--gpu", "4090", "--weights", "q4_0",
                     "--format", "markdown", "--output", str(target))  # fmt: skip
    assert rc == 0 and out == ""
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# stackaudit ceiling: decode throughput")
    assert "| bandwidth |" in text
    # The final figure and its binding term, in the table and in a sentence.
    final = [line for line in text.splitlines() if line.startswith("| ceiling |")][-1]  # the first is the header
    assert "binding:" in final
    figure = re.search(r"^binding: .*; ceiling ([\d,.]+) tok/s per stream", text, re.M)
    assert figure and figure.group(1) in final


def test_model_directory_and_hf_cache_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = write_config(tmp_path, "Mixtral-8x7B").parent
    rc, out, _ = run(capsys, "--model", str(directory), "--gpu", "A100 80GB", "--format", "json")
    assert rc == 0 and json.loads(out)["model"]["name"] == "Mixtral-8x7B"

    home = tmp_path / "hf"
    snapshot = home / "hub" / "models--mistralai--Mixtral-8x7B-v0.1" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(CONFIGS["Mixtral-8x7B"]), encoding="utf-8")
    (home / "hub" / "models--mistralai--Mixtral-8x7B-v0.1" / "refs").mkdir()
    (home / "hub" / "models--mistralai--Mixtral-8x7B-v0.1" / "refs" / "main").write_text("a" * 40)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(home))
    rc, out, err = run(
        capsys, "--model", "mistralai/Mixtral-8x7B-v0.1", "--gpu", "A100 80GB", "--format", "json"
    )
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"]["name"] == "mistralai/Mixtral-8x7B-v0.1"
    assert doc["source"]["model"] == "mistralai/Mixtral-8x7B-v0.1" and str(home) not in out
    assert doc["active_params"] == pytest.approx(12.75e9, rel=0.01)

    rc, _, err = run(capsys, "--model", "nobody/not-cached", "--gpu", "A100")
    assert rc == 2 and "never downloads" in err and str(home) in err


def assert_one_line_error(rc: int, err: str, *needles: str) -> None:
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("stackaudit: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err


def test_config_without_needed_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mystery", "hidden_size": 4096}), encoding="utf-8")
    rc, _, err = run(capsys, "--model", str(path), "--gpu", "H100")
    assert_one_line_error(
        rc, err, "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"
    )


def test_unknown_gpu_suggests_close_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "Llama-3-8B")
    rc, _, err = run(capsys, "--model", str(config), "--gpu", "RTX 4909")
    assert_one_line_error(rc, err, "unknown GPU 'RTX 4909'", "RTX 4090")


def test_contradictory_tp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "Llama-2-70B")
    rc, _, err = run(capsys, "--model", str(config), "--gpu", "H100", "--gpus", "8", "--tp", "3")
    assert_one_line_error(rc, err, "--tp 3")
    rc, _, err = run(capsys, "--model", str(config), "--gpu", "H100", "--gpus", "6", "--tp", "6")
    assert_one_line_error(rc, err, "64 attention heads")


def test_unreadable_and_invalid_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "--model", str(tmp_path / "missing.json"), "--gpu", "H100")
    assert_one_line_error(rc, err, "no such file")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    rc, _, err = run(capsys, "--model", str(broken), "--gpu", "H100")
    assert_one_line_error(rc, err, "not a JSON config")
    if os.geteuid() != 0:  # root reads anything
        locked = write_config(tmp_path, "Llama-3-8B")
        locked.chmod(0)
        rc, _, err = run(capsys, "--model", str(locked), "--gpu", "H100")
        assert_one_line_error(rc, err, "cannot read")


def test_bad_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "Llama-3-8B")
    for args, needle in [
        (["--weights", "int5-zzz"], "unknown format"),
        (["--measured", "fast"], "--measured"),
        (["--concurrency", "1,x"], "--concurrency"),
        (["--kv-dtype", "fp7"], "--kv-dtype"),
        (["--interconnect", "smoke", "--gpus", "2"], "--interconnect"),
        (["--format", "yaml"], "--format"),
    ]:
        rc, _, err = run(capsys, "--model", str(config), "--gpu", "H100", *args)
        assert_one_line_error(rc, err, needle)


def test_no_gpu_and_no_flag_is_a_clear_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "Llama-3-8B")
    rc, _, err = run(capsys, "--model", str(config))
    assert_one_line_error(rc, err, "no NVIDIA GPU detected; pass --gpu NAME")


def test_live_detection_through_nvml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake NVML with 4 RTX PRO 6000 Server cards whose clocks say 1792 GB/s, PCIe with P2P."""
    fake = types.ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    def not_supported(*_args: object) -> None:
        raise NVMLError("Not Supported")

    attrs = {
        "NVMLError": NVMLError, "NVML_CLOCK_MEM": 2, "NVML_FEATURE_ENABLED": 1, "NVML_NVLINK_MAX_LINKS": 18,
        "NVML_P2P_CAPS_INDEX_READ": 0, "NVML_P2P_STATUS_OK": 0,
        "nvmlInit": lambda: None, "nvmlShutdown": lambda: None, "nvmlDeviceGetCount": lambda: 4,
        "nvmlDeviceGetHandleByIndex": lambda i: i,
        "nvmlDeviceGetName": lambda h: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "nvmlDeviceGetMemoryBusWidth": lambda h: 512, "nvmlDeviceGetMaxClockInfo": lambda h, kind: 14001,
        "nvmlDeviceGetNvLinkState": not_supported, "nvmlDeviceGetP2PStatus": lambda a, b, cap: 0,
    }  # fmt: skip
    for name, value in attrs.items():
        setattr(fake, name, value)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    config = write_config(tmp_path, "Llama-3-8B")
    rc, out, err = run(capsys, "--model", str(config), "--format", "json")
    assert rc == 0, err
    hardware = json.loads(out)["hardware"]
    assert hardware["gpu"] == "RTX PRO 6000 Blackwell Server"
    assert hardware["gpus"] == 4 and hardware["tp"] == 4
    assert hardware["interconnect"] == "pcie"
    assert hardware["memory_bandwidth_gbs"] == pytest.approx(
        1792.1, abs=0.1
    )  # NVML clocks beat the table's 1597
    assert "NVML" in hardware["bandwidth_source"]


def test_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    config = write_config(tmp_path, "Llama-3-8B")
    target = tmp_path / "ladder.png"
    rc, _, err = run(capsys, "--model", str(config), "--gpu", "L4", "--measured", "16", "--plot", str(target))
    assert rc == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_installed_script(tmp_path: Path) -> None:
    script = shutil.which("stackaudit") or str(Path(sys.executable).parent / "stackaudit")
    if not Path(script).exists():
        pytest.skip("the stackaudit script is not installed")
    config = write_config(tmp_path, "gpt-oss-120b")
    ok = subprocess.run([script, "ceiling", "--model", str(config), "--gpu", "H100", "--format", "json"],
                        capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["schema"] == 2
    bad = subprocess.run([script, "ceiling", "--model", str(config), "--gpu", "H1000"],
                         capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def _doc(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    rc, out, err = run(capsys, *args, "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    return doc  # type: ignore[no-any-return]


def test_no_context_means_context_0_and_context_adds_a_kv_loaded_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An MHA 7B on one RTX 4090: with a 4096-token KV cache the figure falls below what MLC and
    ExLlamaV2 measure at short prompts (191-198 tok/s), so the ceiling itself must not assume it."""
    config = str(write_config(tmp_path, "Llama-2-7B"))
    plain = _doc(capsys, "--model", config, "--gpu", "RTX 4090", "--weights", "q4f16_1")
    assert plain["kv_cache"]["context"] == 0 and plain["kv_cache"]["loaded_context"] is None
    level = plain["levels"][0]
    assert level["kv_loaded"] is None and level["bytes_breakdown"]["kv_cache"] == 0
    assert level["tokens_per_s"] > 198
    loaded = _doc(capsys, "--model", config, "--gpu", "RTX 4090", "--weights", "q4f16_1", "--context", "4096")
    kv_level = loaded["levels"][0]
    assert kv_level["tokens_per_s"] == pytest.approx(level["tokens_per_s"])  # the hardware line is unchanged
    assert kv_level["kv_loaded"]["name"] == "kv-loaded"
    assert kv_level["kv_loaded"]["tokens_per_s"] < 191 < kv_level["tokens_per_s"]
    assert loaded["kv_cache"]["loaded_context"] == 4096


def test_tp_without_gpus_is_one_group_of_that_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(write_config(tmp_path, "Llama-2-70B"))
    doc = _doc(capsys, "--model", config, "--gpu", "H100", "--tp", "2")
    assert doc["hardware"]["gpus"] == 2 and doc["hardware"]["tp"] == 2 and doc["hardware"]["replicas"] == 1
    doc = _doc(capsys, "--model", config, "--gpu", "H100", "--tp", "2", "--pp", "2")
    assert doc["hardware"]["gpus"] == 4 and doc["hardware"]["pp"] == 2


def test_two_gpus_at_tp1_that_cannot_hold_replicas_are_a_pipeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """llama.cpp splits layers across GPUs: Llama-2-70B Q4_0 (~39 GB) on 2 x RTX 3090 is no pair of replicas."""
    config = str(write_config(tmp_path, "Llama-2-70B"))
    doc = _doc(capsys, "--model", config, "--gpu", "RTX 3090", "--gpus", "2", "--tp", "1", "--weights", "q4_0")
    assert doc["hardware"]["pp"] == 2 and doc["hardware"]["replicas"] == 1
    assert not any("does not fit" in w for w in doc["warnings"])
    assert any("pipeline of 2 stages" in w for w in doc["warnings"])
    # Per stream a pipeline is no faster than one GPU holding everything: the stage times add up.
    single = _doc(capsys, "--model", config, "--gpu", "RTX 3090", "--gpus", "1", "--weights", "q4_0")
    two = {c["name"]: c["tokens_per_s"] for c in doc["levels"][0]["ceilings"]}
    one = {c["name"]: c["tokens_per_s"] for c in single["levels"][0]["ceilings"]}
    assert two["bandwidth"] == pytest.approx(one["bandwidth"])
    assert two["bandwidth+allreduce"] < one["bandwidth+allreduce"]  # + the stage hop
    assert any("does not fit" in w for w in single["warnings"])
    assert doc["weights_stored"]["bytes_on_fullest_gpu"] < 0.6 * single["weights_stored"]["bytes_on_fullest_gpu"]


def test_tp_beyond_one_nvlink_domain_crosses_the_network(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(write_config(tmp_path, "DeepSeek-V3"))
    inside = _doc(capsys, "--model", config, "--gpu", "H100", "--gpus", "8")
    across = _doc(capsys, "--model", config, "--gpu", "H100", "--gpus", "16")
    assert inside["hardware"]["interconnect"] == "nvlink" and not inside["warnings"]
    hardware = across["hardware"]
    assert hardware["interconnect"] == "network" and hardware["nvlink_domain"] == 8
    assert hardware["allreduce"]["implementation"] == "nccl" and hardware["allreduce"]["latency_us"] >= 19
    assert any("spans 2 NVLink domains" in w for w in across["warnings"])
    rc, out, _ = run(capsys, "--model", config, "--gpu", "H100", "--gpus", "16", "--measured", "30")
    assert rc == 0 and "spans 2 NVLink domains" in out


def test_plot_without_matplotlib_prints_the_report_and_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    config = str(write_config(tmp_path, "Llama-3-8B"))
    target = tmp_path / "ladder.png"
    rc, out, err = run(capsys, "--model", config, "--gpu", "L4", "--plot", str(target))
    assert rc == 0
    assert "binding:" in out and not target.exists()
    assert err.count("\n") == 1 and "matplotlib" in err and err.startswith("stackaudit: warning: ")


def test_list_gpus_shows_a_dash_for_unknown_values(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--list-gpus")
    assert rc == 0
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()[1:]}
    assert "gen0" not in out and " 0 " not in out
    assert "PCIe –" in rows["GB200"] and "domain 72" in rows["GB200"]
    assert "A10G" in rows
    a100 = rows["A100 SXM4 80GB"].split()
    assert "–" in a100  # no FP8 on Ampere


def test_weights_line_names_only_the_classes_the_model_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dense = str(write_config(tmp_path, "Llama-3-8B"))
    rc, out, _ = run(capsys, "--model", dense, "--gpu", "L4", "--weights", "fp8")
    assert rc == 0
    weights = next(line for line in out.splitlines() if line.startswith("weights:"))
    assert "attention" in weights and "dense MLP" in weights and "lm_head" in weights
    assert "experts" not in weights and "router" not in weights
    moe = str(write_config(tmp_path, "Qwen3-30B-A3B"))
    rc, out, _ = run(capsys, "--model", moe, "--gpu", "L4", "--weights", "fp8")
    weights = next(line for line in out.splitlines() if line.startswith("weights:"))
    assert "routed experts" in weights and "router" in weights
    assert "dense MLP" not in weights and "shared experts" not in weights


def test_measured_names_published_runs_on_the_same_gpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(write_config(tmp_path, "Llama-2-7B"))
    doc = _doc(capsys, "--model", config, "--gpu", "RTX 3090", "--weights", "q4_0", "--measured", "110")
    runs = doc["levels"][0]["measured"]["published_runs"]
    assert any("121.82 tok/s" in run and "llama.cpp/pull/4766" in run for run in runs)
    assert all("RTX 3090" in run for run in runs)
    doc = _doc(capsys, "--model", config, "--gpu", "T4", "--measured", "10")
    assert doc["levels"][0]["measured"]["published_runs"] == []


def test_exl2_and_mlc_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An EXL2 model directory says its bits in config.json; an MLC directory has mlc-chat-config.json."""
    exl2 = tmp_path / "Llama2-7B-exl2"
    exl2.mkdir()
    config = {**CONFIGS["Llama-2-7B"], "quantization_config": {
        "quant_method": "exl2", "version": "0.1.8", "bits": 4.25, "head_bits": 6,
        "calibration": {"rows": 115, "length": 2048, "dataset": "(default)"}}}  # fmt: skip
    (exl2 / "config.json").write_text(json.dumps(config), encoding="utf-8")
    doc = _doc(capsys, "--model", str(exl2), "--gpu", "RTX 4090")
    assert doc["weights_bits"]["dense_mlp"] == 4.25 and doc["weights_bits"]["lm_head"] == 6
    rc, _, err = run(capsys, "--model", str(exl2), "--gpu", "RTX 4090", "--weights", "exl2-2.5bpw")
    assert rc == 0, err
    mlc = tmp_path / "Llama-2-7b-chat-hf-q4f16_1-MLC"
    mlc.mkdir()
    (mlc / "mlc-chat-config.json").write_text(json.dumps({
        "model_type": "llama", "quantization": "q4f16_1",
        "model_config": {key: value for key, value in CONFIGS["Llama-2-7B"].items() if key != "torch_dtype"},
        "conv_template": "llama-2"}), encoding="utf-8")  # fmt: skip
    doc = _doc(capsys, "--model", str(mlc), "--gpu", "RTX 4090")
    assert doc["weights"]["lm_head"] == "q4f16_1" and doc["weights_bits"]["attention"] == 4.5
    assert doc["model"]["name"] == "Llama-2-7b-chat-hf-q4f16_1-MLC"
