"""Reboot survival (KERN-PERSIST-BOOT): for each persistence mechanism, a fake tree where the runtime value
and the persistent configuration agree and one where they disagree, plus the precedence rules
(/etc masking /usr/lib, the later sysctl.d file winning, /etc/sysctl.conf last, tuned over sysctl.d, GRUB vs
systemd-boot by the boot loader in use). The trees are modelled on stock layouts (modelled, not captured).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from scenario_builder import Parts, build_host, cpu_topology, merge, numa_layout, sysctls
from stackaudit.checks._persist_eval import Boot, Facts, at_boot
from stackaudit.checks.persist import catalogue_settings, owns_a_setting
from stackaudit.checks.registry import load_all as load_checks
from stackaudit.engine.collect import Collector
from stackaudit.engine.testing import run_checks
from stackaudit.facts.boot_loader import LOADER_INFO
from stackaudit.facts.registry import FactUnavailable
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.fixes.persist import Setting
from stackaudit.host.memory import error_name, fake_host

load_facts()
ID = "KERN-PERSIST-BOOT"
GRUB = {"/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/sda1 ro quiet\n"}
# systemd-boot: no BOOT_IMAGE= on the command line, and its LoaderInfo EFI variable (facts/boot_loader.py).
SYSTEMD_BOOT = {"/proc/cmdline": "initrd=\\initrd.img root=/dev/sda1 ro quiet\n", LOADER_INFO: b"s\x00d\x00"}
WANTS = "/etc/systemd/system/multi-user.target.wants/"


def owners() -> list[Any]:
    """The checks whose results KERN-PERSIST-BOOT reads."""
    return [spec for spec in load_checks().values() if owns_a_setting(spec)]


def setting(check: str, suffix: str = "") -> Setting:
    return next(s for s in catalogue_settings(owners()) if s.check == check and s.target.endswith(suffix))


def facts_of(files: dict[str, Any], **host: Any) -> Facts:
    """The facts KERN-PERSIST-BOOT reads, from a fake tree through the facts' providers (None where missing)."""
    collector = Collector(fake_host(files=files, **host))
    values: dict[str, Any] = {}
    for f in fields(Facts):
        try:
            values[f.name] = collector.fact(f.name, object)
        except FactUnavailable:
            values[f.name] = None
    return Facts(**values)


def boot(check: str, files: dict[str, Any], suffix: str = "", **host: Any) -> Boot:
    """What the next boot sets for `check`'s setting, read from a fake tree."""
    return at_boot(setting(check, suffix), facts_of(files, **host))


# --- sysctl.d ----------------------------------------------------------------------------------

NUMA = "KERN-NUMA-BALANCING"


@pytest.mark.parametrize(("files", "kept", "where"), [
    ({"/etc/sysctl.d/90-llm-serving.conf": "kernel.numa_balancing = 0\n"}, True, "/etc/sysctl.d/90-llm-serving.conf:1"),
    ({"/etc/sysctl.d/90-llm-serving.conf": "# tuned\nkernel.numa_balancing=1\n"}, False,
     "/etc/sysctl.d/90-llm-serving.conf:2"),
    # the slash form and a leading `-` are the same key
    ({"/etc/sysctl.d/90-x.conf": "-kernel/numa_balancing = 0\n"}, True, "/etc/sysctl.d/90-x.conf:1"),
    # a /etc file masks the /usr/lib file of the same name; /run masks /usr/lib too
    ({"/usr/lib/sysctl.d/60-numa.conf": "kernel.numa_balancing = 1\n",
      "/etc/sysctl.d/60-numa.conf": "kernel.numa_balancing = 0\n"}, True, "/etc/sysctl.d/60-numa.conf:1"),
    ({"/usr/lib/sysctl.d/60-numa.conf": "kernel.numa_balancing = 1\n",
      "/run/sysctl.d/60-numa.conf": "kernel.numa_balancing = 0\n"}, True, "/run/sysctl.d/60-numa.conf:1"),
    ({"/etc/sysctl.d/60-numa.conf": "kernel.numa_balancing = 0\n",
      "/run/sysctl.d/60-numa.conf": "kernel.numa_balancing = 1\n"}, True, "/etc/sysctl.d/60-numa.conf:1"),
    # the lexicographically later file wins, whatever its directory
    ({"/etc/sysctl.d/10-llm.conf": "kernel.numa_balancing = 0\n",
      "/usr/lib/sysctl.d/99-vendor.conf": "kernel.numa_balancing = 1\n"}, False, "/usr/lib/sysctl.d/99-vendor.conf:1"),
    ({"/usr/lib/sysctl.d/10-vendor.conf": "kernel.numa_balancing = 1\n",
      "/etc/sysctl.d/90-llm.conf": "kernel.numa_balancing = 0\n"}, True, "/etc/sysctl.d/90-llm.conf:1"),
    # /etc/sysctl.conf is applied last
    ({"/etc/sysctl.d/99-z.conf": "kernel.numa_balancing = 0\n", "/etc/sysctl.conf": "\nkernel.numa_balancing = 1\n"},
     False, "/etc/sysctl.conf:2"),
    # a glob sets every key it matches
    ({"/etc/sysctl.d/90-x.conf": "kernel.numa_balanc* = 0\n"}, True, "/etc/sysctl.d/90-x.conf:1"),
])
def test_sysctl_d_precedence(files: dict[str, str], kept: bool, where: str) -> None:
    got = boot(NUMA, files)
    assert (got.kept, got.where, got.unread) == (kept, where, [])


