"""IC-CUSTOM-ALLREDUCE for `--disable-custom-all-reduce` on GeForce cards not shown bridged: the stock driver gives them
no PCIe P2P, so the engine's own P2P test would keep custom all-reduce off, and the flag turns off nothing that could
run (not an issue). A P2P table that shows the driver giving the pair P2P (a patched driver) leaves the usual reading.

Real text: corpus 2798 (two RTX 3090, vLLM 0.8.5, TP 2); the variants are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

_SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.124.04             Driver Version: 570.124.04     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0 Off |                  N/A |
| 30%   35C    P8             20W /  350W |       1MiB /  24576MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA GeForce RTX 3090        Off |   00000000:02:00.0 Off |                  N/A |
| 30%   35C    P8             20W /  350W |       1MiB /  24576MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def test_flag_on_unbridged_geforce_turns_off_nothing() -> None:
    check = capture_checks("2798", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert check.status == "not-an-issue" and "RTX 3090" in check.message, check.message


def test_flag_on_geforce_variants(tmp_path: Path) -> None:
    # Modelled: nvidia-smi of two RTX 3090 and a vLLM command of TP 2 with the flag.
    command = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --disable-custom-all-reduce\n"
    plain = paste_checks(tmp_path, _SMI + command, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert plain.status == "not-an-issue", plain.message
    # The same pair with a P2P table in which the driver gives it P2P (a patched driver): not this reading.
    p2p = ("        \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n"
           "  CNS  = Chipset not supported\n  GNS  = GPU not supported\n  TNS  = Topology not supported\n"
           "  NS   = Not supported\n  U    = Unknown\n")
    patched = paste_checks(tmp_path, _SMI + "$ nvidia-smi topo -p2p r\n" + p2p + command,
                           "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert patched.status != "not-an-issue" or "GeForce cards" not in patched.message, patched.message
