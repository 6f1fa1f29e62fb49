"""Issue 28 (blind EE, II, JJ): what a pasted engine command line shows of its release, and how it is read.

- A flag that only releases capturing CUDA graphs by default accept stands for the release where the paste states no
  version (facts/engine_command.GRAPHS_DEFAULT_MARKS): vLLM's `--speculative-config` (0.8.0), `--enable-prefix-caching`
  (0.3.3), SGLang's `--enable-ep-moe` (0.4.0.post1). An eager-mode flag on the same line still wins.
- A `\\` with spaces after it continues the command as its writer meant, and a line of only `NAME=value` assignments
  that the paste wrapped inside its last value goes on into the command below it
  (facts/engine_command.wrapped_inside_value; importers/engine_command).
- vLLM's offline `LLM(...)` call is read as its command where the paste shows vLLM: each keyword argument is the flag
  the CLI spells (`enforce_eager=True` is `--enforce-eager`), False is the flag absent, and a call whose settings are
  variables is not read (facts/engine_command.python_engine_call).
- `--disable-custom-all-reduce` where the source shows neither the GPU models nor their links is unknown
  (IC-CUSTOM-ALLREDUCE): whether it turned off something that could run is not shown.

Real lines are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import (
    parse_command_line,
    python_engine_call,
    wrapped_inside_value,
)
from stackaudit.importers.engine_command import python_engine_shown

# --- flags that stand for a release -----------------------------------------------------------------------------

# https://github.com/sgl-project/sglang/issues/3371 (the Reproduction line).
SGLANG_3371 = ("python3 -m sglang.launch_server --model-path /root/.cache/huggingface/models/DeepSeek-R1 --tp 16 "
               "--dist-init-addr ip:20000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 40000 "
               "--enable-ep-moe\n")
# https://github.com/sgl-project/sglang/issues/2482 (the EP reproduction line: EP MoE with graphs turned off).
SGLANG_2482 = ("python3 -m sglang.launch_server --model-path neuralmagic/DeepSeek-Coder-V2-Instruct-FP8 "
               "--disable-radix-cache --trust-remote-code --tp 8 --enable-ep-moe --disable-cuda-graph\n")


def test_corpus_760_ep_moe_flag_shows_a_release_with_graphs() -> None:
    # https://github.com/sgl-project/SpecForge/issues/164: `--enable-ep-moe`, no --disable-cuda-graph.
    res = capture_checks("760", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--enable-ep-moe" in res.message and "0.4.0.post1" in res.message, res.message


def test_corpus_761_speculative_config_in_underscores_shows_0_8() -> None:
    # https://github.com/vllm-project/vllm/issues/21278: `--speculative_config '{...}'`, no --enforce-eager.
    res = capture_checks("761", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.8.0 or later" in res.message, res.message


def test_sglang_3371_ep_moe_line_is_ok(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, SGLANG_3371, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--enable-ep-moe" in res.message, res.message


def test_eager_flag_beside_a_release_flag_is_still_the_issue(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, SGLANG_2482, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--disable-cuda-graph" in res.message, res.message


def test_corpus_765_prefix_caching_with_enforce_eager_is_the_issue() -> None:
    # https://github.com/vllm-project/vllm/issues/12256: --enable-prefix-caching and --enforce-eager on one command.
    res = capture_checks("765", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--enforce-eager" in res.message, res.message


def test_modelled_flag_of_another_engine_shows_no_release(tmp_path: Path) -> None:
    # Modelled: `--enable-prefix-caching` is vLLM's; on an SGLang line it says nothing of SGLang's release, which
    # stays open: the whole command reads ok with SGLang's default-on caveat (h73b), not with vLLM's 0.3.3.
    text = "python3 -m sglang.launch_server --model-path Qwen/Qwen2-7B --enable-prefix-caching\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.3.3" not in res.message and "sglang#612" in res.message, res.message


def test_modelled_prefix_caching_on_the_old_entrypoint_is_ok(tmp_path: Path) -> None:
    # Modelled: the module entrypoint alone shows no release (0.2.6 added graphs); the flag shows 0.3.3 or later.
    text = ("python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-v0.1 --enable-prefix-caching "
            "--max-model-len 4096\n")
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.3.3 or later" in res.message, res.message


# --- a command as pasted: `\ ` continuations, assignments wrapped inside a value -----------------------------------


def test_corpus_765_is_read_as_one_command() -> None:
    # https://github.com/vllm-project/vllm/issues/12256: `\ ` line ends, tab indents, `...=ens` / `12f0 NCCL_DEBUG=...`.
    res = capture_checks("765", "RT-CUDA-GRAPHS", "IC-NCCL-ENV")
    settings = res["IC-NCCL-ENV"].actual
    assert settings["NCCL_P2P_LEVEL"] == "NVL" and settings["NCCL_SOCKET_IFNAME"] == "ens12f0", settings
    assert settings["NCCL_DEBUG"] == "INFO", settings


def test_backslash_space_continues_the_command(tmp_path: Path) -> None:
    # Modelled on 765's form: each line ends in `\ `; the flag on the last line belongs to the command.
    text = "vllm serve Qwen/Qwen2-7B \\ \n\t --tensor-parallel-size 2 \\ \n\t --enforce-eager\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--enforce-eager" in res.message, res.message


def test_wrapped_inside_value_needs_assignments_on_both_sides() -> None:
    assert wrapped_inside_value("A=1 NCCL_SOCKET_IFNAME=ens ", "12f0 NCCL_DEBUG=INFO vllm serve m")
    # Modelled counter-examples: a wrapper or a program starts the line, or the line above is no assignment.
    assert not wrapped_inside_value("MODEL=m", "sudo NCCL_DEBUG=INFO vllm serve m")
    assert not wrapped_inside_value("MODEL=m", "vllm serve m --tensor-parallel-size 2")
    assert not wrapped_inside_value("echo start", "12f0 NCCL_DEBUG=INFO vllm serve m")


def test_modelled_assignment_line_over_a_whole_command_stays_apart() -> None:
    # Modelled: a variable set on its own line above a whole command is not joined into it.
    assert not wrapped_inside_value("NCCL_P2P_DISABLE=1", "vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2")
    command = parse_command_line("vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2")
    assert command is not None and command.env == ()


# --- vLLM's offline engine in Python: `LLM(...)` keyword arguments as the flags ------------------------------------

# https://docs.vllm.ai/en/latest/configuration/conserving_memory.html (the tensor-parallel example).
VLLM_DOCS_TP2 = 'from vllm import LLM\nllm = LLM(model="ibm-granite/granite-3.1-8b-instruct", tensor_parallel_size=2)\n'
# https://github.com/GeeeekExplorer/nano-vllm/issues/21: nano-vllm's own LLM class, whose paste shows no vLLM.
NANO_VLLM_21 = "`llm = LLM(path, enforce_eager=True, max_model_len=4096, tensor_parallel_size=2)`\n"
# https://github.com/vllm-project/vllm/issues/8908: the settings are variables set in the script.
VLLM_8908 = """from vllm import LLM  ,SamplingParams
llm = LLM(model_path,
            trust_remote_code=True,
            tensor_parallel_size=tensor_parallel_size,
            dtype="auto",
            seed=0,
            enable_prefix_caching=enable_prefix_caching,
            enforce_eager=enforce_eager,
            max_model_len=max_model_len,
            gpu_memory_utilization = 0.95,)
