"""Commands told from prose in hints (the "run next" list); fixes carry their commands as data."""

from __future__ import annotations

from stackaudit.report.commands import as_command, commands_in


def test_commands_in_hints_and_source_titles() -> None:
    assert commands_in("paste `sudo lspci -vvv` or `nvidia-smi -q -d MEMORY` (BAR1 Memory Usage)") == [
        "sudo lspci -vvv", "nvidia-smi -q -d MEMORY"]
    assert commands_in("the kernel log's `Kernel command line`") == []
    assert commands_in("NVML samples (`audit --sample`)") == ["stackaudit audit --sample"]
    assert commands_in("run on the host") == []
    assert as_command("remove `pci=noaer`") is None and as_command("/usr/sbin/setpci -s 00:01.0 x") is not None
