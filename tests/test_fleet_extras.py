"""A gatherer whose optional extra is not installed stops with a one-line UsageError that names the extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stackaudit.errors import UsageError
from stackaudit.fleet.ansible import AnsibleGatherer
from stackaudit.fleet.ray_nodes import RayGatherer


def test_ray_without_ray_names_the_ray_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(UsageError, match=r"^gathering on a Ray cluster needs ray: pip install 'stackaudit\[ray\]'$"):
        RayGatherer(None, 10.0)


def test_ansible_without_ansible_runner_names_the_fleet_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ansible_runner", None)
    inventory = tmp_path / "hosts.ini"
    inventory.write_text("node1\n")
    with pytest.raises(UsageError, match=r"needs ansible-runner and ansible-core: pip install 'stackaudit\[fleet\]'$"):
        AnsibleGatherer(str(inventory), None, 1, None, 10.0, None)
