"""Rule: a pasted llama-bench table shows llama.cpp at work, with the split modes its runs name
(facts/parallelism.BenchSplit; issue 28).

- The engines shown (facts/engines_shown.py) name llama.cpp: vLLM/SGLang custom all-reduce is not applicable there
  (IC-CUSTOM-ALLREDUCE), whatever the GPUs' links.
- A table whose runs name a split over GPUs (`sm` column `row`, compare-llama-bench's `t/s -sm tensor`) and no device,
  share or main GPU of their own ran over every GPU the benchmark sees: on a host whose whole count is shown, a group
  of every GPU has no placement to choose (IC-TOPOLOGY-PLACEMENT not-an-issue, facts/parallelism.group_of_every_gpu).
  A table that names no split mode (the default layer split is not printed), or names its devices, is not read so.
- Its `-sm row` / `-sm tensor` are the flags a command would show: NCCL may carry those splits, so the NCCL checks
  stay open (applicability.SPLIT_OVER_GPUS); a layer split alone builds no NCCL communicator.

Real paste: 2902 (ggml-org/llama.cpp#19378: compare-llama-bench's `t/s -sm layer | t/s -sm tensor` on 4x RTX 4090).
The variants below are modelled: llama-bench's own markdown table (its `sm`, `dev` columns) written as it prints.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.parallelism import parallelism_from_llama_bench

_PLACEMENT, _AR, _NCCL = "IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE", "IC-NCCL-ENV"

# llama-bench's markdown table (modelled on its printer: the `sm` column printed for a mode other than the default).
_BENCH = """\
Performance on 8x RTX 3090:

| model                          |       size |     params | backend    | ngl |    sm |          test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ----: | ------------: | -------------------: |
| llama 70B Q4_K - Medium        |  39.59 GiB |    70.55 B | CUDA       |  99 |   row |         pp512 |        612.31 ± 2.10 |
| llama 70B Q4_K - Medium        |  39.59 GiB |    70.55 B | CUDA       |  99 |   row |         tg128 |         17.02 ± 0.04 |
"""


def test_compare_table_over_the_hosts_four_gpus() -> None:
    results = capture_checks("2902", _PLACEMENT, _AR, _NCCL)
    placement = results[_PLACEMENT]
    assert placement.status == "not-an-issue" and "every GPU" in placement.message
    assert "-sm layer, -sm tensor" in placement.message
    assert placement.coverage.count == 4 and placement.coverage.total == 4
    assert results[_AR].status == "not-applicable" and "llama.cpp" in results[_AR].message
    # `-sm tensor` may reduce over NCCL: the NCCL check is not closed by the engine's name.
    assert results[_NCCL].status != "not-applicable"


def test_modelled_layer_split_alone_builds_no_communicator(tmp_path: Path) -> None:
    text = body("2902").replace("t/s -sm tensor", "t/s -sm layer ")
    results = paste_checks(tmp_path, text, _NCCL, _PLACEMENT)
    assert results[_NCCL].status == "not-applicable" and "llama.cpp" in results[_NCCL].message
    assert results[_PLACEMENT].status == "not-an-issue"


def test_modelled_llama_bench_row_split_on_eight_gpus(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, _BENCH, _PLACEMENT, _AR, _NCCL)
    assert results[_PLACEMENT].status == "not-an-issue" and "-sm row" in results[_PLACEMENT].message
    assert results[_PLACEMENT].coverage.total == 8
    assert results[_AR].status == "not-applicable"
    assert results[_NCCL].status != "not-applicable"


def test_modelled_table_without_a_split_mode_or_with_devices_is_no_group(tmp_path: Path) -> None:
    # The default layer split prints no `sm` column: one GPU may be all the benchmark was given.
    plain = _BENCH.replace("|    sm ", "").replace("| ----: ", "", 1).replace("|   row ", "")
    results = paste_checks(tmp_path, plain, _PLACEMENT, _AR)
    assert results[_PLACEMENT].status == "unknown"
    assert results[_AR].status == "not-applicable"
    # A `dev` column names the devices each run used: they may be fewer than the host's.
    devices = _BENCH.replace("|    sm |", "|    sm | dev           |").replace("| ----: |", "| ----: | ------------- |") \
        .replace("|   row |", "|   row | CUDA0/CUDA1   |")
    results = paste_checks(tmp_path, devices, _PLACEMENT)
    assert results[_PLACEMENT].status == "unknown"


def test_parser_reads_sm_column_and_headings() -> None:
    [bench] = parallelism_from_llama_bench(_BENCH.split("\n", 2)[2]).benches
    assert bench.engine == "llamacpp" and bench.modes == ("row",) and not bench.narrowed
    assert bench.over_every_gpu == "-sm row" and bench.flags == ("-sm", "row")
    [bench] = parallelism_from_llama_bench(body("2902").split("\n", 3)[3]).benches
    assert bench.modes == ("layer", "tensor")
    none = _BENCH.replace("|   row |", "|  none |")
    [bench] = parallelism_from_llama_bench(none).benches
    assert bench.modes == ("none",) and bench.over_every_gpu == ""
    try:
        parallelism_from_llama_bench("| GPU | Name |\n| 0 | RTX 3090 |\n")
    except ParseError:
        pass
    else:
        raise AssertionError("a table that is no llama-bench table was read")
