"""Reports on NCCL logs, read as their users would (r69):

- NCCL_DEBUG's dated prefix (`[2025-05-10 23:09:41] host:pid:tid [2] ... NCCL WARN`) is NCCL's, not SGLang's: an
  nccl-tests log (1360) and vLLM runs (847, 969) name no SGLang engine; SGLang's own dated lines still do.
- IC-P2P-FUNCTIONAL's fix on a run with no serving engine (a Horovod job, 1250; nvbandwidth, 1035) is the platform's,
  not vLLM's cache and flags; a run that shows SGLang (632) keeps its fix.
- Where no finding stands, an NCCL WARN of a failed call is the verdict's quote (1360, 1437), with the NCCL log as the
  next step, not a tokens/s ceiling; a warning that libibverbs is absent is no failure (626).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus import body
from stackaudit.cli.main import main
from stackaudit.facts._parse import ParseError
from stackaudit.facts.serving_logs import SGLANG_LINE
from stackaudit.facts.trouble import find_trouble


@pytest.fixture(autouse=True)
def own_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME of this test's own: no `bench` history left by other runs gives a measured rate."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str, fmt: str = "json") -> Any:
    paste = tmp_path / "paste.txt"
    paste.write_text(body(number), encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", fmt]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if fmt == "json" else out


def _result(report: Any, check: str) -> Any:
    return next(r for r in report["results"] if r["id"] == check)


def test_nccl_timestamp_prefix_is_not_sglangs() -> None:
    assert not SGLANG_LINE.search("[2025-05-10 23:09:41] bm-h100-02:630335:630409 [2] transport/nvls.cc:254 NCCL WARN "
                                  "Cuda failure 1 'invalid argument'")
    assert SGLANG_LINE.search("[2025-01-02 03:04:05 TP0] Load weight end.")
    assert SGLANG_LINE.search("[2025-01-02 03:04:05] server_args=ServerArgs(model_path='m')")


def test_an_installer_echoing_its_command_is_not_sglang() -> None:
    # Real: Google's GPU driver installer's log (GoogleCloudPlatform/compute-gpu-installation#10, corpus 2090).
    assert not SGLANG_LINE.search("[2022-05-05 12:35:02] Executing: lspci -n")
    assert not SGLANG_LINE.search("[2022-05-05 12:35:03] Executing: sh NVIDIA-Linux-x86_64-495.46.run -s")


@pytest.mark.parametrize("number", ["1360", "847", "969"])
def test_nccl_logs_name_no_sglang(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str) -> None:
    report = _report(tmp_path, capsys, number)
    assert "sglang" not in (report["host"].get("engines") or [])


@pytest.mark.parametrize("number", ["1360", "1437"])
def test_nccl_failure_is_the_verdicts_quote(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str) -> None:
    verdict = str(_report(tmp_path, capsys, number)["verdict"])
    assert verdict.startswith("nothing found on the host that explains NCCL's failure (“NCCL WARN ")
    assert "stackaudit ceiling" not in verdict and "no fault found" not in verdict
    assert "NCCL_DEBUG=INFO log" in verdict


def test_1360_quotes_the_failed_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "(“NCCL WARN Cuda failure 1 'invalid argument'”)" in str(_report(tmp_path, capsys, "1360")["verdict"])


def test_missing_libibverbs_is_no_failure() -> None:
    with pytest.raises(ParseError):
        find_trouble("misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]")
    assert find_trouble("host:1:2 [0] NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable").kind \
        == "failure"


@pytest.mark.parametrize("number", ["1250", "1035"])
def test_p2p_fix_without_an_engine_is_the_platforms(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    number: str) -> None:
    r = _result(_report(tmp_path, capsys, number), "IC-P2P-FUNCTIONAL")
    assert r["status"] == "issue"
    runtime = r["fix"]["runtime"]
    assert "vllm" not in runtime.lower() and "FW-ACS-P2P" in runtime and "restart the job" in runtime
    assert "VLLM" not in (r["fix"].get("note") or "")


def test_1250_text_report_names_no_vllm_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = str(_report(tmp_path, capsys, "1250", fmt="text"))
    assert "VLLM_CACHE_ROOT" not in text and "VLLM_SKIP_P2P_CHECK" not in text
    assert "fix: restart the job" in text


def test_p2p_fix_with_sglang_shown_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = _result(_report(tmp_path, capsys, "632"), "IC-P2P-FUNCTIONAL")
    assert r["status"] == "issue" and "restart the job" not in r["fix"]["runtime"]
