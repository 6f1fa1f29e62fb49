"""A command imports what it uses: `audit` loads no other command's code and no product it does not run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from stackaudit.host.memory import HostRecord
from stackaudit.host.snapshot_writer import write_snapshot

CAPTURE = Path(__file__).resolve().parent / "data" / "captures" / "01-a100-sxm4-mig-persistence-off-nvsmi-xml.txt"
# Loaded by `audit` on the old code (the CLI registered every command's module up front; the renderers
# imported investigate): none of them is used by an audit.
NOT_USED_BY_AUDIT = ("stackaudit.cli.bench", "stackaudit.cli.fleet", "stackaudit.cli.compare", "stackaudit.cli.fix",
                     "stackaudit.cli.investigate", "stackaudit.cli.ceiling", "stackaudit.cli.report",
                     "stackaudit.investigate", "stackaudit.bench", "stackaudit.fleet", "stackaudit.compare")


def _modules_after(*args: str) -> set[str]:
    code = ("import json, sys\nfrom stackaudit.cli.main import main\nrc = main(sys.argv[1:])\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line[len("MODULES "):]))


def test_audit_loads_no_other_command_or_product() -> None:
    loaded = _modules_after("audit", "--from", str(CAPTURE), "--format", "json")
    assert "stackaudit.engine.runner" in loaded and "stackaudit.report.json_report" in loaded
    assert sorted(m for m in loaded if m.startswith(NOT_USED_BY_AUDIT)) == []


def test_audit_from_a_snapshot_loads_no_paste_recogniser(tmp_path: Path) -> None:
    snapshot = tmp_path / "host.tar.gz"
    write_snapshot(HostRecord(meta={"source": "live", "hostname": "h"}), str(snapshot))
    loaded = _modules_after("audit", "--from", str(snapshot), "--format", "json")
    assert "stackaudit.host.snapshot_reader" in loaded
    assert sorted(m for m in loaded if m.startswith("stackaudit.importers.") and m != "stackaudit.importers._compressed") == []


def test_a_command_loads_its_own_module_and_help_lists_them_all() -> None:
    loaded = _modules_after("report", "--help")
    assert "stackaudit.cli.report" in loaded and "stackaudit.cli.bench" not in loaded
    assert {"stackaudit.cli.bench", "stackaudit.cli.fleet"} <= _modules_after("--help")