def test_sysctl_nothing_sets_it() -> None:
    got = boot(NUMA, {"/etc/sysctl.d/10-other.conf": "vm.swappiness = 60\n"})
    assert (got.value, got.unread) == (None, [])


def test_tuned_sysctl_overrides_sysctl_d_only_while_tuned_is_enabled() -> None:
    files = {"/etc/sysctl.d/90-llm.conf": "kernel.numa_balancing = 0\n", "/etc/tuned/active_profile": "llm\n",
             "/etc/tuned/llm/tuned.conf": "[main]\ninclude=throughput-performance\n[sysctl]\nkernel.numa_balancing=1\n",
             "/usr/lib/tuned/throughput-performance/tuned.conf": "[cpu]\ngovernor=performance\n"}
    on = boot(NUMA, {**files, WANTS + "tuned.service": ""})
    assert not on.kept and on.value == "1" and "tuned profile llm" in on.where
    off = boot(NUMA, files)
    assert off.kept and off.where == "/etc/sysctl.d/90-llm.conf:1"


def test_tuned_include_and_etc_profile_masks_usr_lib() -> None:
    files = {"/etc/tuned/active_profile": "llm\n", WANTS + "tuned.service": "",
             "/etc/tuned/llm/tuned.conf": "[main]\ninclude=base\n",
             "/usr/lib/tuned/base/tuned.conf": "[sysctl]\nvm.swappiness=60\n",
             "/proc/sys/vm/swappiness": "10\n"}
    assert boot("KERN-SWAP", files).value == "60"
    masked = boot("KERN-SWAP", {**files, "/etc/tuned/base/tuned.conf": "[sysctl]\nvm.swappiness=10\n"})
    assert masked.kept and "/etc/tuned/base/tuned.conf" in masked.where


def test_snapshot_without_sysctl_d_is_unknown_never_ok() -> None:
    host = fake_host(files={"/proc/sys/kernel/numa_balancing": "0\n"}, strict=True)
    values = {}
    for f in fields(Facts):
        try:
            values[f.name] = Collector(host).fact(f.name, object)
        except FactUnavailable:
            values[f.name] = None
    got = at_boot(setting(NUMA), Facts(**values))
    assert not got.kept and got.unread


# --- modules-load.d and modprobe.d -------------------------------------------------------------

PEERMEM = "IC-NVIDIA-PEERMEM"


@pytest.mark.parametrize(("files", "value", "kept"), [
    ({"/etc/modules-load.d/nvidia-peermem.conf": "# GPUDirect RDMA\nnvidia-peermem\n"}, "loaded", True),
    ({"/etc/modules": "# /etc/modules\nnvidia_peermem\n"}, "loaded", True),
    ({"/etc/modules-load.d/rdma.conf": "ib_umad\n"}, None, False),
    # listed, but modprobe.d refuses it
    ({"/etc/modules-load.d/nvidia-peermem.conf": "nvidia-peermem\n",
      "/etc/modprobe.d/blacklist-peermem.conf": "install nvidia_peermem /bin/false\n"}, "refused", False),
    # an empty /etc file masks the vendor list of the same name
    ({"/usr/lib/modules-load.d/gpu.conf": "nvidia-peermem\n", "/etc/modules-load.d/gpu.conf": ""}, None, False),
])
def test_modules_load_d(files: dict[str, str], value: str | None, kept: bool) -> None:
    got = boot(PEERMEM, files)
    assert (got.value, got.kept) == (value, kept)


def test_modprobe_options_and_blacklist_are_parsed() -> None:
    from stackaudit.facts.modprobe_config import parse_modprobe_d

    config = parse_modprobe_d("/etc/modprobe.d/nvidia.conf",
                              "options nvidia NVreg_EnableResizableBar=1 NVreg_X=0\nblacklist nouveau\n")
    assert config.options[0][1:] == ("NVreg_EnableResizableBar", "1") and config.blacklist[0].module == "nouveau"


# --- tmpfiles.d, udev, local oneshot units -----------------------------------------------------

THP = "KERN-THP"
DEFRAG = "/sys/kernel/mm/transparent_hugepage/defrag"


