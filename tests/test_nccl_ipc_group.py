"""ServingLog.ipc_group(): which NCCL ranks a log shows sharing one IPC namespace."""

from __future__ import annotations

from pathlib import Path

from stackaudit.facts.serving_logs import parse_serving_log

CAPTURES = Path(__file__).parent / "data" / "captures"


def _body(prefix: str) -> str:
    (path,) = CAPTURES.glob(f"{prefix}-*.txt")
    return path.read_text().split("----- end of header", 1)[1].split("\n", 1)[1]


def test_one_container_hostname_groups_ranks_whose_channels_do_not_join() -> None:
    """NVIDIA/Megatron-LM#516 (captures/313): the cut shows P2P pairs 0-1, 2-3 and 5-6-7, all from 09677202c889."""
    log = parse_serving_log(_body("313"))
    assert log.container_host() == "09677202c889"
    assert log.ipc_group() == (0, 1, 2, 3, 5, 6, 7)


def test_container_hostname_with_joined_channels_still_groups() -> None:
    """Real (captures/283): a DeepSpeed container's two ranks."""
    log = parse_serving_log(_body("283"))
    assert log.container_host() and log.ipc_group() == (0, 1)


def test_container_hostname_without_two_ranks_groups_nothing() -> None:
    """Real (captures/223): one container's NCCL warnings, no channel between two ranks."""
    log = parse_serving_log(_body("223"))
    assert log.container_host() == "aa30811e22aa" and log.ipc_group() == ()


def test_split_channels_under_a_plain_hostname_group_nothing() -> None:
    """Modelled: the 313 lines under a hostname that is not a container id stay three separate P2P groups."""
    log = parse_serving_log(_body("313").replace("09677202c889", "gpu-node-07"))
    assert log.container_host() == "" and log.ipc_group() == ()


def test_two_container_hostnames_are_two_hosts() -> None:
    """Modelled: ranks 4-7 renamed to a second container: NCCL sees two hosts, no group."""
    text = "\n".join(line.replace("09677202c889", "5c0e1a2b3d4f", 1) if any(f"[{r}]" in line[:30] for r in "4567")
                     else line for line in _body("313").split("\n"))
    log = parse_serving_log(text)
    assert log.container_host() == "" and log.ipc_group() == ()
