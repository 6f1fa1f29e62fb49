"""RT-CUDA-GRAPHS on a TensorRT-LLM command whose config file sets `cuda_graph_config` to a section
(facts/engine_command.EngineCommand.graphs_configured): the LLM API captures CUDA graphs with it in every release that
reads the key, so the release need not be shown. `cuda_graph_config: null` turns them off.

The command may be pasted as a container's args, one YAML list item a word (importers/engine_command._yaml_args), and
its config file as a fenced block under its path that the paste cuts (importers/engine_command._config_shown).

Real pastes: corpus 837 (TensorRT-LLM#9628: container args and the start of /config/extra-llm-api-config.yml), corpus
457 (TensorRT-LLM#6294: a config with cuda_graph_config above a trtllm-bench line), and the heredoc of TensorRT-LLM
PR 6880 (`cuda_graph_config: null`). The other counter-examples are modelled from 837 and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from test_engine_command_config_file import HEREDOC_6880


def test_837_container_args_are_one_command_with_its_config() -> None:
    (command,) = fact(pasted(body("837")), "engine_commands").commands
    assert command.argv[:3] == ("trtllm-serve", "serve", "nvidia/DeepSeek-V3-0324-FP4")
    assert command.argv[13:15] == ("--extra_llm_api_options", "/config/extra-llm-api-config.yml")
    assert command.config_path == "/config/extra-llm-api-config.yml" and command.graphs_configured


def test_837_cuda_graph_config_section_turns_graphs_on() -> None:
    result = capture_checks("837", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "ok"
    assert "cuda_graph_config" in result.message


def test_457_config_with_cuda_graph_config_is_read() -> None:
    (command,) = fact(pasted(body("457")), "engine_commands").commands
    assert command.graphs_configured


def test_6880_cuda_graph_config_null_turns_graphs_off(tmp_path: Path) -> None:
    (command,) = fact(pasted(HEREDOC_6880), "engine_commands").commands
    assert not command.graphs_configured
    assert paste_checks(tmp_path, HEREDOC_6880, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


def test_modelled_config_without_the_key_leaves_the_release_to_show(tmp_path: Path) -> None:
    # Modelled: 837 with its config showing another key: the release decides, and it is not read from the list.
    text = body("837").replace("    cuda_graph_config:\n      batch_sizes:", "    kv_cache_config:\n      sizes:")
    assert paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "unknown"


def test_modelled_list_of_sentences_is_no_command() -> None:
    # Modelled: a Markdown list whose first item names the program, the others sentences: not joined as args.
    text = "- trtllm-serve\n- then I ran the benchmark\n- and it hangs\n"
    commands = fact(pasted(text), "engine_commands")
    assert all(c.argv == ("trtllm-serve",) for c in getattr(commands, "commands", ()))
