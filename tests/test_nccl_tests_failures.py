"""nccl-tests' own failure lines (`HOST: Test CUDA failure common.cu:941 'invalid device ordinal'`, ` .. HOST pid N:
Test failure common.cu:891`), read with or without the run's header (importers/nccl_tests.py), and what they settle:
CTR-GPU-ACCESS is not an issue where the run asked one host for more GPUs than it has (NcclTestRuns.asked_beyond);
IC-NCCL-ENV reads the `mpirun -x NAME=VALUE` lines of a continued command, and a forced algorithm on runs that all
failed choosing their GPUs shaped no collective (NcclTestRuns.none_started).

Real outputs are quoted from the threads named beside each; modelled counter-examples say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import TEST_FAILURE

# https://github.com/NVIDIA/nccl-tests/issues/54 (TimJZ, 2020-10-24): forty processes on one node of four V100, each
# asking for four GPUs; Markdown ate the header's `#` (trailing spaces dropped).
NCCL_TESTS_54 = """One node with 4 Tesla V100-SXM2 GPUs.

mpirun -np 40 ./build/all_gather_perf -b 8 -e 128M -f 2 -g 4

The error I got was:

 nThread 1 nGpus 1 minBytes 0 maxBytes 134217728 step: 1048576(bytes) warmup iters: 5 iters: 20 validation: 1

 Using devices
e860e6c2d0e6: Test CUDA failure common.cu:732 'invalid device ordinal'
e860e6c2d0e6: Test CUDA failure common.cu:732 'invalid device ordinal'
e860e6c2d0e6: Test CUDA failure common.cu:732 'invalid device ordinal'
"""

# https://github.com/NVIDIA/nccl/issues/348 (qianzhang613, 2020-06-25): two nodes of eight V100, one GPU per process
# and eight slots a node, yet ranks 8-15 start on the first node (trailing spaces dropped): the request fits, so the ordinal
# failure says nothing of which side is at fault.
NCCL_348 = """```
mpirun --allow-run-as-root -tag-output  -np 16  -H  192.168.0.138:8,192.168.0.238:8 -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib -x NCCL_SOCKET_IFNAME=eth1 -x CUDA_DEVICE_ORDER=PCI_BUS_ID all_reduce_perf -g 1 -t 1
[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: 5 iters: 20 validation: 1
[1,0]<stdout>:#
[1,0]<stdout>:# Using devices
[1,13]<stdout>:192.168.0.138: Test CUDA failure common.cu:732 'invalid device ordinal'
[1,15]<stdout>:192.168.0.138: Test CUDA failure common.cu:732 'invalid device ordinal'
[1,14]<stdout>:192.168.0.138: Test CUDA failure common.cu:732 'invalid device ordinal'
```
"""

# Modelled: a run lists four A100 of the host, then a run asking two of them is refused an ordinal: the GPUs the run
# should see are hidden from it, which the failure alone does not settle.
FITS = """$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4
# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4241 on      node1 device  0 [0x07] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid   4241 on      node1 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#  Rank  2 Group  0 Pid   4241 on      node1 device  2 [0x47] NVIDIA A100-SXM4-80GB
#  Rank  3 Group  0 Pid   4241 on      node1 device  3 [0x4e] NVIDIA A100-SXM4-80GB

$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
node1: Test CUDA failure common.cu:941 'invalid device ordinal'
 .. node1 pid 4242: Test failure common.cu:891
