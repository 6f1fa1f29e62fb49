"""Issue 28 (recognition): nccl-tests output whose `#` Markdown ate, and the test's command line.

Pasted outside a code fence, `# nThread 1 nGpus 1 ...` loses its `#` and a lone `#` becomes a blank line; the
header and `Rank` lines are still nccl-tests', one rank or many. The command that ran the test
(`./build/all_reduce_perf -b 8 -e 128M -g 1`, under mpirun or srun) is recorded with the run; one quoted as Markdown
inline code, on a line of its own or in a sentence (corpus 774), is the span.

Real lines are quoted from the threads named beside each; the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.importers.recognition import recognise

# https://github.com/NVIDIA/nccl/issues/583 (elevenxiang's comment, 2021-10-19): mpirun -np 8 on one A100 host,
# outside a fence.
NCCL_583 = """mpirun -np 8 all_reduce_perf -b 32 -f 2 -e 8G
 nThread 1 nGpus 1 minBytes 32 maxBytes 8589934592 step: 2(factor) warmup iters: 5       iters: 20 validation: 1 single_test: 0 test_buffer_kind: 2

 Using devices
   Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] NVIDIA A100-SXM4-40GB
   Rank  1 Pid 1821214 on AI-A100-Beethoven01 device  1 [0x00] NVIDIA A100-SXM4-40GB
   Rank  2 Pid 1821215 on AI-A100-Beethoven01 device  2 [0x00] NVIDIA A100-SXM4-40GB
   Rank  3 Pid 1821216 on AI-A100-Beethoven01 device  3 [0x00] NVIDIA A100-SXM4-40GB
   Rank  4 Pid 1821217 on AI-A100-Beethoven01 device  4 [0x00] NVIDIA A100-SXM4-40GB
   Rank  5 Pid 1821218 on AI-A100-Beethoven01 device  5 [0x00] NVIDIA A100-SXM4-40GB
   Rank  6 Pid 1821219 on AI-A100-Beethoven01 device  6 [0x00] NVIDIA A100-SXM4-40GB
   Rank  7 Pid 1821223 on AI-A100-Beethoven01 device  7 [0x00] NVIDIA A100-SXM4-40GB
