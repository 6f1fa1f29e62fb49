"""Commands told from prose in fix texts and hints (what the renderers show as whole command lines)."""

from __future__ import annotations

import pytest

from stackaudit.report.commands import as_command, commands_in, split_fix


@pytest.mark.parametrize(("text", "prose", "commands"), [
    # A fix that is one command: the command alone.
    ("sysctl -w kernel.numa_balancing=0", "", ("sysctl -w kernel.numa_balancing=0",)),
    ("prlimit --pid <api-server pid> --nofile=1048576:1048576", "",
     ("prlimit --pid <api-server pid> --nofile=1048576:1048576",)),
    # Several commands: one line each.
    ("echo 1 > /sys/devices/system/cpu/cpufreq/boost; cpupower frequency-set -u <cpuinfo_max_freq>", "",
     ("echo 1 > /sys/devices/system/cpu/cpufreq/boost", "cpupower frequency-set -u <cpuinfo_max_freq>")),
    # A command with a remark: the prose stays, the command is pulled out whole.
    ("cpupower idle-set -D 100 (disables states with exit latency >= 100 µs); or hold /dev/cpu_dma_latency open",
     "cpupower idle-set -D 100 (disables states with exit latency >= 100 µs); or hold /dev/cpu_dma_latency open",
     ("cpupower idle-set -D 100",)),
    ("free memory; swapoff -a if RAM allows; sysctl -w vm.swappiness=10",
     "free memory; swapoff -a if RAM allows; sysctl -w vm.swappiness=10", ("swapoff -a", "sysctl -w vm.swappiness=10")),
    # Backticked spans: commands are pulled out; flags and config lines stay inline code in the prose.
    ("Docker `--ulimit memlock=-1`; systemd `LimitMEMLOCK=infinity`; LXC `lxc.prlimit.memlock = unlimited`",
     "Docker `--ulimit memlock=-1`; systemd `LimitMEMLOCK=infinity`; LXC `lxc.prlimit.memlock = unlimited`", ()),
    ("GPU reset (`nvidia-smi -r -i <n>`, no processes on it)", "GPU reset (`nvidia-smi -r -i <n>`, no processes on it)",
     ("nvidia-smi -r -i <n>",)),
    # Prose only.
    ("none: edit the config and restart the container", "none: edit the config and restart the container", ()),
])
def test_split_fix(text: str, prose: str, commands: tuple[str, ...]) -> None:
    part = split_fix(text)
    assert (part.prose, part.commands) == (prose, commands)


def test_commands_in_hints_and_source_titles() -> None:
    assert commands_in("paste `sudo lspci -vvv` or `nvidia-smi -q -d MEMORY` (BAR1 Memory Usage)") == [
        "sudo lspci -vvv", "nvidia-smi -q -d MEMORY"]
    assert commands_in("the kernel log's `Kernel command line`") == []
    assert commands_in("NVML samples (`audit --sample`)") == ["stackaudit audit --sample"]
    assert commands_in("run on the host") == []
    assert as_command("remove `pci=noaer`") is None and as_command("/usr/sbin/setpci -s 00:01.0 x") is not None
