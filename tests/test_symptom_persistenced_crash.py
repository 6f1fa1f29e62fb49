"""DRV-PERSISTENCE from a crashed or failed nvidia-persistenced: the kernel's segfault line (facts/symptoms.py,
`persistenced-crashed`) and the daemon's journal (facts/nvidia_daemons.py) (issue 28)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "DRV-PERSISTENCE"

# https://github.com/NixOS/nixpkgs/pull/22304 (comment by vcunat): the daemon cannot create its runtime directory.
NIXOS = """\
nvidia-persistenced[3690]: Failed to create directory /var/run/nvidia-persistenced: Permission denied
nvidia-persistenced[3690]: Unable to access /var/run/nvidia-persistenced: No such file or directory
nvidia-persistenced[3690]: Shutdown (3690)
"""

# https://github.com/ollama/ollama/issues/11932 (comment by guusec, capture 108): the unit failed to start.
POPOS = """\
2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE
2025-08-16T00:03:03.959639-04:00 localhost systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.
"""

# Modelled on systemd-coredump's line for a crashed process (its name cut to 15 characters, as the kernel's).
COREDUMP = "May 23 21:51:19 host systemd-coredump[9905]: Process 827 (nvidia-persiste) of user 0 dumped core.\n"

# https://github.com/zed-industries/zed/issues/35758 (comment by stephenh): another program's segfault in an NVIDIA
# library is not the daemon's.
ZED = ("[ 8275.824319] zed-editor[11804]: segfault at 25c ip 000075b6d26f2e1a sp 00007ffc262183a0 error 4 in "
       "libnvidia-glcore.so.575.64.03[af2e1a,75b6d2000000+c00000] likely on CPU 10 (core 20, socket 0)\n")

# https://github.com/jolibrain/deepdetect/issues/111 (issue body): the daemon shut down and started again.
RESTARTED = """\
Apr 28 04:44:00 ip-172-30-1-1 nvidia-persistenced: The daemon no longer has permission to remove its runtime data directory /var/run/nvidia-persistenced
Apr 28 04:44:00 ip-172-30-1-1 nvidia-persistenced: Shutdown (28109)
Apr 28 04:44:02 ip-172-30-1-1 nvidia-persistenced: Started (28556)
"""


def test_kernel_segfault_line_is_an_issue() -> None:
    """Real (NVIDIA/nvtrust#58, capture 698): `nvidia-persiste[827]: segfault at 44 ... in libnvidia-cfg.so`."""
    r = capture_checks("698", CHECK)[CHECK]
    assert r.status == "issue" and "crashed" in r.message
    assert any("nvidia-persiste[827]: segfault at 44" in line for line in r.evidence)


def test_journal_failures_are_issues(tmp_path: Path) -> None:
    """Real (NixOS/nixpkgs#22304, ollama#11932): the daemon shut down on an error, the unit failed to start."""
    for text in (NIXOS, POPOS):
        assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "issue"


def test_coredump_line_is_an_issue(tmp_path: Path) -> None:
    """Modelled on systemd-coredump's line: the crash reported by systemd rather than the kernel."""
    r = paste_checks(tmp_path, "[   33.646859] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n" + COREDUMP,
                     CHECK)[CHECK]
    assert r.status == "issue"


def test_another_programs_segfault_is_none(tmp_path: Path) -> None:
    """Real counter-example (zed#35758): a segfault in libnvidia-glcore of another program proves nothing here."""
    assert paste_checks(tmp_path, ZED, CHECK)[CHECK].status != "issue"


def test_a_restarted_daemon_is_none(tmp_path: Path) -> None:
    """Real counter-example (deepdetect#111): the daemon shut down and started again, so it runs."""
    assert paste_checks(tmp_path, RESTARTED, CHECK)[CHECK].status != "issue"
