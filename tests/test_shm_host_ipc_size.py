"""`--ipc=host` gives a container the host's /dev/shm, and a `--shm-size` beside it sizes nothing (CTR-SHM-SIZE).

Docker mounts a tmpfs of the ShmSize only for a private or shareable IPC namespace; under host IPC the container's
/dev/shm is the host's (moby daemon/container_operations_unix.go setupIPCDirs: `ShmPath = "/dev/shm"`; Podman rejects
the pair: "cannot set shmsize when running in the host IPC Namespace", containers/podman#14609). So a host-IPC
container's /dev/shm is as large as the host's: the engines' documented setting, ok where the host's size is not shown
(a tmpfs of half the RAM unless the host mounts it smaller), and judged on the host's `df` where it is. Real pastes are verbatim, each under the public thread it comes from; the counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/deepseek-ai/DeepSeek-V3/issues/401 (lei-hsia, 2025-01-28): --shm-size 32g beside --ipc=host.
DEEPSEEK_401 = """\
docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --ipc=host lmsysorg/sglang:latest \\
    python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --port 30000
"""
# Modelled: the same run with the host's `df -h /dev/shm` shown beside it.
HOST_DF = """\
$ df -h /dev/shm
Filesystem      Size  Used Avail Use% Mounted on
tmpfs           252G     0  252G   0% /dev/shm
"""
# Modelled: the same run in a private IPC namespace, where --shm-size 32g is the container's /dev/shm.
PRIVATE_32G = DEEPSEEK_401.replace(" --ipc=host", "")


def test_shm_size_beside_host_ipc_is_ok_and_says_the_hosts_size_is_not_shown(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, DEEPSEEK_401, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "ok", res.message
    assert "its size is not in this source" in res.message
    assert "host's /dev/shm" in res.message and "applies only to a private IPC namespace" in res.message


def test_host_ipc_pastes_from_three_threads_are_ok_from_host_ipc_not_the_shm_size() -> None:
    # 710: DeepSeek-V3#401; 711: sgl-project/sglang#3855 (--privileged --shm-size 32g --ipc=host); 663:
    # sgl-project/sglang#4978 (--shm-size=128G and --ipc=host twice). The --shm-size beside host IPC sizes nothing.
    for prefix in ("710", "711", "663"):
        res = capture_checks(prefix, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert res.status == "ok", (prefix, res.message)
        assert "host IPC" in res.message and "applies only to a private IPC namespace" in res.message


def test_host_ipc_with_the_hosts_df_is_ok(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, DEEPSEEK_401 + "\n" + HOST_DF, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "ok", res.message
    assert "252 GiB" in res.message


def test_host_ipc_on_a_host_whose_shm_is_small_is_an_issue(tmp_path: Path) -> None:
    """Modelled: the host's `df` shows a 64 MiB /dev/shm, which host IPC hands to the TP 8 engine."""
    small = HOST_DF.replace("252G     0  252G", " 64M     0   64M")
    res = paste_checks(tmp_path, DEEPSEEK_401 + "\n" + small, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "issue", res.message
    assert "64 MiB" in res.message


def test_shm_size_in_a_private_namespace_is_the_containers_size(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, PRIVATE_32G, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert res.status == "ok", res.message
    assert "32 GiB" in res.message
