"""Issue 28, step 4 (h49c): RT-ENV-VLLM on a whole spec's env with no bad value: ok, and not-an-issue where a variable
looks like a slow or debugging setting and is not (checks/rt.VLLM_ENV_LOOKALIKES).

Real pastes: 1051 (FlashInfer attention and MoE switches: ok), 891 (TRITON_ATTN_VLLM_V1, which gpt-oss needs on an
A100), 330 (VLLM_LOGGING_LEVEL=DEBUG), 387 (VLLM_USE_V1=1): not-an-issue.
"""

from __future__ import annotations

from corpus import capture_checks

ENV = "RT-ENV-VLLM"


def test_flashinfer_switches_are_ok() -> None:
    result = capture_checks("1051", ENV)[ENV]
    assert result.status == "ok" and "VLLM_USE_FLASHINFER_MOE_FP8=1" in result.message


def test_lookalikes_are_not_an_issue() -> None:
    for prefix, shown in (("891", "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1: a forced attention backend"),
                          ("330", "VLLM_LOGGING_LEVEL=DEBUG: debug logging"),
                          ("387", "VLLM_USE_V1=1: the engine generation")):
        result = capture_checks(prefix, ENV)[ENV]
        assert result.status == "not-an-issue" and shown in result.message, prefix
