"""IC-NCCL-ENV where the only engine shown runs no NCCL (facts/applicability.no_nccl_engine, ENGINES_WITHOUT_NCCL).

ollama splits a model over its GPUs by layers inside one runner process and builds no NCCL communicator, so no NCCL
setting shapes a collective of it: not applicable (corpus 2025, ollama/ollama#6930). A llama.cpp command that splits
tensors over GPUs (`-sm row`, `--split-mode tensor`) may reduce over NCCL and keeps the check open.

Real pastes: ollama/ollama#8995, #10670 (journal lines, cut to a few), and corpus 2025; the counter-examples say
whether they are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.applicability import no_nccl_engine

# ollama/ollama#8995 (tu-step, 2025-02-10): the service start and its server config line, cut to its first keys.
JOURNAL_8995 = """\
Feb 10 17:37:53 debian systemd[1]: Started ollama.service - Ollama Service.
Feb 10 17:37:54 debian ollama[1741]: 2025/02/10 17:37:54 routes.go:1186: INFO server config env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: OLLAMA_LLM_LIBRARY:cuda_v11 OLLAMA_SCHED_SPREAD:false]"
"""

# ollama/ollama#10670 (bitcandy, 2025-05-12): ollama's discovery of three CUDA GPUs.
DISCOVERY_10670 = """\
May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference compute" id=GPU-xxxx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1080 Ti" total="10.9 GiB" available="8.5 GiB"
May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference compute" id=GPU-xx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="5.6 GiB"
May 12 12:07:07 m3pc ollama[180943]: time=2025-05-12T12:07:07.887Z level=INFO source=types.go:130 msg="inference compute" id=GPU-xxx library=cuda variant=v12 compute=6.1 driver=12.4 name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="5.7 GiB"
"""


def test_only_ollama_shown_runs_no_nccl() -> None:
    why = no_nccl_engine("nccl-gpu", ("ollama",))
    assert "ollama" in why and "no NCCL communicator" in why


def test_another_subject_an_unnamed_or_other_engine_stays_open() -> None:
    assert no_nccl_engine("nvlink", ("ollama",)) == ""
    assert no_nccl_engine("nccl-gpu", ("ollama", "vllm")) == ""
    assert no_nccl_engine("nccl-gpu", ("ollama", "")) == ""
    assert no_nccl_engine("nccl-gpu", ()) == ""


def test_a_tensor_split_over_gpus_stays_open() -> None:
    # Modelled: a llama-server splitting rows over two GPUs (llama.cpp built with NCCL reduces there, corpus 223).
    argv = ("llama-server", "-m", "m.gguf", "-ngl", "99", "-sm", "row")
    assert no_nccl_engine("nccl-gpu", ("llamacpp",), (argv,)) == ""
    assert no_nccl_engine("nccl-gpu", ("llamacpp",), (argv[:-2],)) != ""


def test_ollama_on_two_gpus_is_not_applicable() -> None:
    r = capture_checks("2025", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-applicable" and "ollama" in r.message


def test_ollama_journals_of_other_threads_are_not_applicable(tmp_path: Path) -> None:
    for text in (JOURNAL_8995, DISCOVERY_10670):
        r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "not-applicable", (r.status, r.message)


def test_an_ollama_log_beside_a_vllm_command_stays_open(tmp_path: Path) -> None:
    # Modelled: a vLLM engine of TP 2 beside the ollama journal: vLLM builds an NCCL communicator.
    text = JOURNAL_8995 + "\n$ vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 2\n"
    r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "unknown", (r.status, r.message)


def test_2709_ollamas_ggml_device_list_is_its_own_backend() -> None:
    """Corpus 2709 (both readers): ollama on Windows, whose runner prints ggml's `ggml_cuda_init` list of 8 GPUs."""
    assert no_nccl_engine("nccl-gpu", ("ollama", "ggml")) != ""
    result = capture_checks("2709", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert result.status == "not-applicable" and "ollama" in result.message, result.message


def test_a_ggml_device_list_alone_or_beside_another_engine_stays_open() -> None:
    """Modelled: a ggml list with no engine named, or beside vLLM, shows no engine without NCCL."""
    assert no_nccl_engine("nccl-gpu", ("ggml",)) == ""
    assert no_nccl_engine("nccl-gpu", ("ollama", "ggml", "vllm")) == ""
