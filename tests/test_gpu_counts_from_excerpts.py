"""GPU counts and coverage that say no more than the paste shows (r67a).

An nccl-tests device list cut before its end, or starting at a late rank, proves "at least N" GPUs, and the header's
`nGpus(perProc) N` states the GPUs of one process; a `topo -m` cut after two rows judges those two rows, not the host.
"""

from __future__ import annotations

from pathlib import Path

from corpus import audit_capture, body, corpus_path, fact, paste_checks, pasted
from stackaudit.facts.gpus import parse_nccl_tests_gpus
from stackaudit.report.header import ceiling_command


def test_nccl_tests_header_per_proc_form_counts_the_processes_gpus() -> None:
    # corpus 1414 (sichek nccltest on 8x H200): `# nGpus(perProc) 8` over a device list cut after rank 5.
    gpus = fact(pasted(body("1414")), "gpus")
    assert gpus.count == 8 and gpus.whole_count is None and gpus.count_unshown
    assert len(gpus.gpus) == 6


def test_a_cut_nccl_tests_device_list_is_a_lower_bound() -> None:
    # corpus 1407 (GB200 NVL72): one rank line on `device 3` proves four GPUs on that host, not exactly four.
    gpus = fact(pasted(body("1407")), "gpus")
    assert gpus.count == 4 and gpus.whole_count is None and gpus.count_unshown


def test_a_whole_nccl_tests_device_list_is_the_count() -> None:
    # Modelled text: ranks 0-1 from rank 0, then the result table's header: the list is whole.
    text = ("# nThread 1 nGpus 2 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 check: 1\n"
            "#\n# Using devices\n"
            "#  Rank  0 Group  0 Pid 1 on host device  0 [0x1a] NVIDIA L20\n"
            "#  Rank  1 Group  0 Pid 1 on host device  1 [0x1b] NVIDIA L20\n"
            "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong\n")
    gpus = parse_nccl_tests_gpus(text)
    assert gpus.counts == (("nccl-tests header", 2),) and not gpus.partial


def test_verdict_leaves_the_gpu_count_open_where_it_is_a_lower_bound() -> None:
    report = audit_capture(corpus_path("1407"))
    assert report is not None
    assert "--gpus N " in ceiling_command(report) and "--gpus 4" not in ceiling_command(report)


def _result(prefix: str, check: str):  # type: ignore[no-untyped-def]
    report = audit_capture(corpus_path(prefix))
    assert report is not None
    return next(r for r in report.results if r.id == check)


def test_a_cut_topology_matrix_judges_its_rows_not_the_host() -> None:
    # corpus 1404: `topo -m` with rows GPU0 and GPU1 of 8, both SYS to every GPU.
    read = _result("1404", "IC-TOPO-READ")
    assert "8 GPUs on PCIe only" not in read.message and "on every pair shown" in read.message
    assert read.coverage is not None and read.coverage.text() == "2 of 8 GPUs shown"
    placement = _result("1404", "IC-TOPOLOGY-PLACEMENT")
    assert placement.status == "unknown" and placement.coverage is not None
    assert placement.coverage.text() == "2 of 8 GPUs shown" and "every GPU pair shown" in placement.message


def test_custom_allreduce_over_a_cut_matrix_gives_its_coverage() -> None:
    # Modelled text (the shape of corpus 1404 with a TP size and no GPU model): two rows of a 4-GPU matrix.
    text = ("$ vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4\n$ nvidia-smi topo -m\n"
            "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
            "GPU0     X      PIX     SYS     SYS     0-31    0               N/A\n"
            "GPU1    PIX      X      SYS     SYS     0-31    0               N/A\n")
    from stackaudit.engine.testing import run_checks

    result = run_checks(pasted(text), ["IC-CUSTOM-ALLREDUCE"])["IC-CUSTOM-ALLREDUCE"]
    assert result.status == "not-an-issue" and "(TP=4)" in result.message
    assert result.coverage is not None and result.coverage.text() == "2 of 4 GPUs shown"


def test_custom_allreduce_on_corpus_1404_names_the_rows_it_read(tmp_path: Path) -> None:
    # 1404 shows no TP size: on PCIe-only GPUs that are not GeForce the size decides (h68m), so unknown.
    assert _result("1404", "IC-CUSTOM-ALLREDUCE").status == "unknown"
    # Modelled: the same paste with a TP 4 command is judged over the rows the cut matrix shows.
    text = body("1404") + "\npython -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 4\n"
    result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert result.status == "not-an-issue" and "(8 GPUs)" not in result.message
    assert result.coverage is not None and result.coverage.text() == "2 of 8 GPUs shown"


def test_a_header_over_no_rank_line_proves_no_gpu() -> None:
    # corpus 967: a `-g 8` run fails choosing its GPUs (no rank line), the `-g 2` run after it lists both GPUs.
    gpus = parse_nccl_tests_gpus(body("967"))
    assert gpus.counts == (("nccl-tests header", 2),) and not gpus.partial
