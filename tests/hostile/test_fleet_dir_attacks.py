"""`fleet --from DIR` where another user can write DIR (review 2026-12, L9): a link is never followed, and a
directory others can write is refused unless --allow-shared-dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from stackaudit.cli.main import main


def _drop(tmp: Path, mode: int) -> Path:
    drop = tmp / "drop"
    drop.mkdir()
    secret = tmp / "rootonly.txt"
    secret.write_text("$ nvidia-smi\nIMPORTANT-ROOT-SECRET\n")
    os.chmod(secret, 0o600)
    (drop / "leak.tar.gz").symlink_to(secret)
    (drop / "zero.tar.gz").symlink_to("/dev/zero")
    os.chmod(drop, mode)
    return drop


def test_a_drop_directory_others_can_write_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drop = _drop(tmp_path, 0o1777)
    capsys.readouterr()
    assert main(["fleet", "--from", str(drop), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--allow-shared-dir" in err


@pytest.mark.parametrize("mode", [0o700, 0o1777])
def test_links_in_a_drop_directory_are_failed_nodes_never_opened(tmp_path: Path, mode: int,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    drop = _drop(tmp_path, mode)
    out = tmp_path / "fleet.json"
    extra = ["--allow-shared-dir"] if mode & 0o002 else []
    assert main(["fleet", "--from", str(drop), "--format", "json", "-o", str(out), *extra]) == 1
    text = out.read_text()
    doc = json.loads(text)
    reasons = json.dumps(doc)
    assert "IMPORTANT-ROOT-SECRET" not in text and "a symbolic link: not followed" in reasons
    assert "truncated header" not in reasons and "not a regular file" not in reasons
