"""Issue 28: the kernel module loader's own lines (`nvidia: loading out-of-tree module taints kernel.`, a module's
license taint, a failed signature check, an unknown or mismatched symbol) are kernel-log lines even pasted bare, with no
timestamp or syslog prefix (corpus 1561, `dmesg -t` or `journalctl -o cat` output): the paste is recognised.

The lines are real, verbatim from the public thread named beside each; a test that strips their prefix says so.
"""

from __future__ import annotations

import re

from corpus import body, capture_checks
from stackaudit.importers.system import is_kernel_log_line

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/388 (SisypheanZhou, 2022-10-12), corpus 1561: bare lines.
OPEN_GPU_388 = body("1561").splitlines()
# https://github.com/NVIDIA/k8s-device-plugin/issues/480 (joshuacox): `sudo dmesg | grep -i nvidia`.
K8S_DEVICE_PLUGIN_480 = [
    "[    2.829492] nvidia: loading out-of-tree module taints kernel.",
    "[    2.829501] nvidia: module license 'NVIDIA' taints kernel.",
    "[    2.846803] nvidia: module verification failed: signature and/or required key missing - tainting kernel",
]
# https://github.com/NVIDIA/gpu-operator/issues/2868 (nicdumz, 2026-09-08): `dmesg -T | grep -i -E 'peermem|...'`.
GPU_OPERATOR_2868 = [
    "[Tue Sep  8 17:16:02 2026] nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client",
    "[Tue Sep  8 17:16:02 2026] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)",
]
# https://github.com/pop-os/linux/issues/452 (pmundkur, 2026-08-03): newer kernels name no license in the taint line.
POP_OS_452 = ["Aug 03 17:21:11 thelio kernel: nvidia: module license taints kernel."]

_PREFIX = re.compile(r"^(?:\[[^\]]*\]|\w{3} \d\d [\d:]+ \S+ kernel:) ")


def test_bare_module_loader_lines_are_kernel_log_lines() -> None:
    assert all(is_kernel_log_line(line) for line in OPEN_GPU_388)
    for line in (*K8S_DEVICE_PLUGIN_480, *GPU_OPERATOR_2868, *POP_OS_452):
        assert is_kernel_log_line(line), line
        # The same message as `dmesg -t` prints it, its prefix stripped here.
        bare = _PREFIX.sub("", line)
        assert bare != line and is_kernel_log_line(bare), bare


def test_other_words_are_not_kernel_lines() -> None:
    # Modelled: prose and the userland tools' messages that hold the loader's words, not its line.
    for line in ("the module taints kernel. is that bad?",
                 "insmod: ERROR: could not insert module nvidia.ko: Unknown symbol in module",
                 "warning: module license 'GPL' taints kernel. (quoted from the docs)"):
        assert not is_kernel_log_line(line), line


def test_the_paste_is_read_and_the_checks_judge_it() -> None:
    results = capture_checks("1561", "DRV-XID", "DRV-OPEN-MODULE", "FW-ABOVE4G-MMIO")
    # Two lines of a kernel log are an excerpt: an Xid outside them would not show.
    assert results["DRV-XID"].status == "unknown" and "excerpt" in results["DRV-XID"].message
    assert results["DRV-OPEN-MODULE"].status == "unknown"
    assert results["FW-ABOVE4G-MMIO"].status == "unknown"
