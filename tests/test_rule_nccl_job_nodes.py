"""Whether a NCCL job spans nodes, read from its own log or nccl-tests header (facts/serving_logs.py NcclNodes), and
the checks that matter only between nodes: IC-NCCL-ENV's NCCL_IB_DISABLE, IC-NIC-GPU-AFFINITY, KVER-DMABUF
(issue 28, blind runs DD and BB)."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import NcclNodes

# https://github.com/NVIDIA/nccl/issues/226 (issue body): one NCCL log of a job on many EC2 hosts, verbatim lines.
NCCL_226 = """\
ip-172-31-0-11:45384:45384 [0] NCCL INFO NET/IB : No device found.
NCCL version 2.4.7+cuda9.2
ip-172-31-10-182:45407:45407 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.10.182<0>
ip-172-31-10-182:45407:45407 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
ip-172-31-15-113:11434:11434 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.15.113<0>
"""

# https://github.com/uccl-project/uccl/issues/172 (comment): a two-node nccl-tests header, ranks 0-7 on one host and
# rank 8 on the other; verbatim lines.
UCCL_172 = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 1073741824 step: 2(factor) warmup iters: 50 iters: 50 agg iters: 1 validation: 0 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 600137 on n232-194-227 device  0 [0000:18:00] NVIDIA H800
#  Rank  1 Group  0 Pid 600138 on n232-194-227 device  1 [0000:41:00] NVIDIA H800
#  Rank  2 Group  0 Pid 600139 on n232-194-227 device  2 [0000:4b:00] NVIDIA H800
#  Rank  3 Group  0 Pid 600140 on n232-194-227 device  3 [0000:5d:00] NVIDIA H800
#  Rank  4 Group  0 Pid 600141 on n232-194-227 device  4 [0000:9a:00] NVIDIA H800
#  Rank  5 Group  0 Pid 600142 on n232-194-227 device  5 [0000:bb:00] NVIDIA H800
#  Rank  6 Group  0 Pid 600143 on n232-194-227 device  6 [0000:ca:00] NVIDIA H800
#  Rank  7 Group  0 Pid 600146 on n232-194-227 device  7 [0000:db:00] NVIDIA H800
#  Rank  8 Group  0 Pid 1127072 on n232-194-226 device  0 [0000:0f:00] NVIDIA H800
"""

# https://github.com/NVIDIA/nccl/issues/857 (comment): four ranks of one host "ai", each naming eth0 with one address;
# verbatim lines.
NCCL_857 = """\
ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>
ai:480850:480850 [0] NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>
ai:480850:480850 [0] NCCL INFO Using network Socket
NCCL version 2.10.3+cuda11.3
ai:480852:480852 [2] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>
ai:480852:480852 [2] NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>
ai:480851:480851 [1] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>
ai:480851:480851 [1] NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>
"""

# Modelled: one host's NCCL_IB_DISABLE=1 log whose two interfaces have an address each (one network stack).
ONE_HOST_TWO_INTERFACES = """\
user:852750:852802 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
user:852750:852802 [0] NCCL INFO NET/Socket : Using [0]ibs85f0:192.168.1.14<0> [1]ib0:192.168.1.15<0>
user:852750:852802 [0] NCCL INFO Using network Socket
user:852751:852807 [1] NCCL INFO NCCL_IB_DISABLE set by environment to 1.
user:852751:852807 [1] NCCL INFO NET/Socket : Using [0]ibs85f0:192.168.1.14<0> [1]ib0:192.168.1.15<0>
"""

# Modelled: an MPI-built run's one header whose rank list ends the excerpt after four ranks of one host: the rest of
# the list (other hosts) may be cut.
CUT_LIST = """\
# nThread 1 nGpus 1 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41001 on   gpu-a01 device  0 [0x1b] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid  41002 on   gpu-a01 device  1 [0x1c] NVIDIA A100-SXM4-80GB
#  Rank  2 Group  0 Pid  41003 on   gpu-a01 device  2 [0x3d] NVIDIA A100-SXM4-80GB
#  Rank  3 Group  0 Pid  41004 on   gpu-a01 device  3 [0x3e] NVIDIA A100-SXM4-80GB
"""


def _nodes(text: str) -> NcclNodes:
    value = fact(pasted(text), "nccl_nodes")
    assert isinstance(value, NcclNodes)
    return value


# --- several nodes ---------------------------------------------------------------------------------------------


def test_one_interface_with_two_addresses_is_two_hosts() -> None:
    """Real (nccl-tests#188, capture 673): every line says host 'user', but ibs85f0 has 192.168.1.10 in one process's
    Bootstrap line and 192.168.1.14 in another's NET/Socket line: two network stacks, two hosts."""
    nodes = _nodes(body("673"))
    assert len(nodes.several) == 2 and "192.168.1.10" in nodes.several[0] and "192.168.1.14" in nodes.several[1]
    assert not nodes.one


