"""A TP group spread over nodes for a model one node holds (facts/parallelism.tp_spans_nodes_needlessly; issue 28,
blind AN: corpus 1792), and an engine started under pm2 (facts/engine_command._pm2_started).

IC-TOPOLOGY-PLACEMENT: an engine command whose TP group spans its `--nnodes` with several ranks on each node, for a
model whose name states a size that half of one node's ranks hold at 8 GiB each (16-bit weights), is an issue: every
layer's all-reduce crosses the network for nothing. A model whose name states no size, or one too large for that
floor, is not judged by this rule (TP 16 of DeepSeek-R1 over two nodes of eight still needs every GPU of both).

pm2 (`pm2 start SCRIPT [pm2's options] -- ARGS`) runs the program it names with the arguments after `--`: SGLang's
launch_server.py run as a script, or vLLM's console script under `--interpreter python3`. Real lines are quoted
verbatim from the threads and files named beside each; the modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.parallelism import name_billions

# https://github.com/sgl-project/sglang/issues/3206 (comment by vabatista, 2025-02-03): Llama-3.1-70B over two nodes of
# eight V100, the command inside the container's shell, verbatim from its `python3` line.
SGLANG_3206 = ("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp 16 "
               "--dist-init-addr $(hostname):5000 --nnodes 2 --node-rank 1 --trust-remote-code --host 0.0.0.0 "
               "--port 40000\n")
# https://github.com/sgl-project/sglang/issues/6465 (issue body by nrailg, 2025-05-20), node 0.
SGLANG_6465 = ("python3 -m sglang.launch_server --model-path /mnt/ceph-sz2-csp/mm-base-plt2/nrwu/hf-hub/Qwen/"
               "Qwen3-235B-A22B --tp 16 --dist-init-addr 29.163.186.212:5000 --nnodes 2 --node-rank 0 "
               "--trust-remote-code --host 0.0.0.0 --port 30000\n")
# https://github.com/sgl-project/sglang/issues/7478 (issue body): node 1's shell trace, verbatim.
SGLANG_7478 = ("+ python3 -m sglang.launch_server --model /place/deepseek-r1/weights --served-model-name deepseek-r1 "
               "--chunked-prefill-size 4096 --context-length 32768 --skip-tokenizer-init --enable-mixed-chunk "
               "--disable-radix-cache --tp 16 --dist-init-addr node-0.company.net:20000 --nnodes 2 --node-rank 1 "
               "--trust-remote-code --host :: --port 40000 --log-level=debug\n")
# Modelled: a 7B model in one TP group of eight over two nodes of four GPUs.
MODELLED_7B = ("python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 8 --nnodes 2 --node-rank 0 "
               "--dist-init-addr 10.0.0.1:5000\n")
# Modelled: the same model as two replicas, one on each node (DP 2 over --nnodes 2): no TP group spans the nodes.
MODELLED_REPLICAS = ("python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 4 --dp 2 --nnodes 2 "
                     "--node-rank 0 --dist-init-addr 10.0.0.1:5000\n")

# A manifold-inc (Targon, Bittensor subnet 4) README: vLLM started under pm2, verbatim.
PM2_TARGON = ("pm2 start vllm --name vllm-serve --interpreter python3 -- serve NousResearch/Meta-Llama-3.1-8B-Instruct "
              "--dtype auto --api-key [some-secret-you-also-pass-to-validator] --port 8000")
# A public shell script that starts one vLLM server per model under pm2, verbatim.
PM2_SCRIPT = ('pm2 start vllm --name "$server_name" --interpreter python3 -- serve "$model" --dtype auto '
              '--api-key $VLLM_API_KEY --port $port --tensor-parallel-size 4')
# The same README's miner under pm2: a program of its own that talks to vLLM over HTTP, no engine.
PM2_MINER = ("pm2 start neurons/miner.py --name miner --interperter python3 -- --wallet.name [WALLET_NAME] --netuid 4 "
             "--subtensor.network finney --model-endpoint [MODEL_ENDPOINT] --api_key [API_KEY]")

_CHECKS = ("IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE")


def test_corpus_1792_pm2_sglang_script_is_read() -> None:
    """Real (capture 1792, sglang#958): `pm2 start .../sglang/launch_server.py --name sgl -- ARGS` on each node."""
    r = capture_checks("1792", *_CHECKS, "RT-CUDA-GRAPHS")
    placement = r["IC-TOPOLOGY-PLACEMENT"]
    assert placement.status == "issue", placement.message
    assert "one TP group of 16 over --nnodes 2 (8 ranks on each node)" in placement.message
    assert "Meta-Llama-3.1-8B-Instruct, whose 8B parameters" in placement.message
    assert r["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    assert r["RT-CUDA-GRAPHS"].status == "ok"


def test_pm2_starts_the_program_after_its_options() -> None:
    targon = parse_command_line(PM2_TARGON)
    assert targon is not None and targon.engine == "vllm"
    assert targon.argv[:4] == ("python3", "vllm", "serve", "NousResearch/Meta-Llama-3.1-8B-Instruct")
    assert "--name" not in targon.argv  # pm2's own option, not vLLM's
    script = parse_command_line(PM2_SCRIPT)
    assert script is not None and script.engine == "vllm" and script.argv[-1] == "4"
    assert parse_command_line(PM2_MINER) is None
    # Modelled: a script named launch_server.py outside SGLang's package is another program's.
    assert parse_command_line("pm2 start /srv/app/launch_server.py -- --model-path M --tp 2") is None


def test_model_one_node_holds_spread_over_nodes(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_7B, "IC-TOPOLOGY-PLACEMENT")
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "issue"
    assert "(4 ranks on each node) for Qwen2.5-7B-Instruct" in r["IC-TOPOLOGY-PLACEMENT"].message


def test_replicas_over_nodes_are_not_judged(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_REPLICAS, "IC-TOPOLOGY-PLACEMENT")
    assert r["IC-TOPOLOGY-PLACEMENT"].status != "issue"


def test_models_too_large_or_unsized_are_not_judged(tmp_path: Path) -> None:
    """Real: 70B (sglang#3206), 235B (sglang#6465) and DeepSeek-R1 with no size in its name (sglang#7478)."""
    for text in (SGLANG_3206, SGLANG_6465, SGLANG_7478):
        r = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")
        assert r["IC-TOPOLOGY-PLACEMENT"].status != "issue", text


def test_sizes_read_from_model_names() -> None:
    assert name_billions("NousResearch/Meta-Llama-3.1-8B-Instruct") == 8
    assert name_billions("/models/Qwen2.5-0.5B/") == 0.5
    assert name_billions("Qwen/Qwen3-30B-A3B") == 30  # the whole model, not its active part
    assert name_billions("mistralai/Mixtral-8x7B-v0.1") is None  # an expert's size is not the model's
    assert name_billions("deepseek-ai/DeepSeek-R1") is None
