"""What the reports of corpus 1395-1418 told a user wrongly (r66), pinned so the wrong words do not come back.

- 1411: six Xid 45 lines were one burst; the title said `Xid 45 ×6` while the value beside the quote said
  `xid 45: 1` (the per-line events overwrote each other in the result's value).
- 1403: `lmdeploy serve api_server ./Qwen2.5-32B-Instruct-GPTQ-Int4` was read as naming the model `api_server`.
- 1403: no ceiling "because the source shows no NVIDIA GPU", where the vLLM log's rate was made on GPUs the paste
  does not name: not read is not absent.
- 1400: IC-CUSTOM-ALLREDUCE said `TP=?`, a placeholder a user cannot read.
"""

from __future__ import annotations

from corpus import capture_report, capture_result
from stackaudit.facts.processes import ProcessInfo
from stackaudit.facts.serving_model import model_argument
from stackaudit.report.header import evidence_line


def test_an_xid_burst_is_counted_alike_in_the_title_and_the_value() -> None:
    r = capture_result("1411", "DRV-XID")
    assert r.status == "issue" and "Xid 45 ×6" in r.message
    assert r.actual == {"0000:61:00.0 xid 45": 6}
    assert "xid 45: 1" not in evidence_line(r)


def _proc(argv: list[str]) -> ProcessInfo:
    return ProcessInfo(pid=0, ppid=None, comm=argv[0], argv=tuple(argv), engine="lmdeploy", role="api-server")


def test_lmdeploy_serve_names_its_model_after_the_server_kind() -> None:
    model = "./Qwen2.5-32B-Instruct-GPTQ-Int4"
    assert model_argument(_proc(["lmdeploy", "serve", "api_server", model, "--tp", "4"])) == model
    assert model_argument(_proc(["lmdeploy", "serve", "gradio", "Qwen/Qwen2.5-7B-Instruct"])) == "Qwen/Qwen2.5-7B-Instruct"
    assert model_argument(_proc(["lmdeploy", "serve", "api_server", "--help"])) is None
    assert model_argument(_proc(["vllm", "serve", "Qwen/Qwen3-8B"])) == "Qwen/Qwen3-8B"


def test_corpus_1403_never_says_the_command_names_api_server_nor_that_no_gpu_is_there() -> None:
    measured = capture_report("1403").host["measured"]
    line = measured["line"]
    assert "names api_server" not in line and "no NVIDIA GPU" not in line, line
    assert "does not name the GPU" in line, line


def test_custom_allreduce_says_an_unknown_tp_in_words() -> None:
    r = capture_result("1400", "IC-CUSTOM-ALLREDUCE")
    assert "TP=?" not in r.message and "(TP size not shown)" in r.message, r.message
