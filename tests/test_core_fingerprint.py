"""The host fingerprint bench stores: the audit's observed values, stable across runs of the same host."""

from __future__ import annotations

from stackaudit.engine.fingerprint import host_fingerprint
from stackaudit.host.memory import fake_host

LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max open files            1024                 4096                 files
"""


def _host(pid: int, numa_balancing: str):  # type: ignore[no-untyped-def]
    return fake_host(files={
        "/proc/sys/kernel/numa_balancing": numa_balancing + "\n",
        f"/proc/{pid}/limits": LIMITS, "/proc/self/limits": LIMITS,
        "/proc/self/status": f"Name:\tpython3\nPid:\t{pid}\nPPid:\t1\n",
        f"/proc/{pid}/cmdline": "python3\0-m\0stackaudit\0",
        "/sys/devices/system/node/node0/cpulist": "0-3\n", "/sys/devices/system/node/node1/cpulist": "4-7\n",
    }, commands={"uname -a": "Linux h 6.8.0-45-generic #45-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n"})


def test_fingerprint_names_knobs_and_ignores_pids() -> None:
    a = host_fingerprint(_host(4242, "1"))
    b = host_fingerprint(_host(5151, "1"))
    c = host_fingerprint(_host(5151, "0"))
    assert a["host.kernel"] == "6.8.0-45-generic"
    assert a == b  # only the PIDs differ
    assert a["KERN-NUMA-BALANCING"] != c["KERN-NUMA-BALANCING"]
    assert not any("4242" in v for v in a.values())
