"""Issue 28 (recognition): `trtllm-bench` command lines, and the config file a command names, shown in the paste.

`trtllm-bench --model M throughput ... --extra_llm_api_options FILE` runs TensorRT-LLM's LLM API in-process
with the options of FILE (corpus 457). Where the paste shows FILE (a fenced block under a line that ends with
its name, or a `cat > FILE <<'EOF'` heredoc), its top-level keys are the command's options, as for a running
engine's config file (ProcessInfo.option).

Real pastes are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.importers.recognition import recognise

BENCH = ("root@16eea827d55a:/workspace/trtllm-benchmark# trtllm-bench --model nvidia/Llama-3.1-8B-Instruct-FP8 throughput "
         "--dataset /workspace/datasets/nvidia/Llama-3.1-8B-Instruct-FP8/128_128_30000.jsonl --backend pytorch "
         "--extra_llm_api_options extra-llm-api-config.yml --kv_cache_free_gpu_mem_fraction 0.8")
# https://github.com/NVIDIA/TensorRT-LLM/issues/6294 (skymizerFuji's second comment): the 0.20 form of the
# same settings, a fenced block under the file's name, the command in the log below (batch sizes shortened).
SETTINGS_6294 = f"""## Your settings
extra-llm-api-config.yml
```
use_cuda_graph: true
cuda_graph_padding_enabled: true
cuda_graph_batch_sizes:
  - 1
  - 2
  - 8192
```
Output
```
{BENCH}
```
"""
# https://github.com/NVIDIA/TensorRT-LLM/pull/6880 (examples/models/core/multimodal/README.md, Gemma 3): a heredoc
# that turns CUDA graphs off, then the command that names it (its `${MODEL_NAME}` expanded as the README exports it:
# the prompt pattern of importers/_scan.py takes `trtllm-serve $` for a shell prompt).
HEREDOC_6880 = """```bash
# Create the configuration file
cat > extra-llm-api-options.yaml << 'EOF'
cuda_graph_config: null
attn_backend: "FLASHINFER"
enable_chunked_prefill: false
kv_cache_config:
  enable_block_reuse: false
EOF

# Serve the model
trtllm-serve gemma-3-27b-it/ \\
    --backend pytorch \\
    --tp_size 1 \\
    --port 8000 \\
    --max_batch_size 4 \\
    --extra_llm_api_options extra-llm-api-options.yaml
```
"""


def _command(text: str) -> Any:
    commands = fact(pasted(text), "engine_commands").commands
    assert len(commands) == 1
    return commands[0]


def test_corpus_457_bench_command_is_read_with_its_yaml() -> None:
    assert [k for k, _, _ in recognise(body("457")).recognised] == ["engine command"]
    command = _command(body("457"))
    assert command.engine == "trtllm" and command.config_path == "extra-llm-api-config.yml"
    assert dict(command.config) == {"cuda_graph_config": "{...}", "enable_attention_dp": "true"}
    # One GPU, no --tp_size: no all-reduce.
    assert capture_checks("457", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_fenced_yaml_under_its_name_is_the_commands_options() -> None:
    proc = _command(SETTINGS_6294).as_process()
    assert proc.option("use_cuda_graph") == "true"
    assert proc.option("cuda_graph_batch_sizes") == "{...}"


def test_heredoc_config_turning_graphs_off_is_read(tmp_path: Path) -> None:
    command = _command(HEREDOC_6880)
    assert dict(command.config)["cuda_graph_config"] == "null"
    result = paste_checks(tmp_path, HEREDOC_6880, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "issue" and "cuda_graph_config: null" in result.message


def test_modelled_yaml_of_another_file_is_not_the_commands() -> None:
    # Modelled: the fenced block is named for another file than the one the command names.
    text = SETTINGS_6294.replace("extra-llm-api-config.yml\n```", "other-config.yml\n```")
    command = _command(text)
    assert command.config == () and command.as_process().option("use_cuda_graph") is None


def test_modelled_bench_without_a_subcommand_is_no_engine() -> None:
    # Modelled: `trtllm-bench --help` and the dataset subcommand run no engine.
    text = "$ trtllm-bench --help\n$ trtllm-bench --model m prepare-dataset\n"
    assert [k for k, _, _ in recognise(text).recognised if k == "engine command"] == []


# Modelled: the form of corpus 1060: the command in one fenced block, its config file in the next, which names the
# file in a comment on its first line. The closing fence under the command's last line shows no file.
COMMENT_NAMED = """```shell
trtllm-serve serve /data/model --backend pytorch --tp_size 8 \\
        --extra_llm_api_options /data/config/extra-llm-api-config.yml
```
```yaml
# extra-llm-api-config.yml
cuda_graph_config:
      padding_enabled: true
      max_batch_size: 128
```
"""


def test_config_named_in_its_blocks_first_comment(tmp_path: Path) -> None:
    """Real (corpus 1060, NVIDIA/TensorRT-LLM 1.0.0rc2 thread) and modelled: the YAML block headed `# FILE` is the
    file, so its cuda_graph_config turns CUDA graphs on in every release."""
    r = capture_checks("1060", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "cuda_graph_config" in r.message
    r = paste_checks(tmp_path, COMMENT_NAMED, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok"


def test_an_empty_block_after_the_command_shows_no_file(tmp_path: Path) -> None:
    """Modelled counter-example: without the YAML block, the command's closing fence shows no file: unknown."""
    text = COMMENT_NAMED.split("```yaml")[0]
    r = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "unknown"
