"""IC-CUSTOM-ALLREDUCE: vLLM 0.3.1-0.3.3 turned custom all-reduce off for every TP run (vllm-project/vllm#2808).

Its config.py logs "Custom all-reduce kernels are temporarily disabled due to stability issues" whenever the
world size is above 1, whatever the host: the release's choice, not a host fault (not-an-issue).
Real lines are quoted from the threads named beside each; the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import AR_RELEASE

# https://github.com/vllm-project/vllm/issues/3747 (A100 x 8 under FastAPI and Ray, 2024-03-31): the start-up lines.
VLLM_3747 = """INFO 03-31 02:05:23 config.py:433] Custom all-reduce kernels are temporarily disabled due to stability issues. We will re-enable them once the issues are resolved.
2024-03-31 02:05:23,253 INFO worker.py:1585 -- Calling ray.init() again after it has already been called.
"""

# https://github.com/vllm-project/vllm/issues/3457 (TP 2 under Ray, 2024-03-18): the two start-up lines of its "Log
# info". The retrieved copy cuts the second line after "We will r"; its tail here is modelled from the release's
# config.py:433 message (the same words as vllm#3747's line).
VLLM_3457 = """WARNING 03-18 03:37:09 config.py:618] Casting torch.bfloat16 to torch.float16.
INFO 03-18 03:37:09 config.py:433] Custom all-reduce kernels are temporarily disabled due to stability issues. We will re-enable them once the issues are resolved.
"""


def test_release_line_is_read_as_the_release_reason(tmp_path: Path) -> None:
    for text in (VLLM_3747, VLLM_3457):
        log = fact(pasted(text), "serving_log")
        assert [r for r, _ in log.custom_ar_disabled] == [AR_RELEASE]


def test_release_off_is_not_a_host_issue(tmp_path: Path) -> None:
    # Corpus 364 (TP 8 under Ray, vllm-project/vllm#3525), vllm-project/vllm#3747 and vllm-project/vllm#3457.
    r = capture_checks("364", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "not-an-issue" and "vllm-project/vllm#2808" in r.message
    for text in (VLLM_3747, VLLM_3457):
        result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
        assert result.status == "not-an-issue" and "vllm-project/vllm#2808" in result.message
        assert paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"].status == "not-an-issue"


def test_a_disabled_line_with_another_reason_is_not_the_release() -> None:
    # Modelled: vLLM's P2P refusal line is a host finding, not the release's switch.
    text = ("INFO 05-02 10:00:00 custom_all_reduce.py:133] Custom allreduce is disabled because your platform lacks "
            "GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True "
            "explicitly.\n")
    log = fact(pasted(text), "serving_log")
    assert [r for r, _ in log.custom_ar_disabled] != [AR_RELEASE]

