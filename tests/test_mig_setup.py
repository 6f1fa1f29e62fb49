"""Issue 28: MIG enabled on purpose is read from the paste's own lines, never assumed.

A device plugin's MIG strategy, the MIG manager's layout label and MIG resources are written by whoever set MIG
up (facts/mig_setup.py); with one shown and no engine running TP > 1, MEM-MIG is not an issue. Lines are verbatim
from the public threads named beside each; the counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.mig_setup import parse_mig_setup
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"


@pytest.mark.parametrize("line", [
    "with migstrategy=single",  # NVIDIA/k8s-device-plugin#257 (anaconda2196)
    'turn mig on a device and deploy https://github.com/NVIDIA/k8s-device-plugin/blob/master/nvidia-device-plugin.yml '
    'with  "--mig-strategy=single" in its args section',  # NVIDIA/k8s-device-plugin#229 (Omoong)
    "      migStrategy: mixed",  # NVIDIA/gpu-operator#704 (lengrongfu)
    "  nvidia.com/mig-1g.10gb:  6",  # NVIDIA/gpu-operator#637 (xhejtman), the node's allocatable
    '        nvidia.com/mig-1g.10gb: "1"',  # NVIDIA/k8s-device-plugin#728 (lengrongfu), a pod's limits
])
def test_lines_that_set_mig_up(line: str) -> None:
    assert parse_mig_setup(line).lines == (line.strip(),)


@pytest.mark.parametrize("line", [
    "      migStrategy: none",  # modelled: the strategy that turns MIG handling off
    "nvidia.com/mig.config=all-disabled",  # modelled: the MIG manager's layout with MIG off
    # NVIDIA/k8s-device-plugin's help text (Project-HAMi/HAMi#1014): names the flag, sets nothing.
    '[none | single | mixed] (default: "none") [$MIG_STRATEGY] --fail-on-init-error',
])
def test_lines_that_do_not(line: str) -> None:
    with pytest.raises(ParseError):
        parse_mig_setup(line)


def _mig(tmp_path: Path, text: str) -> tuple[str, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    r = run_checks(load_pasted([str(path)]), ["MEM-MIG"])["MEM-MIG"]
    return r.status, r.message


def _body_284() -> str:
    text = next(CAPTURES.glob("284-*.txt")).read_text()
    return text.split("# ----- end of header; everything below this line is the capture, verbatim -----\n", 1)[1]


def test_corpus_284_mig_with_the_device_plugins_strategy_is_deliberate(tmp_path: Path) -> None:
    status, message = _mig(tmp_path, _body_284())
    assert status == "not-an-issue", message
    assert "migstrategy=single" in message


def test_the_same_table_without_the_strategy_stays_an_issue(tmp_path: Path) -> None:
    # Modelled counter-example: the strategy line taken out, nothing says the slicing is wanted.
    status, message = _mig(tmp_path, _body_284().replace("with migstrategy=single\n", ""))
    assert status == "issue", message
