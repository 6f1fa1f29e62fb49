"""Version strings of Python packages, CUDA and drivers, compared by PEP 440 (`packaging.version`):
`2.7.0rc1` sorts before `2.7.0`, `2.7.1+cu128` is release 2.7.1 built for CUDA 12.8, `0.2.08` is `0.2.8`
(https://packaging.python.org/en/latest/specifications/version-specifiers/).

Kernel releases are not PEP 440 (`6.13.0-rc1`, `6.8.12-9-pve`) and keep their own tuple
(`KernelInfo.release_tuple`): a kernel's merge window lands in its rc1, so a 6.13 rc has 6.13's features."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

_NUMERIC_PREFIX = re.compile(r"\d+(?:\.\d+)*")


def parse_version(text: str | None) -> Version | None:
    """The PEP 440 version in `text`; a string that is not one (`12.8.r12.8`, `550.54.15-open`) gives its
    leading dotted numbers; None when there are none."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        m = _NUMERIC_PREFIX.match(text)
        return Version(m.group(0)) if m else None


def release(text: str | None, parts: int | None = None) -> tuple[int, ...]:
    """The release numbers (`2.7.0rc1+cu128` -> (2, 7, 0)), the first `parts` of them; () when unreadable.
    For comparing a series (CUDA 12.8, driver branch 570), not two builds of one release."""
    version = parse_version(text)
    numbers = version.release if version is not None else ()
    return numbers[:parts] if parts is not None else numbers


def public_version(text: str) -> str:
    """`0.2.8+cu128torch2.7` -> `0.2.8`: the release without its local build label (normalised)."""
    version = parse_version(text)
    return version.public if version is not None else text.split("+", 1)[0]


def is_older(text: str | None, floor: str) -> bool | None:
    """Whether `text` sorts before `floor` by PEP 440 (a pre-release before its release); None when unreadable."""
    version = parse_version(text)
    return None if version is None else version < Version(floor)


# Engine settings that exist only from a release on: (engine, setting) -> the first release that reads it, with the
# change that added it. Advice that names one is for that release or later.
FIRST_RELEASE = {
    # vLLM PR 8911 (merged 2024-09-27, after v0.6.2): before it the real P2P probe always ran.
    ("vllm", "VLLM_SKIP_P2P_CHECK"): ("0.6.3", "https://github.com/vllm-project/vllm/pull/8911"),
    # vLLM PR 10437 (merged 2024-11-19, after v0.6.4): `--compilation-config` / `-O`, which can turn CUDA graphs off.
    ("vllm", "compilation_config"): ("0.6.5", "https://github.com/vllm-project/vllm/pull/10437"),
    # CUDA graphs of the model's decode step at all (checks/rt.py RT-CUDA-GRAPHS): vLLM PR 1926 (December 2023, in v0.2.6,
    # with `--enforce-eager` to turn them off; the 0.1.x and 0.2.0 to 0.2.5 releases ran every step eagerly). TGI PR 1428
    # ("experimental support for cuda graphs", `--enable-cuda-graphs`, in v1.4.0, January 2024); from 2.0 they are on
    # by default (PR 1703, `--cuda-graphs`). TGI's earlier CUDA graph of its logits warpers (PR 302, May 2023) has no
    # setting, and captures no model step.
    ("vllm", "cuda_graphs"): ("0.2.6", "https://github.com/vllm-project/vllm/pull/1926"),
    ("tgi", "cuda_graphs"): ("1.4.0", "https://github.com/huggingface/text-generation-inference/pull/1428"),
}


def predates(engine: str, setting: str, version: str | None) -> str:
    """The first release that reads `setting` where `version` is older (`0.6.3`); "" where it reads it, the
    setting is not in FIRST_RELEASE, or the version is unreadable."""
    first = FIRST_RELEASE.get((engine, setting))
    return first[0] if first is not None and is_older(version, first[0]) else ""
