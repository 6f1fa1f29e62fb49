"""Pastes recorded verbatim under their own source (no /sys or /proc file invented), and the fact a
paste gives equals the fact the live source gives, on the fields the paste shows.

Real outputs come from the corpus (tests/data/captures, each with its public thread in its header);
a "live" host is a fake holding the files or commands a real host with the same state would show
(modelled from the paste, and said so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stackaudit.engine.collect import Collector, Missing
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.system import SYSCTL_KEYS, Sysctls
from stackaudit.host.memory import MemoryHost, fake_host
from stackaudit.importers.registry import recognise, strip_header

CORPUS = Path(__file__).parent / "data" / "captures"


def body(prefix: str) -> str:
    return strip_header(next(CORPUS.glob(f"{prefix}-*.txt")).read_text())


def pasted(text: str) -> MemoryHost:
    return MemoryHost(recognise(text).record)


def fact(host: MemoryHost, name: str) -> Any:
    load_facts()
    return Collector(host).results([name])[name]


def invented(host: MemoryHost, *prefixes: str) -> list[str]:
    """Files under /sys or /proc a paste recorded (a paste is a command's output, not a tree)."""
    paths = [*host.record.files, *host.record.dirs, *host.record.errors.get("read", {})]
    return [p for p in paths if p.startswith(prefixes)]


# --- sysctl -a ------------------------------------------------------------------------------------


def test_sysctl_excerpt_is_recorded_verbatim_as_sysctl_a() -> None:
    text = body("88")  # an excerpt of `sysctl -a` in a fence (uds-core#271)
    host = pasted(text)
    recorded = host.run(["sysctl", "-a"]).stdout
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("```")]
    assert recorded.splitlines() == lines  # every line as pasted (kernel.printk keeps its tabs)
    assert "kernel.printk = 4\t4\t1\t7" in recorded
    assert invented(host, "/proc", "/sys") == []
    assert host.record.provenance["cmd:sysctl -a"].whole is False


def test_sysctl_excerpt_equals_proc_sys_on_the_keys_it_shows() -> None:
    from_paste = fact(pasted(body("88")), "sysctls")
    # The same kernel read live: the two keys the excerpt shows, the rest as a live host has them.
    live = fact(fake_host(files={"/proc/sys/kernel/osrelease": "6.5.0-1016-azure\n",
                                 "/proc/sys/kernel/sched_autogroup_enabled": "1\n",
                                 "/proc/sys/kernel/numa_balancing": "1\n"}), "sysctls")
    assert isinstance(from_paste, Sysctls) and isinstance(live, Sysctls)
    assert from_paste.values == {"kernel.osrelease": "6.5.0-1016-azure", "kernel.sched_autogroup_enabled": "1"}
    assert all(live.get(k) == v for k, v in from_paste.values.items())
    # An excerpt proves no absence: kernel.numa_balancing (cut off just above) is unknown, not absent.
    assert "kernel.numa_balancing" in from_paste.unreadable and not from_paste.absent


def whole_sysctl_a(**values: str) -> str:
    """A whole `sysctl -a` (modelled: hundreds of keys from kernel, vm, fs and net)."""
    lines = [f"net.ipv4.conf.veth{i}.rp_filter = 2" for i in range(200)]
    lines += [f"{k} = {v}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def test_whole_sysctl_a_equals_proc_sys_and_proves_absence() -> None:
    keys = {"kernel.numa_balancing": "0", "vm.swappiness": "10", "fs.file-max": "9223372036854775807",
            "kernel.osrelease": "6.8.0-45-generic"}
    host = pasted(whole_sysctl_a(**keys))
    assert host.record.provenance["cmd:sysctl -a"].whole is True and invented(host, "/proc") == []
    from_paste = fact(host, "sysctls")
    # The live host: the same four keys; every other key the checks read does not exist (fake: ENOENT).
    live = fact(fake_host(files={"/proc/sys/" + k.replace(".", "/"): v + "\n" for k, v in keys.items()}), "sysctls")
    assert from_paste.values == live.values == keys
    assert from_paste.absent == live.absent == frozenset(SYSCTL_KEYS) - set(keys)


def test_two_grepped_blocks_join_and_stay_an_excerpt() -> None:
    host = pasted("$ sysctl vm.swappiness\nvm.swappiness = 60\n$ sysctl kernel.numa_balancing\n"
                  "kernel.numa_balancing = 1\n")
    assert host.run(["sysctl", "-a"]).stdout == "vm.swappiness = 60\nkernel.numa_balancing = 1\n"
    value = fact(host, "sysctls")
    assert value.values == {"vm.swappiness": "60", "kernel.numa_balancing": "1"}
    assert host.record.provenance["cmd:sysctl -a"].whole is False


def test_a_paste_without_sysctls_names_both_sources() -> None:
    host = pasted("Linux gpu01 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 x86_64 x86_64 GNU/Linux\n")
    missing = fact(host, "sysctls")
    assert isinstance(missing, Missing) and missing.kind == "not-captured"
    assert missing.reason == "not in the source: /proc/sys, `sysctl -a`"
    assert "sysctl -a" in missing.hint