"""


def test_corpus_756_llm_call_is_read_as_the_command() -> None:
    # https://github.com/vllm-project/vllm/issues/14022: enforce_eager=True, disable_custom_all_reduce=True at TP 8.
    res = capture_checks("756", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE")
    graphs, allreduce = res["RT-CUDA-GRAPHS"], res["IC-CUSTOM-ALLREDUCE"]
    assert graphs.status == "issue" and "--enforce-eager" in graphs.message and "LLM(" in graphs.message, graphs.message
    # The flag is read, but neither the GPUs nor their links are shown: whether it could have run is not.
    assert allreduce.status == "unknown" and "TP=8" in allreduce.message, allreduce.message


def test_keywords_map_to_flags_and_false_is_absent() -> None:
    command = python_engine_call("self.llm = LLM(\n    model=\"m\",\n    tensor_parallel_size=8,\n    enforce_eager=True,"
                                 "\n    disable_log_stats=False,\n    speculative_config={\"method\": \"ngram\"},\n)")
    assert command is not None and command.engine == "vllm"
    assert command.argv == ("LLM", "--model", "m", "--tensor-parallel-size", "8", "--enforce-eager",
                            "--speculative-config", '{"method": "ngram"}')


def test_vllm_docs_tp2_call_gives_tp_2(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, VLLM_DOCS_TP2, "IC-CUSTOM-ALLREDUCE", "RT-CUDA-GRAPHS")
    assert "TP=2" in res["IC-CUSTOM-ALLREDUCE"].message, res["IC-CUSTOM-ALLREDUCE"].message
    # No eager flag and nothing shows the release: ok, naming vLLM's first release with graphs on by default (h73b).
    assert res["RT-CUDA-GRAPHS"].status == "ok" and "0.2.6" in res["RT-CUDA-GRAPHS"].message, \
        res["RT-CUDA-GRAPHS"].message


def test_llm_call_where_the_paste_shows_no_vllm_is_not_read(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, NANO_VLLM_21, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert "LLM(" not in res.message, res.message
    assert not python_engine_shown(NANO_VLLM_21.splitlines())


def test_variables_as_settings_are_not_read() -> None:
    assert python_engine_call(VLLM_8908) is None


def test_modelled_sampling_params_is_no_engine(tmp_path: Path) -> None:
    # Modelled: a SamplingParams call beside a vLLM import starts no engine.
    text = "from vllm import SamplingParams\nparams = SamplingParams(n=10, max_tokens=8192, temperature=0.2)\n"
    assert python_engine_call(text) is None
    res = paste_checks(tmp_path, text + "INFO 02-28 15:02:09 metrics.py:455] Avg prompt throughput: 3.0 tokens/s\n",
                       "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert "pasted command" not in res.message and "SamplingParams" not in res.message, res.message


# --- IC-NCCL-ENV: NCCL_P2P_LEVEL=NVL keeps P2P to NVLink pairs ---------------------------------------------------

# Modelled on 765's variable, on a two-GPU command over a matrix of each kind.
NVL_COMMAND = "NCCL_P2P_LEVEL=NVL vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2\n\n"
MATRIX = """        GPU0    GPU1    CPU Affinity    NUMA Affinity
GPU0     X      {link}    0-31            0
GPU1    {link}     X      0-31            0
"""


def test_corpus_765_nvl_level_without_links_is_unknown() -> None:
    res = capture_checks("765", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert res.status == "unknown" and "NCCL_P2P_LEVEL=NVL" in res.message and "PCIe" in res.message, res.message


def test_modelled_nvl_level_on_nvlink_pair_costs_nothing(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, NVL_COMMAND + MATRIX.format(link="NV12"), "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert res.status == "not-an-issue" and "NVLink-connected" in res.message, res.message


def test_modelled_nvl_level_on_pcie_pair_is_an_issue(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, NVL_COMMAND + MATRIX.format(link="PIX "), "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert res.status == "issue" and "P2P only over NVLink" in res.message, res.message


def test_a_json_argument_is_quoted_without_its_body() -> None:
    # 761's command: the report quotes the line with its JSON cut, since a report holds no value as JSON.
    res = capture_checks("761", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.evidence and "--speculative_config '{…}'" in res.evidence[0] and '{"' not in res.evidence[0], res.evidence


def test_nvl_level_on_a_node_whose_nccl_sets_up_nvls_costs_nothing() -> None:
    # Real: corpus 791 (vllm#15769, vLLM over Ray on one NVSwitch node): NCCL finds NVLS multicast, which only an
    # NVSwitch fabric gives, so NVLink joins every pair and NCCL_P2P_LEVEL=NVL keeps P2P on all of them.
    from corpus import capture_checks
    r = capture_checks("791", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "every GPU pair is NVLink-connected" in r.message
