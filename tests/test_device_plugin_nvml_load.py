"""The Kubernetes device plugin's log: its start lines are read (not refused), and its failure to load NVML proves
CTR-GPU-ACCESS (the node's container runtime does not run containers with the NVIDIA runtime).

The kubelet's CRI prefix (`2023-10-19T11:11:54.957587844+08:00 stderr F `) is taken off first (importers/_paste.py);
the plugin's own start lines are evidence lines (importers/evidence.py `_DEVICE_PLUGIN`); "could not load NVML
library" is a symptom row of facts/symptoms.py. Real pastes are verbatim, each under the public thread it comes from;
modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

FAILED = [
    # https://github.com/NVIDIA/k8s-device-plugin/issues/182 (wbadart, microk8s)
    ("$ kubectl -n kube-system logs nvidia-device-plugin-daemonset-sbqjz\n"
     "2020/10/14 18:04:53 Loading NVML\n"
     "2020/10/14 18:04:53 Failed to initialize NVML: could not load NVML library.\n"
     "2020/10/14 18:04:53 If this is a GPU node, did you set the docker default runtime to `nvidia`?\n"
     "2020/10/14 18:04:53 You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites\n"
     "2020/10/14 18:04:53 You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start\n"),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/444 (the kubelet's CRI log file)
    ("2023-10-19T11:11:54.957587844+08:00 stderr F 2023/10/19 03:11:54 Loading NVML\n"
     "2023-10-19T11:11:54.957723331+08:00 stderr F 2023/10/19 03:11:54 Failed to initialize NVML: could not load NVML "
     "library.\n"
     "2023-10-19T11:11:54.957728922+08:00 stderr F 2023/10/19 03:11:54 If this is a GPU node, did you set the docker "
     "default runtime to `nvidia`?\n"),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/23 (the pod's events, an early plugin)
    ("loading NVML\nFailed to start nvml with error:  could not load NVML library\n"),
]


@pytest.mark.parametrize("text", FAILED)
def test_the_plugin_that_cannot_load_nvml_proves_gpu_access(tmp_path: Path, text: str) -> None:
    res = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "issue"
    assert "could not load NVML" in res.message and "NVIDIA runtime" in res.message


def test_the_plugins_start_lines_and_config_are_read_not_refused() -> None:
    # corpus 145 (NVIDIA/k8s-device-plugin#444, a CRI log cut in the config dump): refused before; nothing in it
    # says how the GPUs are exposed or sliced.
    res = capture_checks("145", "CTR-GPU-ACCESS", "MEM-MIG")
    assert res["CTR-GPU-ACCESS"].status == "unknown"
    assert res["MEM-MIG"].status == "unknown"


def test_a_plugin_that_registered_its_gpus_shows_no_failure(tmp_path: Path) -> None:
    # Modelled: the plugin's start in klog form, ending in its registration with the kubelet.
    text = ("I1019 06:25:03.801505       1 main.go:154] Starting FS watcher.\n"
            "I1019 06:25:03.801939       1 main.go:176] Starting Plugins.\n"
            "I1019 06:25:03.901939       1 server.go:165] Starting GRPC server for 'nvidia.com/gpu'\n"
            "I1019 06:25:03.911939       1 server.go:125] Registered device plugin for 'nvidia.com/gpu' with Kubelet\n")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "issue"