"""


def test_failure_lines_of_both_forms() -> None:
    assert TEST_FAILURE.match("g0010: Test CUDA failure common.cu:941 'invalid device ordinal'")["error"] \
        == "invalid device ordinal"
    assert TEST_FAILURE.match(" .. g0010 pid 888386: Test failure common.cu:891")
    # NVIDIA/nccl-tests#166's title: NCCLCHECK's form.
    assert TEST_FAILURE.match("host: Test NCCL failure common.cu:958 'internal error - please report this issue to the "
                              "NCCL developers / '")
    # Modelled: a sentence about a failure is not the test's line.
    assert not TEST_FAILURE.match("The test failure common.cu:941 happens every time")
    assert not TEST_FAILURE.match("Note: Test NCCL failure happens on every node we tried")


def test_a_failure_line_cut_inside_its_source_file_2307() -> None:
    # Corpus 2307 (ten L40S, NCCL_P2P_DISABLE=1): the paste ends inside NCCLCHECK's line, `ubuntu: Test NCCL failure
    # commo`, under NCCL's WARN: the test's own failure line, read with its run.
    from corpus import capture_report, report_spans

    last = _body("2307").splitlines()[19]
    assert last.startswith("ubuntu: Test NCCL failure") and TEST_FAILURE.match(last)
    assert ("nccl-tests", 20, 20) in report_spans(capture_report("2307"))
    # NVIDIA/nccl-tests#166's line cut after `failure` (modelled from its title).
    assert TEST_FAILURE.match("host: Test NCCL failure")


def test_corpus_966_and_967_failure_lines_are_nccl_tests_output() -> None:
    runs = fact(pasted(_body("966")), "nccl_test_runs")
    # Corpus 966 (nccl-tests#263): the continued mpirun command and the failures under `# Using devices`.
    assert runs.runs[0][0] == "all_reduce_perf" and ("NCCL_ALGO", "Ring") in runs.runs[0][1]
    assert runs.ordinal_failures[0] == ("g0010: Test CUDA failure common.cu:941 'invalid device ordinal'", 8, 1, 8)
    assert runs.none_started
    # Corpus 967 (nccl-tests#289): the -g 8 run failed choosing its GPUs, the -g 2 run listed both.
    runs = fact(pasted(_body("967")), "nccl_test_runs")
    assert runs.ordinal_failures == (("localhost: Test CUDA failure common.cu:986 'invalid device ordinal'", 1, 1, 8),)
    assert not runs.none_started


def _body(prefix: str) -> str:
    from corpus import body

    return body(prefix)


def test_corpus_966_eight_processes_each_asking_eight_gpus() -> None:
    r = capture_checks("966", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "not-an-issue" and "64 GPUs (8 process(es) x 1 thread(s) x 8 GPU(s)" in r.message
    assert "DGX-2" in r.message


def test_corpus_967_eight_asked_of_two() -> None:
    r = capture_checks("967", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "not-an-issue" and "asked one host for 8 GPUs" in r.message and "the 2 GPUs" in r.message


def test_forty_processes_on_four_gpus(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_TESTS_54, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "not-an-issue" and "40 process(es)" in r.message


def test_a_request_that_fits_stays_open(tmp_path: Path) -> None:
    # Real (NVIDIA/nccl#348): eight one-GPU processes a node fit eight-GPU nodes.
    assert fact(pasted(NCCL_348), "nccl_test_runs").ordinal_failures[0][1:] == (8, 1, 1)
    assert paste_checks(tmp_path, NCCL_348, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
    # Modelled: two GPUs asked of the four a run listed.
    assert fact(pasted(FITS), "nccl_test_runs").ordinal_failures[0][1:] == (1, 1, 2)
    assert fact(pasted(FITS), "gpus").whole_count == 4
    assert paste_checks(tmp_path, FITS, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_corpus_966_forced_ring_on_a_run_that_never_started() -> None:
    r = capture_checks("966", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "NCCL_ALGO=Ring" in r.message and "invalid device ordinal" in r.message


def test_forced_ring_on_a_run_that_ran_is_still_judged() -> None:
    # Corpus 478: NCCL_ALGO=Ring on a run that reached its table is still a forced choice.
    assert capture_checks("478", "IC-NCCL-ENV")["IC-NCCL-ENV"].status == "issue"


# https://github.com/NVIDIA/nccl-tests/issues/171 (SweeneyJun, 2023-10-23), cut after the rank lines: a hostfile
# launch that passes NCCL variables from the shell with `-x NAME`, their values not shown.
NCCL_TESTS_171 = """```
/home/myusername/openmpi/bin/mpirun --mca plm_rsh_agent /usr/bin/ssh --mca btl_tcp_if_include custom-L -np 2 --hostfile ./hostMPI -x LD_LIBRARY_PATH -x PATH -x CUDA_VISIBLE_DEVICES -x NCCL_ALGO -x NCCL_BUFFSIZE -x NCCL_CHECK_POINTERS -x NCCL_COMM_BLOCKING -x NCCL_CROSS_NIC -x NCCL_DEBUG -x NCCL_DMABUF_ENABLE -x NCCL_GDR_READ -x NCCL_GRAPH_MIXING_SUPPORT -x NCCL_GRAPH_REGISTER -x NCCL_IGNORE_CPU_AFFINITY /home/myusername/nccl-tests/build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 307887 on     sniper device  0 [0x02] NVIDIA TITAN Xp
#  Rank  1 Group  0 Pid 307887 on     sniper device  1 [0x82] NVIDIA TITAN Xp
#  Rank  2 Group  0 Pid   6780 on      slark device  0 [0x03] NVIDIA TITAN Xp
#  Rank  3 Group  0 Pid   6780 on      slark device  1 [0x82] NVIDIA TITAN Xp
```
"""


def test_values_passed_from_the_shell_are_not_shown(tmp_path: Path) -> None:
    runs = fact(pasted(NCCL_TESTS_171), "nccl_test_runs")
    assert runs.passed[:2] == ("NCCL_ALGO", "NCCL_BUFFSIZE")
    r = paste_checks(tmp_path, NCCL_TESTS_171, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "unknown" and "NCCL_ALGO" in r.message and "mpirun -x" in r.message
    # Modelled: the same launch with the values on the line is judged from them.
    shown = NCCL_TESTS_171.replace("-x NCCL_ALGO -x NCCL_BUFFSIZE -x NCCL_CHECK_POINTERS -x NCCL_COMM_BLOCKING "
                                   "-x NCCL_CROSS_NIC -x NCCL_DEBUG -x NCCL_DMABUF_ENABLE -x NCCL_GDR_READ "
                                   "-x NCCL_GRAPH_MIXING_SUPPORT -x NCCL_GRAPH_REGISTER -x NCCL_IGNORE_CPU_AFFINITY",
                                   "-x NCCL_DEBUG=INFO")
    assert fact(pasted(shown), "nccl_test_runs").passed == ()
    assert paste_checks(tmp_path, shown, "IC-NCCL-ENV")["IC-NCCL-ENV"].status == "ok"  # logging alone


def test_a_hostfile_launch_asks_at_least_one_process_worth(tmp_path: Path) -> None:
    # Modelled on nccl-tests#171 ("setting it to 3 results in an error when only two GPUs are available"): the -g 2
    # run lists two GPUs a host, then the hostfile launch with -g 3 is refused an ordinal.
    text = NCCL_TESTS_171.replace("```\n\"\"\"", "") + (
        "$ mpirun -np 2 --hostfile ./hostMPI /home/myusername/nccl-tests/build/all_reduce_perf -b 8 -e 128M -f 2 -g 3\n"
        "# nThread 1 nGpus 3 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0\n#\n# Using devices\n"
        "sniper: Test CUDA failure common.cu:892 'invalid device ordinal'\n .. sniper pid 307999: Test failure common.cu:842\n")
    assert fact(pasted(text), "nccl_test_runs").ordinal_failures[0][1:] == (None, 1, 3)
    r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "not-an-issue" and "at least 3 GPUs" in r.message, r.message


def test_processes_per_host_as_launchers_write_them() -> None:
    # Modelled command lines, each over one failure line: (the launch, the processes per host read).
    fail = "h: Test CUDA failure common.cu:941 'invalid device ordinal'\n"
    for launch, procs in (("", 1), ("mpirun -np 4 ", 4), ("mpirun -npernode 8 -np 16 ", 8),
                          ("mpirun --map-by ppr:4:node -np 8 ", 4), ("mpirun --map-by ppr:2:socket -np 8 ", 8),
                          ("srun --ntasks-per-node=8 ", 8), ("srun -N 2 -n 16 ", None),
                          ("mpirun -np 16 --hostfile hosts ", None), ("mpirun -H a:2,b:2 -np 4 ", 2),
                          # the launchers and rank options of processes.RANK_LAUNCHERS, also read by engine commands
                          ("/usr/bin/mpiexec -n=2 ", 2), ("orterun -c 3 ", 3), ("NCCL_DEBUG=INFO mpirun --np 6 ", 6),
                          ("mpirun -np x -n 2 ", 2)):
        runs = fact(pasted(f"{launch}./build/all_reduce_perf -b 8 -e 128M -g 1\n# Using devices\n{fail}"),
                    "nccl_test_runs")
        assert runs.ordinal_failures[0][1] == procs, launch
