"""Issue 28: a power cap nvidia-smi prints as N/A is a GPU shown without its value (unknown, with coverage), and on
a vGPU guest a limit the guest does not have (not-applicable).

The tables are real, verbatim from the public thread named beside each.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/DualCoder/vgpu_unlock/issues/30 (huzhifeng): a Quadro P400 on the host, cap N/A.
VGPU_UNLOCK_30 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 460.32.04    Driver Version: 460.32.04    CUDA Version: N/A      |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Quadro P400         On   | 00000000:01:00.0 Off |                  N/A |
| 47%   60C    P0    N/A /  N/A |   1011MiB /  2047MiB |    100%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def _limit(path: Path) -> tuple[str, str, str]:
    r = run_checks(load_pasted([str(path)]), ["PWR-GPU-POWER-LIMIT"])["PWR-GPU-POWER-LIMIT"]
    return r.status, r.message, r.coverage.text() if r.coverage is not None else ""


def test_a_cap_read_as_na_is_unknown_over_the_gpu_shown(tmp_path: Path) -> None:
    path = tmp_path / "paste.txt"
    path.write_text(VGPU_UNLOCK_30)
    status, message, coverage = _limit(path)
    assert status == "unknown" and "reads N/A" in message
    assert coverage.startswith("1 ")


def test_the_corpus_na_caps() -> None:
    # Corpus 251 (NVIDIA/nvidia-docker#1280): a GPU named ERR! with its cap N/A: unknown, the GPU shown.
    assert _limit(next(CAPTURES.glob("251-*.txt")))[::2] == ("unknown", "1 of 1 GPU shown")
    # Corpus 246 (huggingface/text-generation-inference#1156): a GRID A100D-20C vGPU guest has no limit of its own.
    status, message, _ = _limit(next(CAPTURES.glob("246-*.txt")))
    assert status == "not-applicable" and "vGPU" in message