@pytest.mark.parametrize(("files", "value", "kept"), [
    ({"/etc/tmpfiles.d/thp-defrag.conf": f"w {DEFRAG} - - - - defer+madvise\n"}, "defer+madvise", True),
    ({"/etc/tmpfiles.d/thp-defrag.conf": f"w {DEFRAG} - - - - always\n"}, "always", False),
    # tmpfiles.d: the lexicographically earliest file wins
    ({"/etc/tmpfiles.d/10-a.conf": f"w {DEFRAG} - - - - defer+madvise\n",
      "/usr/lib/tmpfiles.d/20-b.conf": f"w {DEFRAG} - - - - always\n"}, "defer+madvise", True),
    ({"/etc/systemd/system/thp.service": f"[Service]\nType=oneshot\nExecStart=/bin/sh -c 'echo defer+madvise > {DEFRAG}'\n",
      WANTS + "thp.service": ""}, "defer+madvise", True),
    # the same unit, not enabled, keeps nothing
    ({"/etc/systemd/system/thp.service": f"[Service]\nExecStart=/bin/sh -c 'echo defer+madvise > {DEFRAG}'\n"},
     None, False),
])
def test_tmpfiles_and_oneshot(files: dict[str, str], value: str | None, kept: bool) -> None:
    got = boot(THP, files)
    assert (got.value, got.kept) == (value, kept)


@pytest.mark.parametrize(("rule", "kept"), [
    ('SUBSYSTEM=="cpu", ACTION=="add", ATTR{cpufreq/energy_performance_preference}="performance"\n', True),
    ('SUBSYSTEM=="cpu", ACTION=="add", \\\n  ATTR{cpufreq/energy_performance_preference}="power"\n', False),
])
def test_udev_attr(rule: str, kept: bool) -> None:
    got = boot("KERN-EPP", {"/etc/udev/rules.d/90-epp.rules": rule})
    assert got.kept is kept and got.where == "/etc/udev/rules.d/90-epp.rules:1"


# --- the boot loader's command line ---------------------------------------------------------------

GOVERNOR = "KERN-CPUFREQ-GOVERNOR"


