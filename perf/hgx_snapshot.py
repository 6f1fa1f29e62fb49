"""Write a snapshot of a realistic 8× H100 HGX host (NVML answers, PCI bus, a vLLM TP=8 engine).

Used to time `stackaudit audit --from` on an 8-GPU snapshot (issue 3 target: under 1 s):

    python perf/hgx_snapshot.py build/hgx.tar.gz
    python perf/audit_speed.py --snapshot build/hgx.tar.gz
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from nvidia_support import hgx, host_for, vllm_files
from stackaudit.capture import capture_host


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "hgx.tar.gz"
    files, procs = vllm_files("--tensor-parallel-size 8", workers=8)
    host = host_for(hgx(count=8), nvswitches=4, fabricmanager="active", fm_version="570.124.06",
                    extra_files=files, processes=procs)
    summary, redactions = capture_host(host, out)
    print(summary)
    print(redactions)


if __name__ == "__main__":
    main()
