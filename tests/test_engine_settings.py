"""Engine settings that cost decode throughput (issue 29), read from the engine's argv wherever the source
shows it: a pasted command line, a container's engine arguments, a running process.

Real pastes come from tests/data/captures (named by file); the command lines added to them, and the
engine flags on the modelled ones, are modelled and marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_result
from stackaudit.engine.gap_verdict import gap_verdict
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted
from test_rt_runtime import host, sglang, unrelated, vllm_site, vllm_v1
from test_topology_parsers import _pcie, make_topo

CAPTURES = Path(__file__).parent / "data" / "captures"


def capture(name: str) -> str:
    """The verbatim part of a corpus file (below its header)."""
    text = (CAPTURES / name).read_text()
    return text.split("everything below this line is the capture, verbatim -----\n", 1)[1]


def pasted(tmp_path: Path, *parts: str, checks: tuple[str, ...]) -> dict[str, Result]:
    path = tmp_path / "paste.txt"
    path.write_text("\n".join(parts) + "\n")
    return run_checks(load_pasted([str(path)]), list(checks))


# collect_env of vLLM 0.4.1 on 8x A100 SXM (NV12 mesh): the version and the topology (corpus 11).
COLLECT_ENV_041 = "11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt"
# SGLang 0.4.0.post2's check_env on one A40 (corpus 47).
CHECK_ENV_SGLANG = "47-1x-a40-sglang-check-env-pydantic-warning.txt"
# 5 GPUs, NODE/PHB paths, `topo -p2p p` OK between all (a P2P-enabled driver; corpus 60).
P2P_OK_5 = "60-5-gpu-topo-m-node-topo-p2p-ok-patched-driver.txt"
# 2 GeForce RTX 5090, PHB, `topo -p2p rw` GNS (corpus 59).
P2P_GNS_2 = "59-2x-rtx5090-topo-m-phb-topo-p2p-gns.txt"


# --- RT-CUDA-GRAPHS: a complete command line with its version -----------------------------------


def test_a_command_line_without_eager_flag_and_with_its_version_is_ok(tmp_path: Path) -> None:
    # Modelled: the command line; real: the collect_env that gives vLLM 0.4.1.
    r = pasted(tmp_path, capture(COLLECT_ENV_041), "$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2",
               checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "vLLM 0.4.1" in r.message


def test_a_command_line_without_its_version_or_with_data_parallelism(tmp_path: Path) -> None:
    # Modelled: vLLM's module entrypoint is older than its CUDA graphs, so without the version the release is open:
    # ok by the whole command with 0.2.6 named as the caveat (h73b); `vllm serve` itself shows 0.5 or later
    # (facts/engine_command.GRAPHS_DEFAULT_MARKS).
    r = pasted(tmp_path, "$ python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct "
               "--tensor-parallel-size 2", checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "release is not in the source" in r.message and "0.2.6" in r.message
    r = pasted(tmp_path, "$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2",
               checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "`vllm serve` is in no earlier release" in r.message
    # vLLM forced eager mode itself under data parallelism (corpus 67): the version does not settle it.
    r = pasted(tmp_path, capture(COLLECT_ENV_041),
               "$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --data-parallel-size 2",
               checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "unknown" and "data parallelism" in r.message


def test_the_readme_command_with_enforce_eager_is_still_the_issue(tmp_path: Path) -> None:
    # Real: corpus 02 (`--enforce-eager` copied from a README), with the version beside it.
    r = pasted(tmp_path, capture(COLLECT_ENV_041), capture("02-vllm-serve-readme-command-enforce-eager-tp2.txt"),
               checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "high" and "--enforce-eager" in r.message


# --- RT-CUDA-GRAPHS: capture caps below the batch in use ----------------------------------------


@pytest.mark.parametrize(("line", "status", "severity", "words"), [
    # capped below the batch the engine may run: batches 17..64 run eagerly
    ("vllm serve m --max-num-seqs 64 --max-cudagraph-capture-size 16", "issue", "low", "batches of 17 to 64"),
    ("vllm serve m --max-num-seqs 64 --compilation-config '{\"max_cudagraph_capture_size\": 32}'", "issue", "low",
     "max_cudagraph_capture_size"),
    ("vllm serve m --max-model-len 32768 --max-seq-len-to-capture 8192", "issue", "low", "longer sequences"),
    ("python -m sglang.launch_server --model-path m --max-running-requests 48 --cuda-graph-max-bs 16", "issue", "low",
     "--max-running-requests 48"),
    # a cap of 0 captures nothing: graphs off
    ("vllm serve m --max-cudagraph-capture-size 0", "issue", "high", "no batch size captured"),
    # SGLang v0.5.23's spelling of --disable-cuda-graph
    ("python -m sglang.launch_server --model-path m --cuda-graph-backend-decode disabled", "issue", "high",
     "--cuda-graph-backend-decode disabled"),
    # attention backends and modes SGLang runs without CUDA graphs (its own warnings, server_args.py v0.5.3)
    ("python -m sglang.launch_server --model-path m --attention-backend torch_native", "issue", "high",
     "torch_native (SGLang disables CUDA graphs with it)"),
    ("python -m sglang.launch_server --model-path m --attention-backend=flex_attention", "issue", "high",
     "flex_attention"),
    ("python -m sglang.launch_server --model-path m --moe-a2a-backend deepep --deepep-mode normal", "issue", "high",
     "--deepep-mode normal"),
    ("python -m sglang.launch_server --model-path m --attention-backend triton --deepep-mode low_latency", "ok", None,
     "SGLang 0.4.0.post2"),
    # counter-examples: caps at or above the batch in use, and a context cap above the model length
    ("vllm serve m --max-num-seqs 16 --max-cudagraph-capture-size 16", "ok", None, "vLLM 0.4.1"),
    ("vllm serve m --max-model-len 4096 --max-seq-len-to-capture 8192", "ok", None, "vLLM 0.4.1"),
])
def test_capture_caps_on_a_pasted_command_line(tmp_path: Path, line: str, status: str, severity: str | None,
                                               words: str) -> None:
    # Modelled: the command lines; real: the collect_env / check_env that gives the version.
    version = CHECK_ENV_SGLANG if "sglang" in line else COLLECT_ENV_041
    r = pasted(tmp_path, capture(version), "$ " + line, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert (r.status, r.severity if status == "issue" else None) == (status, severity), r.message
    assert words in r.message


def test_capture_cap_below_the_batch_in_a_running_engine_and_a_container_spec(tmp_path: Path) -> None:
    r = run_checks(host(unrelated(), sglang(extra_args=("--max-running-requests", "64", "--cuda-graph-max-bs", "32"))),
                   ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "low" and "batches of 33 to 64" in r.message
    r = run_checks(host(unrelated(), vllm_v1(extra_args=("--max-num-seqs", "256")), vllm_site()), ["RT-CUDA-GRAPHS"])
    assert r["RT-CUDA-GRAPHS"].status == "ok"
    # Modelled docker run (the form of corpus 127) with a cap below --max-num-seqs.
    spec = ("docker run --gpus all --ipc=host vllm/vllm-openai:v0.10.1 --model m --max-num-seqs 128 "
            "--max-cudagraph-capture-size 8")
    r = pasted(tmp_path, spec, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "low" and "--max-num-seqs 128" in r.message


# --- IC-CUSTOM-ALLREDUCE: --disable-custom-all-reduce where it could run --------------------------


def test_disable_custom_all_reduce_on_nvlink_from_a_pasted_command(tmp_path: Path) -> None:
    line = "$ vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2"
    r = pasted(tmp_path, capture(COLLECT_ENV_041), line + " --disable-custom-all-reduce",
               checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "issue" and r.severity == "medium" and "NVLink" in r.message
    assert r.subjects == ("pasted command",) and "--disable-custom-all-reduce" in r.evidence[0]
    r = pasted(tmp_path, capture(COLLECT_ENV_041), line, checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "ok"


def test_disable_custom_all_reduce_at_tp2_with_p2p_is_an_issue_without_p2p_it_is_not(tmp_path: Path) -> None:
    line = "$ vllm serve m --tensor-parallel-size 2 --disable-custom-all-reduce"
    r = pasted(tmp_path, capture(P2P_OK_5), line, checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "issue" and "GPU0, GPU1" in r.message and "P2P" in r.message
    r = pasted(tmp_path, capture(P2P_GNS_2), line, checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "ok" and "disabled by flag" in r.message
    # TP=4 over PCIe: custom all-reduce is off by design, so the flag changes nothing.
    r = pasted(tmp_path, capture(P2P_OK_5), line.replace("size 2", "size 4"),
               checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "ok"


def test_disable_custom_all_reduce_in_a_docker_run_on_nvlink(tmp_path: Path) -> None:
    # Modelled docker run beside the real collect_env topology (NV12 mesh).
    spec = ("docker run --gpus all --ipc=host vllm/vllm-openai:v0.4.1 --model m --tensor-parallel-size 2 "
            "--disable-custom-all-reduce")
    r = pasted(tmp_path, capture(COLLECT_ENV_041), spec, checks=("IC-CUSTOM-ALLREDUCE",))["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "issue" and "NVLink" in r.message


# --- IC-TOPOLOGY-PLACEMENT: the TP group a pasted command line picks -----------------------------


TWO_SOCKETS = make_topo(_pcie(8, lambda i, j: "NODE" if i // 4 == j // 4 else "SYS"), ["0-47"] * 4 + ["48-95"] * 4,
                        ["0"] * 4 + ["1"] * 4)


def test_a_tp_group_across_sockets_from_a_pasted_commands_devices(tmp_path: Path) -> None:
    # Modelled: a PCIe 8-GPU box on two sockets; the command's CUDA_VISIBLE_DEVICES picks GPU3 and GPU4.
    line = "$ CUDA_VISIBLE_DEVICES=3,4 vllm serve m --tensor-parallel-size 2"
    r = pasted(tmp_path, TWO_SOCKETS, line, checks=("IC-TOPOLOGY-PLACEMENT",))["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "issue" and "GPU3, GPU4 crosses sockets" in r.message
    r = pasted(tmp_path, TWO_SOCKETS, line.replace("3,4", "4,5"),
               checks=("IC-TOPOLOGY-PLACEMENT",))["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "ok"


# --- the gap verdict: a capture cap does not reach batch 1 ---------------------------------------


@pytest.mark.parametrize(("severity", "explains"), [("high", True), ("low", False)])
def test_only_graphs_off_explains_a_single_stream_gap(severity: str, explains: bool) -> None:
    """Eager mode can cost a multiple at batch 1; a capture cap above 1 (low severity) leaves batch 1 captured."""
    found = Result("RT-CUDA-GRAPHS", "rt", "CUDA graphs disabled", "issue", "found", severity=severity)
    out = gap_verdict({"decode_tok_s": 10.0, "ceiling_tok_s": 100.0}, [found])
    assert out["host_explains"] is explains
    assert out["findings"][0]["class"] == ("multiple" if explains else "none-for-decode")


# --- RT-CUDA-GRAPHS from SGLang's decode lines ----------------------------------------------------

# Verbatim from https://github.com/sgl-project/sglang/pull/13023 (a benchmark log in the description): batches
# of 46 and 36 decode without CUDA graphs, 28 and below replay them.
SGLANG_DECODE_ABOVE_CAP = """\
[2025-11-11 04:06:27] Decode batch, #running-req: 46, #token: 34901, token usage: 0.19, cuda graph: False, gen throughput (token/s): 1447.08, #queue-req: 0, 
[2025-11-11 04:06:29] Decode batch, #running-req: 36, #token: 28419, token usage: 0.16, cuda graph: False, gen throughput (token/s): 1262.64, #queue-req: 0, 
[2025-11-11 04:06:30] Decode batch, #running-req: 28, #token: 22920, token usage: 0.13, cuda graph: True, gen throughput (token/s): 1086.59, #queue-req: 0, 
[2025-11-11 04:06:31] Decode batch, #running-req: 22, #token: 20033, token usage: 0.11, cuda graph: True, gen throughput (token/s): 895.36, #queue-req: 0, 
"""  # noqa: W291 - the log's trailing spaces are verbatim


def test_sglang_decode_lines_above_the_capture_cap_are_a_low_issue(tmp_path: Path) -> None:
    r = pasted(tmp_path, SGLANG_DECODE_ABOVE_CAP, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "low", r.message
    assert "36 and 46" in r.message and "batches up to 28" in r.message and "cuda graph: False" in r.evidence[0]


def test_sglang_decode_lines_eager_at_batch_one_or_all_graphed(tmp_path: Path) -> None:
    # Modelled from the lines above: one request decoding eagerly is graphs off; all graphed is ok.
    one = SGLANG_DECODE_ABOVE_CAP.splitlines()[0].replace("#running-req: 46", "#running-req: 1")
    r = pasted(tmp_path, one, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "high" and "running batch 1" in r.message
    graphed = "\n".join(SGLANG_DECODE_ABOVE_CAP.splitlines()[2:])
    r = pasted(tmp_path, graphed, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "22 and 28" in r.message


# --- RT-CUDA-GRAPHS from the engine's resolved configuration dump --------------------------------

# The start of vLLM 0.6.6's engine-config line, verbatim from https://github.com/rust-lang/www.rust-lang.org/issues/2107
# (a vLLM log pasted there), cut after enforce_eager like a pasted excerpt would be.
VLLM_066_CONFIG = (
    "INFO 01-14 03:08:50 llm_engine.py:234] Initializing an LLM engine (v0.6.6) with config: "
    "model='/workspace/models/models--Qwen--Qwen2-0.5B', speculative_config=None, "
    "tokenizer='/workspace/models/models--Qwen--Qwen2-0.5B', skip_tokenizer_init=False, tokenizer_mode=auto, "
    "revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, "
    "dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, "
    "tensor_parallel_size=1, pipeline_parallel_size=2, disable_custom_all_reduce=False, quantization=None, "
    "enforce_eager=False, kv_cache_dtype=auto,")


def test_a_resolved_config_line_with_graphs_on_is_ok_raw_flags_are_not(tmp_path: Path) -> None:
    r = pasted(tmp_path, VLLM_066_CONFIG, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "resolved configuration" in r.message
    # Modelled: the same setting in `non-default args` is a raw flag, before vLLM's own overrides (DP: corpus 67).
    raw = "INFO 01-14 03:08:49 [cli_args.py:261] non-default args: {'model': 'm', 'enforce_eager': False}"
    r = pasted(tmp_path, raw, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status != "ok"
    # vLLM V1's line does not settle it: compilation_config's level and cudagraph_mode decide too. Modelled on the
    # line in https://github.com/vllm-project/speculators/pull/166: the fields between model= and
    # tensor_parallel_size= left out, cut after enforce_eager.
    v1 = ("(EngineCore_DP0 pid=774560) INFO 10-30 14:20:52 [core.py:93] Initializing a V1 LLM engine "
          "(v0.10.1.dev2081+gc44ef9fc0.d20250930) with config: model='meta-llama/Meta-Llama-3.1-8B-Instruct', "
          "tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, "
          "quantization=None, enforce_eager=False, kv_cache_dtype=auto,")
    r = pasted(tmp_path, v1, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status != "ok"
    forced = ("INFO 08-01 12:18:31 [cuda.py:156] Data Parallel: Forcing enforce eager to be True since DP is "
              "currently not supported with CUDA Graphs.")
    r = pasted(tmp_path, forced, VLLM_066_CONFIG, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue"


# Real: corpus 2646 (huggingface/text-generation-inference#1695), a TGI shard's warmup giving up its CUDA graphs.
TGI_WARMUP_FAILED = "2024-04-02T17:31:23.524470Z ERROR text_generation_launcher: Decode cuda graph warmup failed"


def test_tgi_graph_warmup_failure_is_eager(tmp_path: Path) -> None:
    r = pasted(tmp_path, TGI_WARMUP_FAILED, "Traceback (most recent call last):",
               checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and "warmup failed" in " ".join(r.evidence)
    # Modelled: the same shard's graphs enabled, and no failure logged: not eager.
    on = "2024-04-02T17:31:20.000000Z  INFO text_generation_launcher: Cuda Graphs are enabled for sizes [1, 2, 4, 8]"
    assert pasted(tmp_path, on, checks=("RT-CUDA-GRAPHS",))["RT-CUDA-GRAPHS"].status != "issue"


def test_corpus_2646_graphs_and_driver() -> None:
    assert capture_result("2646", "RT-CUDA-GRAPHS").status == "issue"
    # The log's date, now read as TGI's own line, dates the run before CUDA 13: driver 535 runs any runtime TGI shipped.
    assert capture_result("2646", "DRV-CUDA-COMPAT").status == "ok"
    # Another thread: TGI 1.4's --enable-cuda-graphs with no log of the warmup stays unknown.
    assert capture_result("1515", "RT-CUDA-GRAPHS").status == "unknown"