"""
# https://github.com/NVIDIA/nccl-tests/issues/107 (one GPU on each of two nodes, with its prompt).
NCCL_TESTS_107 = ("ih@ip-172-31-22-230:~/nccl-tests/src$ mpirun -host localhost,172.31.20.228 -np 2 -verbose "
                  "/home/ih/nccl-tests/build/all_reduce_perf -b 1250M -e 1250M -g 1\n")


def _spans(text: str) -> list[tuple[str, int, int]]:
    return [(k, a, b) for k, a, b in recognise(text).recognised if k == "nccl-tests"]


def test_corpus_382_one_rank_without_hashes_is_read() -> None:
    # nccl-tests#249: one A10G, the output pasted outside a fence; the command under mpirun on line 4.
    results = capture_checks("382", "IC-P2P-FUNCTIONAL", "FW-VM")
    assert results["IC-P2P-FUNCTIONAL"].status == "not-applicable"  # one GPU: no pair
    assert results["FW-VM"].status == "not-an-issue"


def test_corpus_351_command_of_a_hung_run_is_read() -> None:
    from corpus import body
    spans = _spans(body("351"))
    # The command of the run that hangs before its Rank lines is read with that run, once.
    assert ("nccl-tests", 4, 7) in spans and ("nccl-tests", 4, 4) not in spans


def test_many_ranks_without_hashes_are_read(tmp_path: Path) -> None:
    assert _spans(NCCL_583) == [("nccl-tests", 1, 12)]  # the command and the run below it
    gpus = paste_checks(tmp_path, NCCL_583, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert gpus.status != "not-applicable"  # three GPUs shown: a pair exists


def test_command_with_prompt_under_mpirun_is_read() -> None:
    assert _spans(NCCL_TESTS_107) == [("nccl-tests", 1, 1)]


# https://github.com/NVIDIA/nccl-tests/issues/107 (ihchoi12's issue body): the command as inline code on its own line.
INLINE_107 = """Here is the command I run:
`mpirun -host localhost,172.31.20.228 -np 2 -verbose /home/ih/nccl-tests/build/all_reduce_perf -b 1250M -e 1250M -g 1`
"""
# https://github.com/nebius/soperator/pull/428 (asteny's description): under srun, with a variable before it.
INLINE_428 = ("`OMPI_MCA_btl_tcp_if_include=eth0 srun --exclusive --mem=0 --nodes=2 --ntasks-per-node=8 --gpus-per-node=8 "
              "--mpi=pmix all_reduce_perf_mpi -b 512M -e 8G -f 2 -g 1`\n")


def test_command_quoted_as_inline_code_is_read() -> None:
    assert ("nccl-tests", 24, 24) in recognise(body("774")).recognised
    assert _spans(INLINE_107) == [("nccl-tests", 2, 2)]
    assert _spans(INLINE_428) == [("nccl-tests", 1, 1)]
    # Modelled: a sentence that quotes the command is read as the span; one that quotes only the name is not.
    assert _spans("I run `./build/all_reduce_perf -b 8 -e 128M -g 2` on the host.\n") == [("nccl-tests", 1, 1)]
    assert _spans("Does `all_reduce_perf` hang for you too?\n") == []


def test_modelled_prose_naming_a_rank_or_the_binary_is_not_read() -> None:
    # Modelled: sentences that name a rank and the binary are no nccl-tests output.
    prose = ("Rank 0 hangs on device 0 after a while.\n"
             "I ran all_reduce_perf and it prints nothing, see the log below.\n")
    assert _spans(prose) == []


def test_eight_ranks_without_hash_marks_are_eight_gpus() -> None:
    gpus = fact(pasted(NCCL_583), "gpus")
    assert gpus.count == 8 and set(gpus.models.values()) == {"NVIDIA A100-SXM4-40GB"}


def test_a_rank_sentence_in_prose_is_no_header() -> None:
    # Modelled: prose that names a rank and a device but is no nccl-tests rank line (no Pid, no bus).
    gpus = fact(pasted("Rank 0 on host device 0 hangs after warmup\n"), "gpus")
    assert not hasattr(gpus, "count")  # a Missing: no source of GPUs


# Modelled: an MPMD launch whose app contexts run a training script, not an nccl-tests program.
MPMD_NOT_A_TEST = """mpirun \\
  --allow-run-as-root -x NCCL_DEBUG=INFO -np 1 --host 10.0.0.1 python train.py --epochs 2 : \\
  --allow-run-as-root -x NCCL_DEBUG=INFO -np 1 --host 10.0.0.1 python train.py --epochs 2
"""


def test_mpmd_launch_of_two_app_contexts_is_one_command() -> None:
    """Corpus 2431 (NVIDIA/nccl#1781): `mpirun \\` over two app contexts, each `-x ... -np 1 --host A
    all_reduce_perf ...`, the first ending ` : \\`, is one command of lines 11-13, and the variables both set are the
    run's: NCCL_DEBUG=TRACE alone, a logging switch."""
    assert ("nccl-tests", 11, 13) in _spans(body("2431"))
    result = capture_checks("2431", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert result.status == "ok" and result.actual == {"NCCL_DEBUG": "TRACE"}


def test_a_continued_command_without_app_contexts_still_reads_whole() -> None:
    """Corpus 1195: `mpirun ... \\` lines over the indented program's line stay one command (lines 2-11)."""
    assert ("nccl-tests", 2, 11) in _spans(body("1195"))


def test_modelled_mpmd_launch_of_another_program_is_not_a_test() -> None:
    assert _spans(MPMD_NOT_A_TEST) == []
