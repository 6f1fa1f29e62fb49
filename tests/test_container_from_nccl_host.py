"""container: NCCL lines logged from a container's default hostname (its id's first 12 hex digits) show that the
run was in a container, where no marker file, cgroup or `df` is pasted."""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.container import ContainerInfo


def test_nccl_tests_in_docker() -> None:
    # NVIDIA/nccl-tests#216: "executed within docker"; its NCCL line is logged from host c2ce1c877ea3.
    info = fact(pasted(body("895")), "container")
    assert info.in_container
    assert "c2ce1c877ea3" in info.evidence[0]
    # CTR-SHM-SIZE now asks for what it lacks (the size), not whether there is a container.
    r = capture_checks("895", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "unknown"
    assert "whether it ran in a container" not in r.message


def test_modelled_host_named_node_is_not_a_container() -> None:
    # Modelled: the same NCCL line from a host named `gpu-node-03` says nothing about a container.
    text = ("gpu-node-03:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 "
            "MC handle 0x7f3310ccaa20 size 1073741824\n")
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


def test_modelled_two_container_hosts_are_not_read() -> None:
    # Modelled: ranks from two hosts are a multi-node run; no one container is named.
    text = ("c2ce1c877ea3:1023:1032 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0\n"
            "d3df2d988fb4:1024:1033 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via NET/Socket/0\n")
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


def test_nccl_tests_device_list_from_container_host() -> None:
    # NVIDIA/nccl#258 (corpus 1197): the nccl-tests device list names host 51e6e7896958 for every rank, and the
    # ranks opened devices 0-3: a container whose GPUs reached it.
    info = fact(pasted(body("1197")), "container")
    assert info.in_container
    assert "51e6e7896958" in info.evidence[0]
    r = capture_checks("1197", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok"
    assert "nccl-tests" in r.message


_RANKS = ("#   Rank  0 Pid  12414 on {0} device  0 [0x1a] Tesla V100-SXM3-32GB\n"
          "#   Rank  1 Pid  12415 on {1} device  0 [0x1a] Tesla V100-SXM3-32GB\n")


def test_modelled_nccl_tests_on_named_or_two_hosts_are_not_read() -> None:
    # Modelled: a device list from a host named `dgx-01`, or from two container-id hosts, names no one container.
    for hosts in (("dgx-01", "dgx-01"), ("c2ce1c877ea3", "d3df2d988fb4")):
        assert not isinstance(fact(pasted(_RANKS.format(*hosts)), "container"), ContainerInfo)
