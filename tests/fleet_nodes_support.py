"""Fake GPU nodes on disk for the fleet gatherers' tests (Ansible over a real sshd, a Ray cluster).

Each node is a host root that `capture --root` reads: an 8-GPU H100 machine built from
tests/scenario_builder.py parts (modelled sysfs and procfs, not captured from one machine), with the
node's planted drift (driver version, a GPU's link width, a sysctl, a kernel command-line option).
Commands still run on this machine; only the files come from the root.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scenario_builder import Gpu, Parts, kernel, merge, nvidia_driver, nvidia_gpus, sysctls

BASE_CMDLINE = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=4f1c2a7e ro quiet splash"
H100_SXM = "0x2330"
GPUS = tuple(
    Gpu(bdf=f"0000:{bus:02x}:00.0", root_port=f"0000:{bus - 1:02x}:01.1", numa_node=0 if i < 4 else 1,
        device=H100_SXM, name="H100 80GB HBM3")
    for i, bus in enumerate((0x19, 0x3B, 0x4C, 0x5D, 0x9B, 0xBB, 0xCB, 0xDB))
)


@dataclass(frozen=True)
class Node:
    """What one fake node plants: the values a test reads back from its snapshot."""

    name: str
    driver: str = "570.124.06"
    narrow_gpu: str | None = None  # this GPU's link trained at x8 instead of x16
    numa_balancing: str = "0"
    cmdline_extra: str = ""

    @property
    def cmdline(self) -> str:
        return " ".join(p for p in (BASE_CMDLINE, self.cmdline_extra) if p)


def node_parts(node: Node) -> Parts:
    parts = merge(
        kernel("6.8.0-45-generic", "#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024", node.name,
               node.cmdline),
        nvidia_gpus(GPUS, iommu_type="identity"),
        nvidia_driver(node.driver),
        sysctls(kernel__numa_balancing=node.numa_balancing, vm__swappiness=10),
        Parts(files={"/etc/hostname": node.name + "\n"}),
    )
    if node.narrow_gpu is not None:
        [gpu] = [g for g in GPUS if g.bdf == node.narrow_gpu]
        real = f"/sys/devices/pci{gpu.root_port[:7]}/{gpu.root_port}/{gpu.bdf}"
        parts = parts + Parts(files={f"{real}/current_link_width": "8\n"})
    return parts


def write_root(parts: Parts, root: Path) -> Path:
    """Lay a fake host's files and links out under `root` (listings become empty files)."""
    for path, content in parts.files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    for path, link in parts.links.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(link, target)
    for path, names in parts.dirs.items():
        for name in names:
            entry = root / path.lstrip("/") / name
            entry.parent.mkdir(parents=True, exist_ok=True)
            entry.touch()
    return root


def write_node(node: Node, root: Path) -> Path:
    return write_root(node_parts(node), root)


def link_width_path(bdf: str) -> str:
    [gpu] = [g for g in GPUS if g.bdf == bdf]
    return f"/sys/devices/pci{gpu.root_port[:7]}/{gpu.root_port}/{gpu.bdf}/current_link_width"


@functools.lru_cache(maxsize=1)
def built_zipapp() -> str:
    """One zipapp for the whole test session (the zipapp and Ansible tests share it)."""
    from stackaudit.fleet.zipapp import build_zipapp

    where = tempfile.mkdtemp(prefix="stackaudit-test-pyz-")
    atexit.register(shutil.rmtree, where, True)
    return build_zipapp(os.path.join(where, "stackaudit.pyz"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- a real sshd on 127.0.0.1 -----------------------------------------------------------------------

SSHD = "/usr/sbin/sshd"


@dataclass
class Sshd:
    port: int
    client_key: Path
    process: subprocess.Popen[bytes]
    log: Path


def start_sshd(workdir: Path, timeout_s: float = 15.0) -> Sshd:
    """sshd -D on a free 127.0.0.1 port with a throwaway host key; the client key logs in as this user."""
    keygen = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
    workdir.mkdir(parents=True, exist_ok=True)
    host_key, client_key = workdir / "host_ed25519", workdir / "client_ed25519"
    for key in (host_key, client_key):
        subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True, timeout=30,
                       capture_output=True)
    authorized = workdir / "authorized_keys"
    shutil.copyfile(f"{client_key}.pub", authorized)
    port = free_port()
    config = workdir / "sshd_config"
    config.write_text("\n".join((
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"AuthorizedKeysFile {authorized}",
        f"PidFile {workdir / 'sshd.pid'}", "StrictModes no", "UsePAM no", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", "Subsystem sftp internal-sftp",
        "MaxStartups 50:30:100", "MaxSessions 50", "LogLevel INFO", "",
    )))
    # Debian's sshd refuses to start without its privilege-separation directory (made by its service unit).
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    log = workdir / "sshd.log"
    process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL,
                               stderr=open(log, "wb"), stdin=subprocess.DEVNULL)  # noqa: SIM115
    stop = time.monotonic() + timeout_s
    while time.monotonic() < stop:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited {process.returncode}: {log.read_text()[-500:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return Sshd(port, client_key, process, log)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"sshd did not listen on 127.0.0.1:{port} within {timeout_s} s")


def stop_sshd(sshd: Sshd) -> None:
    sshd.process.terminate()
    try:
        sshd.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        sshd.process.kill()
        sshd.process.wait(timeout=10)
