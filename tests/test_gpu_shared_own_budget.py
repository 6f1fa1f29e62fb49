"""Issue 28, MEM-GPU-SHARED: memory held on a GPU whose process box is cut, read against what else the paste shows.

- The engine's own budget: a vLLM `--gpu-memory-utilization F` (SGLang `--mem-fraction-static F`) command beside a
  table whose used memory is F of the GPU (plus its CUDA context) is that engine's own memory, not a foreign tenant's
  (corpus 1329, vllm-project/vllm#19125: a second instance will not start beside the user's first).
- A display GPU with no serving work shown that holds more than a desktop does (over 3 GiB) with its process box cut:
  whose memory it is is not in the source (corpus 608).

Corpus files are real pastes; the modelled tables below say so and vary one figure of corpus 1329's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"


def _shared(path: Path) -> tuple[str, str, str]:
    r = run_checks(load_pasted([str(path)]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    return r.status, r.message, r.coverage.text() if r.coverage is not None else ""


def test_the_engines_own_budget_is_not_a_foreign_tenant() -> None:
    status, message, coverage = _shared(next(CAPTURES.glob("1329-*.txt")))
    assert status == "not-an-issue", message
    assert "3578 of 8188 MiB" in message and "0.4" in message and coverage.endswith("1 GPU shown"), message


# Modelled on corpus 1329 (its launch command and its nvidia-smi rows); {flag}, {used} and {disp} vary.
MODELLED_1329 = """\
```bash
python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-0.5B-Instruct {flag}
```

```text
Wed Jun  4 12:06:48 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4060 Ti     Off |   00000000:01:00.0 {disp} |                  N/A |
|  0%   33C    P8              9W /  160W |   {used:>5}MiB /   8188MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
```
"""


@pytest.mark.parametrize(("flag", "used", "disp", "want"), [
    ("--gpu_memory_utilization 0.4", 3578, "Off", "not-an-issue"),
    ("--gpu-memory-utilization=0.4", 3300, "Off", "not-an-issue"),
    # more than the budget and its context: something else holds memory too
    ("--gpu_memory_utilization 0.4", 5200, "Off", "unknown"),
    # no budget on the command line: the memory cannot be matched to the engine
    ("", 3578, "Off", "unknown"),
    # a display on the GPU: the desktop's share is in the figure too, and whose the rest is is not shown
    ("--gpu_memory_utilization 0.4", 3578, " On", "unknown"),
], ids=["1329", "under-context", "over-budget", "no-flag", "display"])
def test_modelled_budget_rows(tmp_path: Path, flag: str, used: int, disp: str, want: str) -> None:
    path = tmp_path / "paste.txt"
    path.write_text(MODELLED_1329.format(flag=flag, used=used, disp=disp))
    status, message, _ = _shared(path)
    assert status == want, message


def test_a_display_gpu_holding_more_than_a_desktop_with_its_processes_cut_is_not_judged() -> None:
    # Corpus 608: Disp.A On, 8091 of 16376 MiB used, no engine shown, the table cut before its Processes box.
    status, message, _ = _shared(next(CAPTURES.glob("608-*.txt")))
    assert status == "unknown" and "8091 MiB" in message, message
    # Corpus 318: 2881 MiB on a display GPU with nothing serving is a desktop's share: not an issue.
    status, message, _ = _shared(next(CAPTURES.glob("318-*.txt")))
    assert status == "not-an-issue", message
