"""CTR-SHM-SIZE: Ray's object store asking for more than /dev/shm holds (facts/symptoms.py `ray-store-shm`).

Ray's store runner compares the memory asked for the object store with what /dev/shm has free and logs both figures
(src/ray/object_manager/plasma/store_runner.cc); its Python launcher refuses such a store before (services.py,
quoted in ray-project/ray#16308). Either line is an issue on its own. Ray's fallback warning (`/dev/shm has only N bytes
available`) states a free space, not a failure, and stays judged by its size.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

SHM = "CTR-SHM-SIZE"

# Modelled on services.py's message (ray-project/ray#16308 quotes its format string): the launcher's refusal.
LAUNCHER = ("ValueError: The configured object store size (64.0 GB) exceeds /dev/shm size (8.59 GB). This will harm "
            "performance. Consider deleting files in /dev/shm or increasing its size with --shm-size in Docker. To "
            "ignore this warning, set RAY_OBJECT_STORE_ALLOW_SLOW_STORAGE=1.\n")


def test_the_raylet_line_is_an_issue_1079() -> None:
    r = capture_checks("1079", SHM)[SHM]
    assert r.status == "issue" and "System memory request exceeds" in " ".join(r.evidence)


def test_the_launchers_refusal_is_the_same_symptom() -> None:
    assert [h.symptom.name for h in find_symptoms(LAUNCHER.splitlines())] == ["ray-store-shm"]


def test_the_fallback_warning_of_free_space_is_no_symptom(tmp_path: Path) -> None:
    """Corpus 272's line: /dev/shm with 478 GB free; Ray used /tmp for a larger store. A size, not a failure."""
    line = ("2020-11-11 11:29:31,386\tWARNING services.py:1625 -- WARNING: The object store is using /tmp instead of "
            "/dev/shm because /dev/shm has only 477999988736 bytes available. This may slow down performance!\n")
    assert not find_symptoms(line.splitlines())
    assert paste_checks(tmp_path, line, SHM)[SHM].status != "issue"


def test_the_raylet_line_behind_the_log_monitors_tag(tmp_path: Path) -> None:
    """Modelled: the same line as Ray's log monitor forwards it to the driver, its `(raylet)` tag first."""
    line = ("(raylet) [2024-05-02 10:01:12,004 W 812 812] store_runner.cc:50: System memory request exceeds memory "
            "available in /dev/shm. The request is for 21474836480 bytes, and the amount available is 7730941132 "
            "bytes.\n")
    assert paste_checks(tmp_path, line, SHM)[SHM].status == "issue"

