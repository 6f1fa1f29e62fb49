"""Issue 28 (recognition): vLLM's config file pasted without the command that reads it.

`vllm serve --config config.yaml` (vLLM 0.6.0 on) reads a flat YAML whose keys are the long names of its arguments.
A paste that shows only the file (vllm-project/vllm#43295, corpus 1669) shows the engine's settings all the same:
facts/engine_command.vllm_config_block reads it as that command with the file, where one key is a flag only vLLM
takes. The counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import body, fact, pasted


def _commands(text: str) -> list[tuple[str, dict[str, str]]]:
    commands = fact(pasted(text), "engine_commands")
    return [(c.line, dict(c.config)) for c in getattr(commands, "commands", ())]


def test_a_flat_vllm_config_alone_is_its_serve_command() -> None:
    """Corpus 1669: the fenced config (lines 2-19), no tensor-parallel size and no eager mode: one vLLM engine on TP 1."""
    text = body("1669")
    [(line, config)] = _commands(text)
    assert line == "vllm serve --config config.yaml"
    assert config["max_num_seqs"] == "200" and config["max_cudagraph_capture_size"] == "209"
    assert "enforce_eager" not in config
    engines = fact(pasted(text), "parallelism").engines
    assert {(e.engine, e.tp_or_default) for e in engines if e.source == "pasted command line"} == {("vllm", 1)}


def test_its_parallel_size_and_eager_mode_are_read() -> None:
    """Modelled on 1669's form: the file's tensor-parallel size and eager mode are the engine's."""
    text = "```yaml\nmodel: Qwen/Qwen3-8B\ntensor-parallel-size: 2\ngpu-memory-utilization: 0.9\nenforce-eager: true\n```\n"
    [(_, config)] = _commands(text)
    assert config["enforce_eager"] == "true"
    [engine] = fact(pasted(text), "parallelism").engines
    assert engine.tp_or_default == 2


def test_keys_nested_in_a_larger_document_or_without_a_vllm_flag_are_none() -> None:
    """Modelled: vLLM's keys indented under another key (a deployment profile's `engine_args:`), a flat file whose
    keys any server takes (`model`, `host`, `port`), and a flat block inside a larger document are no config file."""
    nested = "engine_args:\n  gpu-memory-utilization: 0.95\n  max-num-seqs: 64\n  tensor-parallel-size: 1\n"
    generic = "model: meta-llama/Meta-Llama-3-8B-Instruct\nhost: 127.0.0.1\nport: 6379\n"
    inside = "metadata:\n  engine: vllm\ngpu-memory-utilization: 0.95\nmax-num-seqs: 64\ndtype: float16\n"
    assert _commands(nested) == _commands(generic) == _commands(inside) == []


def test_a_command_naming_its_config_keeps_the_file() -> None:
    """Modelled: where a command names the file, the file is that command's (the block is not read again)."""
    text = ("vllm serve Qwen/Qwen3-8B --config my.yaml\n\nmy.yaml\n```\ngpu-memory-utilization: 0.9\n"
            "max-num-seqs: 8\ndtype: half\n```\n")
    [(line, config)] = _commands(text)
    assert line == "vllm serve Qwen/Qwen3-8B --config my.yaml" and config["max_num_seqs"] == "8"
