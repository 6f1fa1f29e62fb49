"""IC-CUSTOM-ALLREDUCE: the engine's own line that it turned custom all-reduce off by its design.

vLLM and SGLang log why they leave custom all-reduce off (custom_all_reduce.py): a group that spans nodes ("Custom
allreduce is disabled because this process group spans across nodes"), a world size its kernels do not take ("...
due to an unsupported world size: 16"), more than two PCIe-only GPUs. Each is the engine deciding, as designed, and
NCCL carries the all-reduce: not an issue (corpus 1248, 126, 739). SGLang's 2026 releases write the name as one word
("CustomAllreduce is disabled ...", "CustomAllReduceV2 is disabled ..."), read the same (facts/serving_logs
.CUSTOM_AR_DISABLED). A TP group shown spanning nodes by the command's flags alone stays not applicable (corpus 217,
1611). Real lines are quoted verbatim from the threads named beside each; modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import AR_MULTI_NODE, AR_PCIE_ONLY, AR_WORLD_SIZE

# https://github.com/sgl-project/sglang/issues/2892 (comment by thundergolfer, 2025-02-06: a TP 16 server over two
# nodes), an excerpt of its log.
SGLANG_2892 = """[2025-02-06 21:35:22 TP8] sglang is using nccl==2.21.5
[2025-02-06 21:35:22 TP13] sglang is using nccl==2.21.5
[2025-02-06 21:35:32 TP14] Custom allreduce is disabled because this process group spans across nodes.
[2025-02-06 21:35:32 TP15] Custom allreduce is disabled because this process group spans across nodes.
"""

# https://github.com/vllm-project/vllm/pull/14447 (comment by davidsyoung: vLLM with TP 16), two of its workers' lines.
VLLM_14447 = """(VllmWorkerProcess pid=577) WARNING 04-12 07:54:15 [custom_all_reduce.py:97] Custom allreduce is disabled due to an unsupported world size: 16. Supported world sizes: [2, 4, 6, 8]. To silence this warning, specify disable_custom_all_reduce=True explicitly.
(VllmWorkerProcess pid=479) WARNING 04-12 07:54:15 [custom_all_reduce.py:97] Custom allreduce is disabled due to an unsupported world size: 16. Supported world sizes: [2, 4, 6, 8]. To silence this warning, specify disable_custom_all_reduce=True explicitly.
"""

# https://github.com/sgl-project/sglang/issues/29562 (comment by dengni-10000, 2026-06-28: RTX PRO 6000 at TP 8),
# SGLang's one-word spellings of the PCIe-only line.
SGLANG_29562 = """[2026-06-28 13:34:12 TP7] CustomAllReduceV2 is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
[2026-06-28 13:34:12 TP4] CustomAllReduceV2 is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
[2026-06-28 13:34:12 TP1] CustomAllreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
[2026-06-28 13:34:12 TP0] CustomAllreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
"""


def test_reasons_are_read_from_each_spelling() -> None:
    assert {r for r, _ in fact(pasted(SGLANG_2892), "serving_log").custom_ar_disabled} == {AR_MULTI_NODE}
    assert {r for r, _ in fact(pasted(VLLM_14447), "serving_log").custom_ar_disabled} == {AR_WORLD_SIZE}
    assert {r for r, _ in fact(pasted(SGLANG_29562), "serving_log").custom_ar_disabled} == {AR_PCIE_ONLY}


def test_engine_line_off_by_design_is_not_an_issue(tmp_path: Path) -> None:
    for text, words in ((SGLANG_2892, "spans nodes"), (VLLM_14447, "world sizes 2, 4, 6, 8"),
                        (SGLANG_29562, "PCIe only")):
        r = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
        assert r.status == "not-an-issue", (text[:60], r.status, r.message)
        assert words in r.message


def test_corpus_engine_line_spanning_nodes() -> None:
    # Corpus 1248: vLLM over two DGX Spark nodes logs the line itself.
    r = capture_checks("1248", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "not-an-issue" and "spans across nodes" in r.message


def test_flags_alone_spanning_nodes_stay_not_applicable() -> None:
    # Corpus 217 and 1611: the command's --nnodes shows the span; no engine line says what it did.
    for n in ("217", "1611"):
        assert capture_checks(n, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_quick_allreduce_is_another_kernel() -> None:
    # Modelled from vLLM's ROCm quick_all_reduce.py warning: not custom all-reduce's line.
    text = ("(VllmWorkerProcess pid=1) WARNING 01-01 00:00:00 [quick_all_reduce.py:90] Custom quick allreduce is "
            "disabled because this process group spans across nodes.\n")
    log = fact(pasted(text), "serving_log")
    assert log is None or not log.custom_ar_disabled
