"""Two hosts in one paste: the first is audited, the other's spans are set aside and listed.

The outputs are real (tests/data/captures, each naming its thread); putting two of them in one paste
is the scenario (threads paste "node 1: ..., node 2: ..." the same way). Lines whose hostnames are
substituted are marked modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, parse_header
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise


def _lines(prefix: str, kind: str) -> list[str]:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return parse_header(path).lines_of(kind)


UNAME_DEBIAN = _lines("80", "uname -a")  # Debian 5.10.0-18-amd64, hostname redacted
UNAME_K8S = _lines("33", "uname -a")  # Ubuntu 5.15.0-130-generic on host vscode-vandp-self-serving
LSCPU_7601 = _lines("49", "lscpu")  # 2x AMD EPYC 7601
LSCPU_7281 = _lines("48", "lscpu")  # 2x AMD EPYC 7281
SMI_4090 = _lines("92", "nvidia-smi")  # 2x RTX 4090
SMI_3090 = _lines("15", "nvidia-smi")  # 2x RTX 3090
CMDLINE_VFIO = _lines("28", "/proc/cmdline")
CMDLINE_MI100 = _lines("82", "/proc/cmdline")
AER_LINES = _lines("43", "journal")  # syslog kernel lines, hostname redacted


def _paste(*parts: list[str]) -> tuple[str, list[int]]:
    """The parts joined by a blank line; and the 1-based line where each part starts."""
    lines: list[str] = []
    starts: list[int] = []
    for part in parts:
        if lines:
            lines.append("")
        starts.append(len(lines) + 1)
        lines.extend(part)
    return "\n".join(lines) + "\n", starts


def test_a_second_kernel_starts_another_hosts_part_of_the_paste() -> None:
    text, starts = _paste(UNAME_DEBIAN, LSCPU_7601, UNAME_K8S, SMI_4090)
    result = recognise(text, "two-nodes.txt")
    rec = result.record
    assert rec.commands[("uname", "-a")].stdout.startswith("Linux <redacted> 5.10.0-18-amd64")
    assert ("lscpu",) in rec.commands
    assert ("nvidia-smi",) not in rec.commands  # after the other host's uname: that host's table
    assert [k for k, _, _ in result.recognised] == ["uname -a", "lscpu"]
    assert result.set_aside[0] == f"uname -a (lines {starts[2]}-{starts[2]}): another host (vscode-vandp-self-serving)"
    assert result.set_aside[1].startswith(f"nvidia-smi (lines {starts[3]}-")
    assert result.set_aside[1].endswith("another host (vscode-vandp-self-serving)")
    assert rec.meta["set_aside"] == result.set_aside


def test_two_lscpu_with_different_models_keep_the_first() -> None:
    text, starts = _paste(LSCPU_7601, LSCPU_7281)
    result = recognise(text)
    assert "EPYC 7601" in result.record.commands[("lscpu",)].stdout
    assert "EPYC 7281" not in result.record.commands[("lscpu",)].stdout
    [entry] = result.set_aside
    assert entry.startswith(f"lscpu (lines {starts[1]}-") and "another host (cpu model AMD EPYC 7281" in entry


def test_two_nvidia_smi_tables_with_different_gpus_keep_the_first() -> None:
    text, _ = _paste(SMI_3090, ["and on the second node:"], SMI_4090)
    result = recognise(text)
    table = result.record.commands[("nvidia-smi",)].stdout
    assert "3090" in table and "4090" not in table
    [entry] = result.set_aside
    assert entry.startswith("nvidia-smi (lines") and "4090" in entry


def test_a_second_command_line_is_found_though_its_recogniser_stops_at_the_first() -> None:
    text, starts = _paste(CMDLINE_VFIO, ["root@node2:~# cat /proc/cmdline"], CMDLINE_MI100)
    result = recognise(text)
    assert result.record.files["/proc/cmdline"].decode().strip() == CMDLINE_VFIO[0].strip()
    [entry] = result.set_aside
    line = starts[2] + 1  # 82 pastes its own `$ cat /proc/cmdline` line first
    assert entry.startswith(f"/proc/cmdline (lines {line}-{line}): another host (cmdline ")
    assert "iommu=pt" in entry


def test_journal_lines_of_two_hostnames_are_split_line_by_line() -> None:
    # Modelled: the real AER lines of 43 with their redacted hostname replaced by two node names.
    node1 = [line.replace("<redacted>", "gpu-node-1") for line in AER_LINES]
    node2 = [line.replace("<redacted>", "gpu-node-2") for line in AER_LINES[:2]]
    lines = [*node1[:3], *node2, *node1[3:]]
    result = recognise("\n".join(lines) + "\n")
    log = result.record.commands[("dmesg",)].stdout
    # The normalisation takes the journal prefixes off; the host they name is recorded once, for the hostname.
    assert log.count("\n") == len(node1) and "gpu-node" not in log
    assert result.record.docs["log_line_hosts"] == "gpu-node-1\n"
    assert result.set_aside == ["dmesg (lines 4-5): another host (gpu-node-2)"]
    assert not result.record.provenance["cmd:dmesg"].whole


def test_a_container_beside_its_host_is_one_machine() -> None:
    # Modelled: inside a container `uname -a` shows the host's kernel under the container's own hostname.
    in_container = [UNAME_K8S[0].replace("vscode-vandp-self-serving", "3f1c9d2e7a4b")]
    docker_inspect = _lines("53", "docker inspect")
    text, _ = _paste(UNAME_K8S, docker_inspect, in_container, SMI_4090)
    result = recognise(text)
    assert result.set_aside == []
    assert ("nvidia-smi",) in result.record.commands


def test_a_proxmox_node_beside_its_lxc_config_is_one_machine() -> None:
    # Modelled Proxmox node uname (6.8.12-9-pve) next to a real LXC config (24) and the node's nvidia-smi.
    node = ["Linux pve 6.8.12-9-pve #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z) x86_64 GNU/Linux"]
    text, _ = _paste(node, _lines("24", "lxc config"), SMI_4090)
    result = recognise(text)
    assert result.set_aside == []
    assert {("uname", "-a"), ("nvidia-smi",)} <= set(result.record.commands)


def test_the_same_output_twice_is_one_host() -> None:
    text, _ = _paste(UNAME_DEBIAN, LSCPU_7601, UNAME_DEBIAN, LSCPU_7601)
    assert recognise(text).set_aside == []


def test_several_files_are_one_host_unless_they_disagree(tmp_path: Path) -> None:
    first = tmp_path / "uname.txt"
    first.write_text("\n".join(UNAME_DEBIAN + LSCPU_7601) + "\n")
    same = tmp_path / "lscpu-again.txt"
    same.write_text("\n".join(LSCPU_7601) + "\n")
    other = tmp_path / "node2.txt"
    other.write_text("\n".join([*UNAME_K8S, "", *SMI_4090]) + "\n")
    one = load_pasted([str(first), str(same)])
    assert "set_aside" not in one.record.meta
    two = load_pasted([str(first), str(same), str(other)])
    aside = two.record.meta["set_aside"]
    assert aside[0] == "node2.txt: uname -a (lines 1-1): another host (vscode-vandp-self-serving)"
    assert aside[1].startswith("node2.txt: nvidia-smi (lines 3-")
    assert ("nvidia-smi",) not in two.record.commands
    assert two.record.commands[("uname", "-a")].stdout.startswith("Linux <redacted> 5.10")


def test_a_mixed_gpu_host_showing_one_of_its_gpus_is_one_host() -> None:
    # Modelled: the 3090 table of 15 with the first 4090 row of 92 added (a host with both cards), then the
    # 4090 table of 92 as `nvidia-smi -i 1` on the same host would show it.
    row_4090 = next(line for line in SMI_4090 if "RTX 4090" in line)
    mixed = [*SMI_3090, row_4090]
    text, _ = _paste(mixed, ["and the same host, -i 1:"], SMI_4090)
    assert recognise(text).set_aside == []
    text, _ = _paste(SMI_3090, ["and the other node:"], SMI_4090)
    assert recognise(text).set_aside  # no model in common: two hosts


def test_a_boot_loader_entry_is_not_a_second_command_line() -> None:
    grub_entry = "\tlinux\t/vmlinuz-5.15.0-101-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro iommu=pt"  # modelled
    text, _ = _paste(CMDLINE_VFIO, ["and grub.cfg has:"], [grub_entry], UNAME_DEBIAN)
    result = recognise(text)
    assert result.set_aside == []
    assert ("uname", "-a") in result.record.commands


def test_the_report_says_it_audited_the_first_host(tmp_path: Path) -> None:
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.report.json_report import report_to_json
    from stackaudit.report.render import render

    text, _ = _paste(UNAME_DEBIAN, LSCPU_7601, UNAME_K8S, SMI_4090)
    path = tmp_path / "two-nodes.txt"
    path.write_text(text)
    report = run_audit(load_pasted([str(path)]), AuditOptions(select=["KVER-AMD-ZEN5"]))
    assert report_to_json(report)["source"]["set_aside"][0].startswith("uname -a (lines")
    assert "This paste holds another host's outputs too: audited the first" in render(report, "text")
