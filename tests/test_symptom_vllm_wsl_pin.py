"""vLLM's "Using 'pin_memory=False' as WSL is detected" proves MEM-PINNED-HOST on its own (facts/symptoms.py).

vLLM logs the line where it allocates host buffers without pinning (vllm-project/vllm#312); the check's own facts
(the serving processes, the kernel release) are seldom in a pasted log.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "MEM-PINNED-HOST"

# https://github.com/vllm-project/vllm/issues/1084 (issue body, 2023-09-18): the V0 cache engine's line, as quoted.
VLLM_1084 = """\
WARNING 09-18 10:59:09 cache_engine.py:96] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.
"""

# https://github.com/vllm-project/vllm/issues/38820 (comment by Asher-Ding, 2026-05-06): vLLM 0.20.1, TP 2 on WSL2; the
# log's first lines.
VLLM_38820 = """\
WARNING 05-06 20:59:06 [interface.py:686] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:299]
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:299]        █     █     █▄   ▄█
"""

# Modelled: the same start-up on native Linux, where vLLM pins and logs no such line.
NATIVE = """\
(APIServer pid=34165) INFO 05-06 20:59:06 [utils.py:233] non-default args: {'model_tag': '/models/gemma', 'host': '0.0.0.0'}
(EngineCore pid=589) INFO 03-22 10:54:07 [parallel_state.py:1400] world_size=1 rank=0 local_rank=0 backend=nccl
"""


def test_tp2_worker_log_in_the_corpus_is_an_issue() -> None:
    result = capture_checks("371", CHECK)[CHECK]  # vllm-project/vllm#15255
    assert result.status == "issue"
    assert "pin_memory=False" in result.message and "WSL" in result.message


def test_v0_cache_engine_line_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_1084, CHECK)[CHECK]
    assert result.status == "issue"
    assert any("cache_engine.py:96" in e for e in result.evidence)


def test_v1_interface_line_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_38820, CHECK)[CHECK]
    assert result.status == "issue"


def test_native_linux_log_proves_nothing(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NATIVE, CHECK)[CHECK]
    assert result.status != "issue"
