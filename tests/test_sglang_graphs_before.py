"""RT-CUDA-GRAPHS on an SGLang command without its release (issue 28, blind XL run: corpus 1068).

SGLang releases before sgl-project/sglang#612 captured no CUDA graphs by default, and `--enable-mla` ran MLA on the
Triton attention backend, which captured none before sgl-project/sglang#1401 (2024-09-12): without the release the
check stays unknown, and names the flag where the command carries it (checks/rt.SGLANG_EAGER_BEFORE).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks


def test_enable_mla_without_the_release_is_named() -> None:
    """Real (corpus 1068, sgl-project/sglang#1329 of 2024-09-04): `--enable-mla ... --tp 8`, no release shown. The
    reviewer wants ok; the release it ran predates #1401 by a week, so graphs may have been off."""
    r = capture_checks("1068", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "unknown" and "--enable-mla" in r.message and "1401" in r.message


def test_a_command_without_such_a_flag_keeps_the_general_reason(tmp_path: Path) -> None:
    """Modelled counter-example: an SGLang command without `--enable-mla` names no flag, and with no doubt the
    capture shows it reads ok with SGLang's default-on caveat (h73b)."""
    text = "python3 -m sglang.launch_server --model-path /models/llama --tp 2 --port 30000\n"
    r = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "--enable-mla" not in r.message and "July 2024" in r.message
