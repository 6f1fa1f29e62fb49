"""CTR-GPU-ACCESS's fix follows the cause the finding names, not the catalogue's `nvidia-ctk runtime configure` and
`--gpus all` for every cause: `--gpus 0` (a count of zero) gets the GPU named (corpus 1460), a runtime hook that ran
and failed is not an unconfigured runtime (1461), and the GPU Operator's driver pod in a restart loop gets its own
log read (1457). Each is read from the JSON report of `audit --from`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus import body
from stackaudit.cli.main import main


def _access(tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str) -> dict[str, Any]:
    paste = tmp_path / "paste.txt"
    paste.write_text(body(number), encoding="utf-8")
    capsys.readouterr()
    main(["audit", "--from", str(paste), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    found = next(r for r in report["results"] if r["id"] == "CTR-GPU-ACCESS")
    assert found["status"] == "issue"
    return dict(found["fix"])


def _text(fix: dict[str, Any]) -> str:
    return json.dumps(fix)


@pytest.mark.parametrize("number", ["1457", "1460", "1461"])
def test_the_fix_does_not_reconfigure_a_runtime_the_source_shows_working(
        number: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = _text(_access(tmp_path, capsys, number))
    assert "nvidia-ctk runtime configure" not in said
    assert "--gpus all" not in said


def test_gpus_zero_gets_the_gpu_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = _text(_access(tmp_path, capsys, "1460"))
    assert "device=0" in said and "recreate the container" in said


def test_a_hook_that_failed_is_read_for_its_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = _text(_access(tmp_path, capsys, "1461"))
    assert "its hook ran" in said and "nvidia-container-cli -k -d /dev/tty info" in said
    assert "restart the engine" not in said


def test_an_operator_pod_in_a_restart_loop_gets_its_log_read(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    said = _text(_access(tmp_path, capsys, "1457"))
    assert "kubectl logs -n gpu-operator-resources nvidia-driver-daemonset-tm22t --all-containers --previous" in said