def test_ib_disabled_on_a_job_between_hosts_is_an_issue() -> None:
    """Real (capture 673): NCCL_IB_DISABLE=1 on a job between two InfiniBand hosts sends their traffic over TCP."""
    r = capture_checks("673", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "multi-node job" in r.message and "192.168.1.14" in r.message


def test_host_names_of_many_hosts_span_nodes() -> None:
    """Real (nccl#226): NCCL lines from ip-172-31-0-11, ip-172-31-10-182 and others."""
    nodes = _nodes(NCCL_226)
    assert nodes.several and "ip-172-31-10-182" in nodes.several[0] and not nodes.one


def test_a_test_header_with_ranks_on_two_hosts_spans_nodes() -> None:
    """Real (uccl#172): ranks 0-7 on n232-194-227, rank 8 on n232-194-226."""
    nodes = _nodes(UCCL_172)
    assert [("n232-194-227" in line, "n232-194-226" in line) for line in nodes.several] == [(True, False),
                                                                                            (False, True)]


def test_a_two_host_test_run_is_not_one_node() -> None:
    """Real (capture 587, nccl-tests#82): broadcast_perf ranks 0 and 1 on v100-gpu-1 and v100-gpu-5."""
    nodes = _nodes(body("587"))
    assert nodes.several and not nodes.one


# --- one node --------------------------------------------------------------------------------------------------


def test_runs_without_mpi_each_on_one_host_are_one_node_runs() -> None:
    """Real (nccl-tests#182, capture 672): two processes each print their own header and rank 0-1 list on their own
    host (nccl-tests built without MPI): two one-node runs, no traffic between the hosts."""
    nodes = _nodes(body("672"))
    assert not nodes.several and len(nodes.one) == 2
    assert "testgpu1" in nodes.one[0] and "testgpu2" in nodes.one[1]
    r = capture_checks("672", "IC-NIC-GPU-AFFINITY", "KVER-DMABUF")
    assert r["IC-NIC-GPU-AFFINITY"].status == "not-applicable"
    assert r["KVER-DMABUF"].status == "not-applicable"


def test_a_whole_list_on_one_host_is_one_node() -> None:
    """Real (capture 351, nccl-tests#117, four RTX 4090 on 'host'; capture 630, nccl#1039, four V100 in one container): the list is followed by
    the test's next lines, so it is whole, and every rank sits on one host."""
    for prefix in ("351", "630"):
        nodes = _nodes(body(prefix))
        assert nodes.one and not nodes.several, prefix


def test_one_host_with_one_address_per_interface_is_not_several() -> None:
    """Real (nccl#857): three ranks of host 'ai' name eth0 with the same address: one host, not two."""
    nodes = _nodes(NCCL_857)
    assert not nodes.several


# --- counter-examples ------------------------------------------------------------------------------------------


def test_two_interfaces_of_one_host_are_not_two_hosts() -> None:
    """Modelled: ibs85f0 and ib0 with an address each is one network stack; IB off there stays the one-host reading."""
    assert not _nodes(ONE_HOST_TWO_INTERFACES).several


def test_a_list_that_ends_the_excerpt_settles_nothing(tmp_path: Path) -> None:
    """Modelled: one header (an MPI build may list more ranks) whose list ends the excerpt after one host's ranks:
    other hosts may follow, so the checks stay unknown."""
    nodes = _nodes(CUT_LIST)
    assert not nodes.one and not nodes.several
    r = paste_checks(tmp_path, CUT_LIST, "IC-NIC-GPU-AFFINITY", "KVER-DMABUF")
    assert r["IC-NIC-GPU-AFFINITY"].status == "unknown"
    assert r["KVER-DMABUF"].status == "unknown" and "rdma" in r["KVER-DMABUF"].message


def test_a_redacted_host_name_settles_nothing() -> None:
    """Real (capture 82, rccl#1129, rccl-tests with its host name redacted to `<redacted>`): a placeholder may stand for several
    hosts, so a whole list under it is not one node."""
    assert not _nodes(body("82")).one


def test_two_hosts_named_alike_name_no_host() -> None:
    """Real (capture 673): both hosts print 'user', but the log is two hosts' lines, so it names no one host."""
    from stackaudit.facts.hostname import Hostname

    assert not isinstance(fact(pasted(body("673")), "hostname"), Hostname)
    assert isinstance(fact(pasted(NCCL_857), "hostname"), Hostname)


# --- NCCL_IB_DISABLE: one host only where shown -------------------------------------------------------------------


def test_ib_disabled_where_the_nodes_are_not_shown_is_unknown() -> None:
    """Real (captures 790, nccl#1591: a Ray head container with /dev/infiniband passed in; 627, a NCCL log that sets
    it): neither shows whether the job spans nodes, so the setting is neither the one-host trap nor an issue."""
    for prefix in ("790", "627"):
        r = capture_checks(prefix, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "unknown" and "whether this job spans nodes is not in the source" in r.message, prefix
        assert "on one host:" not in r.message


def test_ib_disabled_on_a_run_shown_on_one_host_is_the_trap(tmp_path: Path) -> None:
    """Real lines (capture 351, nccl-tests#117: every rank of the run on one host), with NCCL_IB_DISABLE=1 on the
    test's command line (modelled): nothing between hosts to lose."""
    text = "NCCL_IB_DISABLE=1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4\n" + body("351")
    nodes = _nodes(text)
    assert nodes.one and not nodes.several
    r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert "NCCL_IB_DISABLE=1" in r.message and "on one host:" in r.message, r.message
