"""MEM-GPU-SHARED over GPUs in Exclusive_Process mode that already hold a context (error 46, corpus 1465, 1466): the
fix is the holder, another GPU or the compute mode, not the catalogue's headless desktop and MPS shutdown, which the
table shows no reason for (no display, no MPS), and not "restart the engine"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import body
from stackaudit.cli.main import main


@pytest.mark.parametrize(("number", "indices"), [("1465", "0"), ("1466", "0,1,2")])
def test_an_exclusive_gpu_gets_the_holder_or_the_compute_mode_as_fix(
        number: str, indices: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "paste.txt"
    paste.write_text(body(number), encoding="utf-8")
    capsys.readouterr()
    main(["audit", "--from", str(paste), "--format", "json"])
    found = next(r for r in json.loads(capsys.readouterr().out)["results"] if r["id"] == "MEM-GPU-SHARED")
    assert found["status"] == "issue" and "Exclusive_Process" in found["message"]
    said = json.dumps(found["fix"])
    assert f"nvidia-smi -i {indices} -c DEFAULT" in said
    assert "multi-user.target" not in said and "nvidia-cuda-mps-control" not in said
    assert "restart the engine" not in said
