"""CTR-GPU-ACCESS over the kubelet's event for the GPU Operator's driver pod whose startup probe (nvidia-smi in the
driver container) fails with nvidia-smi's own words (facts/symptoms.py `operator-driver-probe-failed`): the driver
reaches no GPU, the container never turns ready, and no pod on the node is handed a GPU. An issue on its own, quoted.
Another probe's failure (an HTTP probe's status code) is no such line.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import is_symptom

# Real: https://github.com/NVIDIA/gpu-operator/issues/649 (a maintainer's comment quoting the driver pod's events,
# IBM Cloud OpenShift 4.14).
OPERATOR_649 = "Warning Unhealthy 2m6s (x41235 over 5d15h) kubelet Startup probe failed: No devices were found\n"


def test_the_driver_pods_failed_probe_is_the_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, OPERATOR_649, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message
    assert "fails its startup probe" in result.message


def test_the_event_quoted_in_the_users_words() -> None:
    # Real: https://github.com/NVIDIA/gpu-operator/issues/641 (corpus 1822), the event quoted in prose over lspci.
    result = capture_checks("1822", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message


def test_another_probes_failure_is_no_such_line() -> None:
    # Modelled: a web server's readiness failure says nothing of a driver.
    assert not is_symptom("Warning  Unhealthy  3m  kubelet  Startup probe failed: HTTP probe failed with statuscode: 503")
