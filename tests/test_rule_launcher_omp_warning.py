"""RT-OMP read from the torch.distributed launcher's own warning, where no process environment is in the paste
(issue 28, blind run H: capture 341)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "RT-OMP"

# https://github.com/hailanyi/CasA/issues/26 (issue body): the warning of torch.distributed.run, verbatim.
CASA_26 = """\
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
"""

# https://github.com/open-mmlab/mmselfsup/issues/731 (issue body): torch.distributed.launch's deprecation, then the
# same warning and mmengine's MKL one, verbatim.
MMSELFSUP_731 = """\
  FutureWarning,
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
/opt/conda/lib/python3.7/site-packages/mmengine/utils/dl_utils/setup_env.py:57: UserWarning: Setting MKL_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
"""


def test_launcher_warning_with_nccl_log_is_not_an_issue() -> None:
    """Real (pytorch#72835, capture 341): the banner above an NCCL INFO log."""
    r = capture_checks("341", CHECK)[CHECK]
    assert r.status == "not-an-issue" and "torch.distributed launcher" in r.message
    assert any("Setting OMP_NUM_THREADS" in e for e in r.evidence)


def test_launcher_warning_alone_is_not_an_issue(tmp_path: Path) -> None:
    """Real (CasA#26): the banner is the whole paste."""
    assert paste_checks(tmp_path, CASA_26, CHECK)[CHECK].status == "not-an-issue"


def test_launcher_warning_among_other_warnings_is_not_an_issue(tmp_path: Path) -> None:
    """Real (mmselfsup#731): the MKL line of mmengine is not the launcher's."""
    assert paste_checks(tmp_path, MMSELFSUP_731, CHECK)[CHECK].status == "not-an-issue"


def test_a_launcher_value_above_one_stays_unknown(tmp_path: Path) -> None:
    """Modelled: a value above 1 needs the CPUs and the ranks per host, which the warning does not give."""
    text = CASA_26.replace("to be 1 in default", "to be 8 in default")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"
