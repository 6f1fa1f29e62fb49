"""Issue 28 (recognition): nccl-tests result rows pasted without the header or any `#` line (corpus 446).

A whole result row has 13 columns (size, count, type, redop, root, then time, algbw, busbw and #wrong for
out-of-place and in-place): no other output prints that, so such rows are a run of nccl-tests even when the
`# nThread` header and the `# Rank` lines are cut. Rows under the column header alone are read the same way, the
header lines with them; so is the older table without `root` and with `error` for `#wrong` (corpus 794), and the
summary a run ends with (`# Out of bounds values` over `# Avg bus bandwidth`, corpus 628), with the rows above it.

Real rows are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks
from stackaudit.importers.recognition import recognise

# https://github.com/kvcache-ai/Mooncake/pull/3484 (caozhanhao's description): rows alone in a fence.
ROWS_3484 = """```
       32768          8192     float     sum      -1    18.66    1.76    3.07       0    17.95    1.83    3.20       0
       65536         16384     float     sum      -1    18.95    3.46    6.05       0    18.25    3.59    6.28       0
      131072         32768     float     sum      -1    19.25    6.81   11.91       0    18.43    7.11   12.44       0
```
"""
# https://github.com/crickett-hpe/hpc-ai-envs/pull/21 (karlonw's description): the column header, no nThread or Rank.
ROWS_HPC_AI_ENVS_21 = """#### Better bandwidth at 128M msg sizes than previous run by nearly double
```
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    234.8    4.47    8.37      0    228.6    4.59    8.60      0
     2097152        524288     float     sum      -1    342.1    6.13   11.49      0    343.0    6.11   11.46      0
     4194304       1048576     float     sum      -1    543.7    7.71   14.46      0    546.0    7.68   14.40      0
```
"""
# https://github.com/NVIDIA/nccl-tests/issues/293 (gim4moon): the units line, then the rows.
ROWS_293 = """#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    17.08    0.00    0.00      0    16.76    0.00    0.00      0
          16             4     float     sum      -1    16.72    0.00    0.00      0    16.66    0.00    0.00      0
          32             8     float     sum      -1    16.84    0.00    0.00      0    16.88    0.00    0.00      0
"""


def _spans(text: str) -> list[tuple[int, int]]:
    return [(a, b) for k, a, b in recognise(text).recognised if k == "nccl-tests"]


def test_corpus_446_rows_are_read_and_judge_nothing_they_do_not_show() -> None:
    results = capture_checks("446", "IC-P2P-FUNCTIONAL", "FW-IOMMU-MODE")
    # The rows show no ranks, GPUs or kernel command line.
    assert results["IC-P2P-FUNCTIONAL"].status == "unknown"
    assert results["FW-IOMMU-MODE"].status == "unknown"


def test_rows_alone_in_a_fence_are_read() -> None:
    assert _spans(ROWS_3484) == [(2, 4)]


def test_rows_under_the_column_header_are_read() -> None:
    # The column header and units lines are the table's: read with its rows.
    assert _spans(ROWS_HPC_AI_ENVS_21) == [(3, 7)]
    assert _spans(ROWS_293) == [(1, 4)]


# https://github.com/NVIDIA/nccl/issues/340 (AlexWang1900's issue body): the older rows (no redop, no root, `error`
# for `#wrong`) and the run's summary, its last three rows quoted.
ROWS_SUMMARY_340 = """```
    33554432       4194304   float    817.8   20.51   20.51  0e+00    785.1   21.37   21.37  0e+00
    67108864       8388608   float   1568.3   21.40   21.40  0e+00   1560.9   21.50   21.50  0e+00
   134217728      16777216   float   3298.6   20.34   20.34  0e+00   3070.3   21.86   21.86  0e+00
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 6.6972\x20
"""


def test_corpus_794_older_table_without_its_header_is_read() -> None:
    # The table's own header lines (the first lost its `#` in the paste) over its rows, no `# nThread` header.
    # The prose line above it (`16 H20 GPUs`) is the machine in the user's words, read beside it.
    assert [(k, a, b) for k, a, b in recognise(body("794")).recognised if k != "prose machine"] == [
        ("nccl-tests", 4, 14)]


def test_corpus_628_summary_is_read_as_the_run_s_end() -> None:
    spans = recognise(body("628")).recognised
    assert ("nccl-tests", 4, 6) in spans and not [k for k in spans if k[0] == "evidence line"]


def test_older_rows_with_their_summary_are_read() -> None:
    assert _spans(ROWS_SUMMARY_340) == [(2, 6)]


def test_modelled_lone_pieces_are_not_a_run() -> None:
    # Modelled: the older rows alone (no column header, no summary), a header line with no row under it, and a lone
    # `Out of bounds` line (an evidence line of its own, not a run's summary).
    rows = ROWS_SUMMARY_340.split("# Out")[0]
    header = "#       size         count      type   redop     time   algbw   busbw  error\nno rows were printed\n"
    assert _spans(rows) == [] and _spans(header) == []
    assert _spans("# Out of bounds values : 0 OK\n") == []


def test_modelled_short_rows_and_other_tables_are_not_read() -> None:
    # Modelled: a summary with only the out-of-place columns, and a UCC perftest row (no type, no redop).
    summary = "     4194304       1048576     float     sum      -1    385.4   10.88   16.32\n"
    ucc = "       65536      262144       76.46       72.62       82.30       24.00       25.27       22.30\n"
    assert _spans(summary) == [] and _spans(ucc) == []
