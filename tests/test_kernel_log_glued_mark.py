"""Issue 28 (kind gap, corpus 1850): kernel lines behind a syslog forwarder's prefix whose `kernel:` is glued to
dmesg's uptime, and the open modules' `NVRM function:` lines, are read as a kernel log.

The class: a log collector that writes its time (a date with a space, or a syslog month with microseconds) and no
host before `kernel:[ uptime]` (NVIDIA/open-gpu-kernel-modules#673, corpus 1850; a Xen host's serial log on
xen-devel, `Oct 14 18:41:49.056490 kernel:[   85.570347]`), and syslogd's broadcast of an emergency kernel line
(` kernel:[ 3648.883001] ...` under `Message from syslogd@host at ...`). The open modules of R515-R525 print
`NVRM function: message` with no colon after NVRM (corpus 1850; open-gpu-kernel-modules#120 `NVRM cpuidInfoAMD:`,
#543 `NVRM kgspWaitForGfwBootOk_TU102:`). Counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import capture_checks, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.importers._paste import view
from stackaudit.importers.system import is_kernel_log_line


def test_the_glued_mark_behind_each_collector_leaves_dmesg_lines() -> None:
    lines = [
        # open-gpu-kernel-modules#673 (corpus 1850)
        "2024-07-02 18:46:08.681562 kernel:[   21.766734] NVRM nvAssertFailedNoLog: Assertion failed: rmStatus == NV_OK",
        # xen-devel (a Xen host's serial log, i915 faults): a syslog month with microseconds, no host
        "Oct 14 18:41:49.056490 kernel:[   85.570347] [drm:gen8_de_irq_handler [i915]] *ERROR* Fault errors on pipe A",
        # a Debian forum post: syslogd's broadcast to the terminals
        " kernel:[ 3648.883007] Hardware name: Dell Computer Corporation OptiPlex GX400",
    ]
    for line in lines:
        bare = view(line).lines[0]
        assert bare.startswith("[") and is_kernel_log_line(bare), line


def test_a_host_after_a_date_with_a_space_is_the_node() -> None:
    # Modelled: the same forwarder with a host and a spaced mark keeps `kernel: ` for the dmesg reader.
    paste = view("2024-07-02 18:46:08 gpu-node-3 kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus")
    assert paste.lines == ["kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus"]
    assert paste.hosts == {0: "gpu-node-3"}


def test_open_module_function_lines_are_kernel_lines() -> None:
    assert is_kernel_log_line("NVRM s_executeBooterUcode_TU102: Booter failed with non-zero error code: 0xa")
    assert is_kernel_log_line("NVRM cpuidInfoAMD: Unrecognized AMD processor in cpuidInfoAMD")  # #120
    # Modelled: prose naming the driver is not a kernel line.
    assert not is_kernel_log_line("NVRM errors keep showing up since the update")
    # corpus 1813: /proc/driver/nvidia/version's first line is that file's, not a kernel line.
    assert not is_kernel_log_line("NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.130  Wed Mar 21 03:37:26 PDT 2018")


def test_the_gsp_boot_failure_behind_the_glued_mark_is_the_issue() -> None:
    results = capture_checks("1850", "DRV-GSP-FIRMWARE", "DRV-XID")
    gsp = results["DRV-GSP-FIRMWARE"]
    assert gsp.status == "issue" and "kgspInitRm_IMPL: cannot bootstrap" in gsp.message
    # Five kernel lines are read now (27-29, 32-33), an excerpt: no Xid among them proves nothing.
    assert results["DRV-XID"].status == "unknown" and "5 kernel-log lines" in results["DRV-XID"].message


def test_a_gsp_that_booted_gives_no_bootstrap_failure() -> None:
    # Modelled counter-example: the open module's GSP bootstrap notes of a GPU that came up (#120's lines) prove no
    # failure.
    text = ("Feb 02 01:08:04 Host-24 kernel: NVRM kgspExecuteBooterUnloadIfNeeded_TU102: skipping executing Booter "
            "Unload as WPR is not up\n"
            "Feb 02 01:08:04 Host-24 kernel: NVRM kgspInitRm_IMPL: skipping allocating Scrubber ucode as pre-scrubbed "
            "memory (0x10000000 bytes) is sufficient\n")
    r = run_checks(pasted(text), ["DRV-GSP-FIRMWARE"])["DRV-GSP-FIRMWARE"]
    assert r.status != "issue"
