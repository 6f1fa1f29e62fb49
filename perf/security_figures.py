"""Figures for docs/security.md: each hostile-input attack's exit code, peak RSS and wall time (tests/hostile:
paths, snapshots, writes, pastes, bench against a hostile server), and a
real-size 8-GPU capture (lspci -vvv of 8 GPUs and 400 more functions, a 100 000-line dmesg) replayed.

    python perf/security_figures.py            # runs tests/hostile with figures on, then the real-size replay

Peak RSS is the child's own (os.wait4 ru_maxrss), wall time includes interpreter start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from nvidia_support import hgx, host_for, vllm_files  # noqa: E402
from stackaudit.capture import capture_host  # noqa: E402

# One GPU's `lspci -vvv` stanza, modelled on a real A100 SXM4 paste (tests/data/captures/05-*), completed
# with the link and extended-capability lines every function prints.
_STANZA = """{bdf} 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
\tSubsystem: NVIDIA Corporation Device [10de:16c1]
\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx+
\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-
\tLatency: 0, Cache Line Size: 64 bytes
\tNUMA node: {numa}
\tRegion 0: Memory at c5000000 (32-bit, non-prefetchable) [size=16M]
\tRegion 1: Memory at 52000000000 (64-bit, prefetchable) [size=128G]
\tCapabilities: [78] Express (v2) Endpoint, MSI 00
\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
\t\tDevCtl:\tCorrErr+ NonFatalErr+ FatalErr+ UnsupReq-
\t\t\tMaxPayload 256 bytes, MaxReadReq 512 bytes
\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported
\t\tLnkSta:\tSpeed 32GT/s, Width x16
""" + "".join(f"\tCapabilities: [{0x100 + 0x10 * n:x} v1] Vendor Specific Information: ID=0001 Rev=1 Len=024\n"
              for n in range(40)) + "\tKernel driver in use: nvidia\n\tKernel modules: nvidia\n\n"


def _real_size_host():  # type: ignore[no-untyped-def]
    lspci = "".join(_STANZA.format(bdf=f"0000:{0x18 + n:02x}:00.0", numa=n // 4) for n in range(8))
    lspci += "".join(_STANZA.format(bdf=f"0000:{0x80 + n // 8:02x}:{n % 8:02x}.0", numa=n % 2) for n in range(400))
    dmesg = "".join(f"[{n / 10:12.6f}] pci 0000:{n % 256:02x}:00.0: [10de:2330] type 00 class 0x030200 PCIe Endpoint\n"
                    for n in range(100_000))
    files, procs = vllm_files("--tensor-parallel-size 8", workers=8)
    return host_for(hgx(count=8), nvswitches=4, fabricmanager="active", fm_version="570.124.06", dmesg=dmesg,
                    extra_files=files, processes=procs,
                    extra_commands={("lspci", "-D", "-nn", "-vvv"): lspci}), len(lspci), len(dmesg)


def _child(argv: list[str]) -> tuple[int, float, float, str]:
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss / 1024, time.monotonic() - start, out.decode()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "figures.jsonl"
        subprocess.run([sys.executable, "-m", "pytest", "-q", str(REPO / "tests" / "hostile"), "-p", "no:randomly"],
                       env=dict(os.environ, PYTHONPATH=str(REPO / "src"), STACKAUDIT_SECURITY_FIGURES=str(figures)),
                       check=False, timeout=900)
        print(f"{'attack (test)':<100} {'rc':>3} {'RSS MB':>7} {'wall s':>7}")
        for line in figures.read_text().splitlines():
            row = json.loads(line)
            print(f"{row['test'].split('::')[-1]:<100} {row['rc']:>3} {row['rss_mb']:>7.1f} {row['wall_s']:>7.2f}")
        host, lspci_bytes, dmesg_bytes = _real_size_host()
        snap = Path(tmp) / "hgx-real-size.tar.gz"
        start = time.monotonic()
        capture_host(host, str(snap))
        capture_s = time.monotonic() - start
        rc, rss, wall, out = _child([sys.executable, "-m", "stackaudit", "audit", "--from", str(snap), "-f", "json"])
        source = json.loads(out)["source"] if out.strip() else {}
        print(f"\nreal-size 8-GPU capture: lspci -vvv {lspci_bytes >> 10} KiB, dmesg {dmesg_bytes >> 20} MiB "
              f"(100 000 lines); snapshot {snap.stat().st_size >> 10} KiB, captured in {capture_s:.1f} s")
        print(f"replay: rc {rc}, peak RSS {rss:.0f} MB, wall {wall:.2f} s, partial: {source.get('partial', False)}")


if __name__ == "__main__":
    main()
