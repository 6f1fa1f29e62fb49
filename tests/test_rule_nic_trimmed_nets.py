"""IC-NIC-GPU-AFFINITY from an NCCL path dump that lists no network device (ServingLog.nets_trimmed; issue 28, blind
XR 1154).

NCCL prints its topology after graph/paths.cc ncclTopoTrimSystem, which removes every NET where the GPUs left on the
node are all the communicator's ranks. A GPU's path line that reaches the CPUs and lists no NET therefore shows a
communicator whole on this node: no traffic of it leaves the node for a NIC to carry (not applicable), whatever NIC
nodes NCCL's system print still shows (1154: a USB adapter attached to the first CPU, and a PCI NIC).
"""

from __future__ import annotations

from corpus import capture_checks
from stackaudit.facts.serving_logs import parse_serving_log

CHECK = "IC-NIC-GPU-AFFINITY"

# nccl#584 (corpus 1154), the two GPU lines of the path dump, verbatim.
NCCL_584 = """\
ubuntu:199574:201479 [1] NCCL INFO GPU/5E000 :GPU/5E000 (0/5000.000000/LOC) GPU/B1000 (3/9.000000/SYS) CPU/0 (1/12.000000/PHB) CPU/1 (2/9.000000/SYS) 
ubuntu:199574:201479 [1] NCCL INFO GPU/B1000 :GPU/5E000 (3/9.000000/SYS) GPU/B1000 (0/5000.000000/LOC) CPU/0 (2/9.000000/SYS) CPU/1 (1/12.000000/PHB) 
"""  # noqa: W291 - NCCL ends each line with a space


def test_path_dump_without_nets_is_not_applicable() -> None:
    got = capture_checks("1154", CHECK)[CHECK]
    assert got.status == "not-applicable", got.message
    assert "no network device" in got.message


def test_the_dump_shows_the_nets_dropped() -> None:
    assert len(parse_serving_log(NCCL_584).nets_trimmed()) == 2


def test_a_net_in_any_line_or_format_keeps_them() -> None:
    """Modelled: one line lists a NET (NCCL 2.19+ writes ids as `NET/0-0`): NCCL kept its NETs."""
    with_net = NCCL_584.replace("CPU/1 (2/9.000000/SYS) \n", "CPU/1 (2/9.000000/SYS) NET/0-0 (5/12.0/PHB) \n", 1)
    assert parse_serving_log(with_net).nets_trimmed() == ()


def test_a_cut_line_or_a_larger_communicator_shows_nothing() -> None:
    """Modelled: a line cut before the CPUs may hide its NETs; a communicator of more ranks than the GPUs listed has
    ranks elsewhere."""
    cut = NCCL_584.splitlines()[0].split(" CPU/0")[0] + "\n"
    assert parse_serving_log(cut).nets_trimmed() == ()
    larger = NCCL_584 + "ubuntu:199574:201479 [1] NCCL INFO comm 0x55d0 rank 1 nranks 4 cudaDev 1 busId b1000 - Init COMPLETE\n"
    assert parse_serving_log(larger).comm_ranks == 4
    assert parse_serving_log(larger).nets_trimmed() == ()