@pytest.mark.parametrize(("files", "kept", "where"), [
    ({**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet cpufreq.default_governor=performance"\n'},
     True, "/etc/default/grub:1"),
    ({**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n',
      "/etc/default/grub.d/90-gov.cfg":
      'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT cpufreq.default_governor=performance"\n'},
     True, "/etc/default/grub.d/90-gov.cfg:1"),
    ({**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX="cpufreq.default_governor=powersave"\n'},
     False, "/etc/default/grub:1"),
    # systemd-boot in use: /etc/kernel/cmdline counts, /etc/default/grub does not
    ({**SYSTEMD_BOOT, "/etc/kernel/cmdline": "root=/dev/sda1 ro cpufreq.default_governor=performance\n",
      "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="cpufreq.default_governor=powersave"\n'},
     True, "/etc/kernel/cmdline:1"),
    ({**SYSTEMD_BOOT, "/etc/kernel/cmdline": "root=/dev/sda1 ro\n",
      "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="cpufreq.default_governor=performance"\n'}, None, ""),
    ({**SYSTEMD_BOOT, "/boot/loader/entries/a.conf": "title A\noptions root=/dev/sda1 cpufreq.default_governor=performance\n",
      "/boot/loader/entries/b.conf": "title B\noptions cpufreq.default_governor=performance quiet\n"},
     True, "/boot/loader/entries/a.conf:2"),
])
def test_boot_loader_command_line(files: dict[str, str], kept: bool | None, where: str) -> None:
    got = boot(GOVERNOR, files, "scaling_governor")
    assert got.where.split(" (")[0] == where
    assert got.kept is (kept or False)


def test_tuned_cpu_governor_applies_after_the_command_line() -> None:
    files = {**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="cpufreq.default_governor=performance"\n',
             "/etc/tuned/active_profile": "powersave\n", WANTS + "tuned.service": "",
             "/usr/lib/tuned/powersave/tuned.conf": "[cpu]\ngovernor=ondemand|powersave\n"}
    got = boot(GOVERNOR, files, "scaling_governor")
    assert (got.value, got.kept) == ("ondemand", False) and "tuned profile powersave" in got.where


def test_tuned_force_latency_keeps_deep_idle_states_out() -> None:
    files = {"/etc/tuned/active_profile": "latency-performance\n", WANTS + "tuned.service": "",
             "/usr/lib/tuned/latency-performance/tuned.conf": "[cpu]\nforce_latency=1\n"}
    assert boot("KERN-CSTATES", files).kept
    assert not boot("KERN-CSTATES", {**files, "/usr/lib/tuned/latency-performance/tuned.conf": "[cpu]\n"}).kept


# --- systemd units -------------------------------------------------------------------------------

@pytest.mark.parametrize(("files", "links", "value"), [
    ({WANTS + "nvidia-persistenced.service": ""}, {}, "enabled"),
    ({"/etc/systemd/system/default.target.wants/other.service": ""}, {}, None),
    ({WANTS + "nvidia-persistenced.service": ""}, {"/etc/systemd/system/nvidia-persistenced.service": "/dev/null"},
     "masked"),
])
def test_unit_enabled(files: dict[str, str], links: dict[str, str], value: str | None) -> None:
    dirs = {"/etc/systemd/system": sorted({p.split("/")[4] for p in [*files, *links]})}
    assert boot("DRV-PERSISTENCE", files, links=links, dirs=dirs).value == value


# --- the whole check ---------------------------------------------------------------------------------

def numa_host(*parts: Parts, nodes: int = 2, value: int = 0, unreadable: str = "") -> Any:
    layout = numa_layout(nodes, 8, 1)
    host = build_host(merge(cpu_topology(layout, 64 * 1024 * 1024), sysctls(kernel__numa_balancing=value), *parts),
                      "gpu01")
    if unreadable:
        host.record.errors["list"][unreadable] = error_name(PermissionError(13, "Permission denied"))
    return host


def result(host: Any) -> Any:
    return run_checks(host, select=[ID])[ID]


def test_check_issue_names_runtime_and_boot_values_and_gives_the_fix() -> None:
    r = result(numa_host(Parts(files={"/usr/lib/sysctl.d/50-default.conf": "kernel.numa_balancing = 1\n"})))
    assert r.status == "issue" and r.message.startswith("right now, lost at reboot")
    assert "kernel.numa_balancing: 0 now, at boot 1 from /usr/lib/sysctl.d/50-default.conf:1" in r.message
    lines = [c.line for s in r.fix.steps for c in s.commands]
    # a later-named /etc file wins over the vendor file
    assert lines == ["echo 'kernel.numa_balancing = 0' >> /etc/sysctl.d/99-zz-llm-serving.conf"]


def test_check_fix_edits_the_etc_line_that_sets_another_value() -> None:
    r = result(numa_host(Parts(files={"/etc/sysctl.conf": "kernel.numa_balancing=1\n"})))
    assert [c.line for s in r.fix.steps for c in s.commands] == [
        "sed -i '1s/.*/kernel.numa_balancing = 0/' /etc/sysctl.conf"]


def test_check_nothing_set_uses_the_fix_datas_file() -> None:
    r = result(numa_host())
    assert "not set by any file" in r.message
    assert [c.line for s in r.fix.steps for c in s.commands] == [
        "echo 'kernel.numa_balancing = 0' >> /etc/sysctl.d/90-llm-serving.conf"]


def test_check_ok_when_the_configuration_agrees() -> None:
    r = result(numa_host(Parts(files={"/etc/sysctl.d/90-llm-serving.conf": "kernel.numa_balancing = 0\n"})))
    assert r.status == "ok" and "kernel.numa_balancing = 0 (kept by /etc/sysctl.d/90-llm-serving.conf:1)" in r.message


def test_check_skips_a_setting_whose_check_is_not_ok() -> None:
    # one NUMA node: KERN-NUMA-BALANCING does not apply, so 0 there is nothing to keep
    assert result(numa_host(nodes=1)).status == "not-applicable"
    # the value is the bad one: KERN-NUMA-BALANCING reports it, not this check
    assert result(numa_host(value=1)).status == "not-applicable"


def test_check_unknown_when_the_configuration_is_not_in_the_source() -> None:
    r = result(numa_host(unreadable="/etc/sysctl.d"))
    assert r.status == "unknown" and "kernel.numa_balancing (/etc/sysctl.d not readable or not in the source)" in r.message


def test_fix_plan_includes_the_persistent_step() -> None:
    import json

    from stackaudit.engine.testing import audit_report
    from stackaudit.fixes.plan import build_plan
    from stackaudit.report.json_report import report_to_json

    doc = json.loads(json.dumps(report_to_json(audit_report(numa_host(), select=[ID]))))
    plan = build_plan(doc)
    assert [(s.check, s.step.commands[0].line) for s in plan.steps] == [
        (ID, "echo 'kernel.numa_balancing = 0' >> /etc/sysctl.d/90-llm-serving.conf")]


def test_a_vendor_file_named_after_the_default_gets_a_later_name() -> None:
    r = result(numa_host(Parts(files={"/usr/lib/sysctl.d/99-zzz-vendor.conf": "kernel.numa_balancing = 1\n"})))
    assert [c.line for s in r.fix.steps for c in s.commands] == [
        "echo 'kernel.numa_balancing = 0' >> /etc/sysctl.d/zz-99-zzz-vendor.conf"]


def test_capture_records_the_configuration_and_the_snapshot_gives_the_same_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`capture` records what the check read (the directories, the files, the wants links), redacted: the
    snapshot's answer is the live one, and a token in a local unit stays out of it."""
    import json
    import tarfile

    from stackaudit.capture import capture_host
    from stackaudit.cli.main import main

    unit = "[Service]\nType=oneshot\nEnvironment=HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456\nExecStart=/bin/true\n"
    host = numa_host(Parts(files={"/etc/sysctl.d/90-llm-serving.conf": "kernel.numa_balancing = 0\n",
                                  "/etc/systemd/system/warm.service": unit, WANTS + "warm.service": ""}))
    live = result(host)
    snap = tmp_path / "host.tar.gz"
    capture_host(host, str(snap))
    with tarfile.open(snap) as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert b"hf_abcdefghijklmnopqrstuvwxyz123456" not in blob and b"90-llm-serving.conf" in blob
    capsys.readouterr()
    assert main(["audit", "--from", str(snap), "--select", ID, "--format", "json"]) == 0
    got = next(r for r in json.loads(capsys.readouterr().out)["results"] if r["id"] == ID)
    assert (got["status"], got["message"]) == (live.status, live.message) == ("ok", live.message)


# --- masked setpci writes fix --apply made (its journal) ----------------------------------------------

ACS_TARGET, ACS_VALUE = "0000:00:01.0 ECAP_ACS+0x6.w", "0000:002c"
JOURNAL_DIR = "/var/lib/stackaudit/journal"


def journal_text(*records: dict[str, Any]) -> str:
    import json

    return "".join(json.dumps(r) + "\n" for r in records)


APPLIED = journal_text(
    {"op": "change", "seq": 1, "check": "FW-ACS-P2P", "kind": "setpci", "target": ACS_TARGET, "old": "002c",
     "new": ACS_VALUE},
    {"op": "written", "seq": 1},
    {"op": "change", "seq": 2, "check": "KERN-SWAP", "kind": "sysctl", "target": "vm.swappiness", "old": "60",
     "new": "10"},
    {"op": "written", "seq": 2}, {"op": "reverted", "seq": 2})


def acs_boot(files: dict[str, Any]) -> Boot:
    facts = facts_of({f"{JOURNAL_DIR}/20261201T100000.000000Z.jsonl": APPLIED, **files})
    found = [s for s in catalogue_settings(owners(), facts.applied_changes) if s.kind == "setpci"]
    assert [(s.check, s.target, s.value) for s in found] == [("FW-ACS-P2P", ACS_TARGET, ACS_VALUE)]
    return at_boot(found[0], facts)


def test_the_journal_gives_the_setpci_writes_still_in_effect() -> None:
    applied = Collector(fake_host(files={f"{JOURNAL_DIR}/a.jsonl": APPLIED})).fact("applied_changes", object)
    assert [(c.kind, c.target) for _, c in applied.changes] == [("setpci", ACS_TARGET)]  # the swap was reverted


@pytest.mark.parametrize(("files", "kept"), [
    ({}, False),
    ({"/etc/udev/rules.d/90-acs.rules":
      'ACTION=="add", SUBSYSTEM=="pci", KERNEL=="0000:00:01.0", RUN+="/usr/bin/setpci -s %k ECAP_ACS+0x6.w=0000:002c"\n'},
     True),
    ({**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet \\"pci=disable_acs_redir=00:01.0;00:03.1\\""\n'},
     True),
    ({**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet pci=disable_acs_redir=00:03.1"\n'}, False),
])
def test_setpci_write_kept_by_udev_or_the_kernel_parameter(files: dict[str, str], kept: bool) -> None:
    got = acs_boot(files)
    assert got.kept is kept and (got.value is None) is (not kept)


def unit_file_of(step: Any) -> tuple[str, str]:
    """(path, text) the fix's printf line writes, as bash would."""
    import shlex

    words = shlex.split(step.commands[0].line)
    assert words[:2] == ["printf", "%s\\n"] and words[-2] == ">"
    return words[-1], "".join(w + "\n" for w in words[2:-2])


def test_the_oneshot_unit_the_fix_writes_keeps_the_write(monkeypatch: pytest.MonkeyPatch) -> None:
    import stackaudit.checks.persist as persist

    monkeypatch.setattr(persist, "owners_passing", lambda results: {r.spec.id: True for r in results})
    journal = {f"{JOURNAL_DIR}/20261201T100000.000000Z.jsonl": APPLIED}
    r = result(build_host(Parts(files=journal), "gpu01"))
    assert r.status == "issue" and "setpci -s 0000:00:01.0 ECAP_ACS+0x6.w=0000:002c" in r.message
    step = next(s for s in r.fix.steps if "setpci" in s.does)
    path, text = unit_file_of(step)
    unit = path.rsplit("/", 1)[1]
    assert unit == "stackaudit-setpci-fw-acs-p2p.service" and step.commands[1].line == f"systemctl enable {unit}"
    assert "ExecStart=/usr/bin/env setpci -s 0000:00:01.0 ECAP_ACS+0x6.w=0000:002c\n" in text
    # written and enabled, the next audit finds the write kept
    kept = acs_boot({path: text, WANTS + unit: ""})
    assert kept.kept and kept.where.startswith(path)
    # written but not enabled: not kept
    assert not acs_boot({path: text}).kept


def test_boot_loader_not_known_reads_both_and_cannot_place_a_parameter() -> None:
    grub = {"/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="cpufreq.default_governor=performance"\n'}
    got = boot(GOVERNOR, grub, "scaling_governor")  # no /proc/cmdline, no LoaderInfo
    assert got.kept and got.unread == ["which boot loader is in use"]
    assert boot(GOVERNOR, {}, "scaling_governor").value is None  # neither sets it


def test_live_paths_under_a_root(tmp_path: Path) -> None:
    """The same files as a tree on disk, read by the live host below `--root`: a /etc file masking the
    vendor file of the same name keeps the value; removing it leaves the vendor's value for the next boot."""
    from stackaudit.host.live import LiveHost

    layout = numa_layout(2, 8, 1)
    parts = merge(cpu_topology(layout, 64 * 1024 * 1024), sysctls(kernel__numa_balancing=0),
                  Parts(files={"/usr/lib/sysctl.d/60-numa.conf": "kernel.numa_balancing = 1\n",
                               "/etc/sysctl.d/60-numa.conf": "kernel.numa_balancing = 0\n"}))
    for path, content in parts.files.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else str(content).encode())
    kept = run_checks(LiveHost(str(tmp_path)), select=[ID])[ID]
    assert kept.status == "ok" and "kept by /etc/sysctl.d/60-numa.conf:1" in kept.message
    (tmp_path / "etc/sysctl.d/60-numa.conf").unlink()
    lost = run_checks(LiveHost(str(tmp_path)), select=[ID])[ID]
    assert lost.status == "issue" and "at boot 1 from /usr/lib/sysctl.d/60-numa.conf:1" in lost.message


def test_a_unit_a_package_enables_statically_is_kept() -> None:
    files = {"/usr/lib/systemd/system/multi-user.target.wants/nvidia-persistenced.service": "",
             "/etc/systemd/system/default.target.wants/other.service": ""}
    got = boot("DRV-PERSISTENCE", files)
    assert got.kept and "multi-user" in got.where


# --- tuned's [bootloader] plugin: `$tuned_params` --------------------------------------------------
# Modelled on a RHEL 9 host after `tuned-adm profile llm`: GRUB boots the BLS entries, which tuned's
# kernel-install hook gave `$tuned_params`; tuned wrote the value into /etc/tuned/bootcmdline and grubenv.

GOV_PARAM = "cpufreq.default_governor=performance"
ENTRY = "/boot/loader/entries/0123abcd-5.14.0-427.el9.x86_64.conf"
RHEL_BLS = {**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX="crashkernel=auto"\nGRUB_ENABLE_BLSCFG=true\n',
            ENTRY: "title Rocky Linux\nlinux /vmlinuz-5.14.0\noptions root=/dev/vda1 ro $tuned_params\n",
            # the rescue entry is left alone by tuned and is not what a normal boot starts
            "/boot/loader/entries/0123abcd-0-rescue.conf": "title rescue\noptions root=/dev/vda1 ro\n"}
BOOTCMDLINE = {"/etc/tuned/bootcmdline": f'# set by TuneD\nTUNED_BOOT_CMDLINE="{GOV_PARAM}"\nTUNED_BOOT_INITRD_ADD=""\n',
               "/etc/grub.d/00_tuned": '#! /bin/sh\n. /etc/tuned/bootcmdline\necho "set tuned_params=\\"$TUNED_BOOT_CMDLINE\\""\n'}
LLM_PROFILE = {"/etc/tuned/active_profile": "llm\n",
               "/etc/tuned/llm/tuned.conf": f"[main]\ninclude=throughput-performance\n[bootloader]\ncmdline_llm={GOV_PARAM}\n",
               "/usr/lib/tuned/throughput-performance/tuned.conf": "[sysctl]\nvm.swappiness=10\n"}
TUNED_ON = {WANTS + "tuned.service": ""}


def gov_boot(*trees: dict[str, str], **host: Any) -> Boot:
    return boot(GOVERNOR, {k: v for t in trees for k, v in t.items()}, "scaling_governor", **host)


def test_a_parameter_only_tuned_sets_is_kept_naming_bootcmdline_and_the_profile_line() -> None:
    got = gov_boot(RHEL_BLS, BOOTCMDLINE, LLM_PROFILE, TUNED_ON)
    assert (got.kept, got.value, got.unread) == (True, "performance", [])
    assert got.where.split(" (")[0] == "/etc/tuned/bootcmdline:2"
    assert f"$tuned_params in {ENTRY}:3" in got.where and "/etc/tuned/llm/tuned.conf:4" in got.where


def test_tuned_disabled_removes_nothing_but_a_rolled_back_bootcmdline_is_not_kept() -> None:
    # `systemctl disable tuned` leaves $tuned_params as it was: the next boot still gets the parameter
    assert gov_boot(RHEL_BLS, BOOTCMDLINE, LLM_PROFILE).kept
    # stopping tuned (or `tuned-adm off`) emptied bootcmdline: the profile's cmdline reaches no boot
    rolled_back = {**BOOTCMDLINE, "/etc/tuned/bootcmdline": 'TUNED_BOOT_CMDLINE=""\n'}
    off = gov_boot(RHEL_BLS, rolled_back, LLM_PROFILE)
    assert (off.kept, off.value, off.unread) == (False, None, [])
    # enabled, the profile sets it, but no $tuned_params carries it yet: not on the next boot's command line
    on = gov_boot(RHEL_BLS, rolled_back, LLM_PROFILE, TUNED_ON)
    assert not on.kept and on.where.startswith("/etc/tuned/llm/tuned.conf:4") and "not on the boot loader" in on.where


def test_tuned_params_without_bootcmdline_is_unknown_unless_grubenv_gives_it() -> None:
    missing = gov_boot(RHEL_BLS, LLM_PROFILE, TUNED_ON)
    assert not missing.kept and missing.value is None
    assert any(u.startswith(f"the value of $tuned_params (used in {ENTRY}:3") for u in missing.unread)
    # a bootcmdline left behind without tuned's grub.d script: grub-mkconfig sets no tuned_params from it
    leftover = {k: v for k, v in BOOTCMDLINE.items() if not k.startswith("/etc/grub.d/")}
    assert not gov_boot(RHEL_BLS, leftover, LLM_PROFILE, TUNED_ON).kept
    grubenv = {"/boot/grub2/grubenv": f"# GRUB Environment Block\nsaved_entry=x\ntuned_params={GOV_PARAM}\n####\n"}
    got = gov_boot(RHEL_BLS, grubenv, LLM_PROFILE, TUNED_ON)
    assert got.kept and got.where.startswith("/boot/grub2/grubenv:3 ")


def test_a_snapshot_without_bootcmdline_says_so() -> None:
    files = {**RHEL_BLS, **LLM_PROFILE, **TUNED_ON}
    got = gov_boot(files, strict=True, dirs={"/boot/loader/entries": sorted(p.rsplit("/", 1)[1] for p in files
                                                                          if p.startswith("/boot/loader/"))})
    assert not got.kept and any("not readable" in u and "$tuned_params" in u for u in got.unread)


def test_grub_without_bls_expands_tuned_params_in_grub_cmdline_linux_default() -> None:
    # the line tuned appends to /etc/default/grub where GRUB does not boot BLS entries
    grub = {**GRUB, "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'
            'GRUB_CMDLINE_LINUX_DEFAULT="${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }\\$tuned_params"\n'}
    got = gov_boot(grub, BOOTCMDLINE, LLM_PROFILE, TUNED_ON)
    assert got.kept and "$tuned_params in /etc/default/grub:2" in got.where
    from stackaudit.facts.boot_loader import parse_grub_default
    assert [p.name for p in parse_grub_default([("/etc/default/grub", grub["/etc/default/grub"])])] == [
        "quiet", "$tuned_params"]


def test_systemd_boot_passes_tuned_params_as_it_is() -> None:
    entry = {"/boot/loader/entries/a.conf": "title A\noptions root=/dev/sda1 $tuned_params\n"}
    got = gov_boot(SYSTEMD_BOOT, entry, BOOTCMDLINE, LLM_PROFILE, TUNED_ON)
    assert not got.kept and "not on the boot loader's configured command line" in got.where


@pytest.mark.parametrize(("child", "kept", "named"), [
    # the including profile adds nothing: the included one's option stands, named by its file:line
    ("[main]\ninclude=base\n", True, "/usr/lib/tuned/base/tuned.conf:2"),
    # `-word` takes out what an included profile added: tuned rewrites $tuned_params without it
    (f"[main]\ninclude=base\n[bootloader]\ncmdline_llm=-{GOV_PARAM}\n", False,
     f"/etc/tuned/llm/tuned.conf:4 (-{GOV_PARAM} in tuned profile llm"),
    # the same option name replaces the included value in place
    ("[main]\ninclude=base\n[bootloader]\ncmdline_base=+quiet\n", False,
     "tuned profile llm (no [bootloader] cmdline sets cpufreq.default_governor"),
])
def test_include_chain_of_bootloader_options(child: str, kept: bool, named: str) -> None:
    profiles = {"/etc/tuned/active_profile": "llm\n", "/etc/tuned/llm/tuned.conf": child,
                "/usr/lib/tuned/base/tuned.conf": f"[bootloader]\ncmdline_base=+{GOV_PARAM}\n"}
    got = gov_boot(RHEL_BLS, BOOTCMDLINE, profiles, TUNED_ON)
    assert got.kept is kept and named in got.where


def test_bootloader_cmdline_merge_variables_and_unknowns() -> None:
    from stackaudit.facts.tuned import tuned_config_of

    profiles = {
        "base": ("/usr/lib/tuned/base/tuned.conf",
                 "[variables]\ncores=2-7\n[bootloader]\ncmdline_base=+nohz=on rhgb quiet\n"),
        "llm": ("/etc/tuned/llm/tuned.conf",
                "[main]\ninclude=base\n[variables]\nisolated=${cores}\n[bootloader]\ncmdline_llm=-quiet\n"
                "cmdline_iso=isolcpus=${isolated} mask=${f:cpulist2hex:${isolated}}\nskip_grub_config=true\n"),
    }
    cmdline = tuned_config_of("llm", profiles).bootloader()
    assert cmdline.words == "nohz=on rhgb isolcpus=2-7"
    assert [(p.word, p.where) for p in cmdline.removed] == [("quiet", "/etc/tuned/llm/tuned.conf:6")]
    assert cmdline.last("isolcpus") is not None and cmdline.last("isolcpus").where == "/etc/tuned/llm/tuned.conf:7"
    assert len(cmdline.unknown) == 1 and "mask=${f:cpulist2hex" in cmdline.unknown[0]
    assert cmdline.skip_grub_config.startswith("/etc/tuned/llm/tuned.conf:8")
    # replace=true drops what the included profile's unit had; enabled=false turns the plugin off
    replaced = {**profiles, "llm": ("/etc/tuned/llm/tuned.conf", "[main]\ninclude=base\n[bootloader]\nreplace=true\n"
                                                                 "cmdline=+mitigations=off\n")}
    assert tuned_config_of("llm", replaced).bootloader().words == "mitigations=off"
    off = {**profiles, "llm": ("/etc/tuned/llm/tuned.conf", "[main]\ninclude=base\n[bootloader]\nenabled=false\n")}
    assert tuned_config_of("llm", off).bootloader().words == ""


def tuned_governor_host(profiles: dict[str, str]) -> Any:
    from scenario_builder import cpufreq

    parts = merge(cpu_topology(numa_layout(1, 4, 1), 64 * 1024 * 1024),
                  cpufreq(4, "acpi-cpufreq", "performance", min_khz=1_000_000, max_khz=3_000_000, cur_khz=3_000_000),
                  Parts(files={**RHEL_BLS, **BOOTCMDLINE, **TUNED_ON, **profiles}))
    return build_host(parts, "gpu01")


def test_check_names_tuned_bootloader_line_kept_and_removed() -> None:
    def check(profiles: dict[str, str]) -> Any:
        return result(tuned_governor_host(profiles))

    kept = check(LLM_PROFILE)
    assert kept.status == "ok" and "kept by /etc/tuned/bootcmdline:2" in kept.message
    assert "/etc/tuned/llm/tuned.conf:4" in kept.message
    removed = check({"/etc/tuned/active_profile": "llm\n",
                     "/etc/tuned/llm/tuned.conf": f"[main]\ninclude=base\n[bootloader]\ncmdline_llm=-{GOV_PARAM}\n",
                     "/usr/lib/tuned/base/tuned.conf": f"[bootloader]\ncmdline_base=+{GOV_PARAM}\n"})
    assert removed.status == "issue"
    assert "at boot removed by tuned from /etc/tuned/llm/tuned.conf:4" in removed.message
    assert any("tuned takes it out of $tuned_params" in s.does for s in removed.fix.steps)


def test_a_snapshot_of_the_tuned_host_gives_the_live_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bootcmdline, grubenv's absence, the loader entries and the profiles are recorded by `capture`."""
    import json

    from stackaudit.capture import capture_host
    from stackaudit.cli.main import main

    host = tuned_governor_host(LLM_PROFILE)
    live = result(host)
    snap = tmp_path / "host.tar.gz"
    capture_host(host, str(snap))
    capsys.readouterr()
    assert main(["audit", "--from", str(snap), "--select", ID, "--format", "json"]) == 0
    got = next(r for r in json.loads(capsys.readouterr().out)["results"] if r["id"] == ID)
    assert (got["status"], got["message"]) == ("ok", live.message) and "/etc/tuned/bootcmdline:2" in live.message
