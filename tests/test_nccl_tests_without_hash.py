"""nccl-tests output whose `#` marks were lost (GitHub Markdown renders an unfenced `# ` line as a heading, and
forum copies drop the mark): the header and rank lines still read (importers/nccl_tests.py, facts/gpus.py).

Real pastes are verbatim (the public thread beside each) or corpus captures; counter-examples are modelled where
marked.
"""

from __future__ import annotations

from corpus import capture_checks, fact, pasted

# https://github.com/NVIDIA/nccl/issues/583 (elevenxiang's comment, 2021-10-19): mpirun -np 8 on one A100 host.
A100_NP8 = """mpirun -np 8 all_reduce_perf -b 32 -f 2 -e 8G
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


def test_eight_ranks_without_hash_marks_are_eight_gpus() -> None:
    gpus = fact(pasted(A100_NP8), "gpus")
    assert gpus.count == 8 and set(gpus.models.values()) == {"NVIDIA A100-SXM4-40GB"}


def test_a_one_rank_run_in_an_ec2_vm() -> None:
    # Corpus 382 (NVIDIA/nccl-tests#249): one A10G, one rank, on a g5.8xlarge: no GPU pair, nothing lost to the VM.
    results = capture_checks("382", "FW-VM", "IC-P2P-FUNCTIONAL")
    assert results["FW-VM"].status == "not-an-issue", results["FW-VM"].message
    assert results["IC-P2P-FUNCTIONAL"].status == "not-applicable"


def test_a_rank_sentence_in_prose_is_no_header() -> None:
    # Modelled: prose that names a rank and a device but is no nccl-tests rank line (no Pid, no bus).
    gpus = fact(pasted("Rank 0 on host device 0 hangs after warmup\n"), "gpus")
    assert not hasattr(gpus, "count")  # a Missing: no source of GPUs
