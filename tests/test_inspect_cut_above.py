"""`docker inspect` excerpts that start below their top object (issue 28, blind 1766): the levels cut away above the
first line are opened again, and what the excerpt shows is read into the container facts; nothing else is."""

from __future__ import annotations

import pytest

from corpus import body, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.container_specs import CUT_KEY, close_json, parse_inspect_excerpt
from stackaudit.facts.docker import DockerContainers
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise


def _containers(host: MemoryHost) -> DockerContainers:
    from stackaudit.engine.collect import Collector

    return Collector(host).fact("docker_containers", DockerContainers)


def test_1766_a_fragment_from_graphdriver_data_gives_the_image_and_its_whole_env() -> None:
    # NVIDIA/nvidia-docker#865: from GraphDriver.Data (two levels below the container object) to Config.Entrypoint.
    text = body("1766")
    assert [kind for kind, *_ in recognise(text).recognised] == ["docker inspect excerpt"]
    host = pasted(text)
    (ctr,) = _containers(host).containers
    assert ctr.image == "nvidia/cuda" and ctr.excerpt and ctr.env_whole
    assert ctr.env_value("CUDA_VERSION") == "10.0.130" and ctr.env_value("NVIDIA_VISIBLE_DEVICES") == "all"
    # HostConfig is above the cut: its runtime, shm size and GPU request are unknown, not Docker's defaults.
    assert ctr.shm_size is None and ctr.runtime == "" and ctr.device_requests == () and ctr.shm_unshown
    results = run_checks(host, ["IC-NCCL-ENV", "CTR-SHM-SIZE", "DRV-CUDA-COMPAT", "CTR-GPU-ACCESS"])
    assert {k: r.status for k, r in results.items()} == {
        "IC-NCCL-ENV": "ok", "CTR-SHM-SIZE": "unknown", "DRV-CUDA-COMPAT": "unknown", "CTR-GPU-ACCESS": "unknown"}
    # NCCL_VERSION is the image's record of its NCCL, which NCCL does not read: no setting.
    assert "NCCL_VERSION" not in results["IC-NCCL-ENV"].message


def test_the_same_env_list_cut_before_its_end_is_not_whole() -> None:
    # Modelled on 1766: the paste stops inside the Env list, so variables after the cut are not shown.
    lines = body("1766").splitlines()[1:]  # below its fence line
    cut = "\n".join(lines[:lines.index(next(x for x in lines if "NCCL_VERSION" in x))])
    (ctr,) = parse_inspect_excerpt(cut)
    assert ctr.env_value("NVIDIA_VISIBLE_DEVICES") == "all" and not ctr.env_whole


# kreuzwerker/terraform-provider-docker#405 (captn3m0's comment): a `docker inspect` of a `--gpus all` container
# pasted from the end of a list inside HostConfig (two levels below the container object) into GraphDriver.
TERRAFORM_405 = """\
            ],
            "ReadonlyPaths": [
                "/proc/bus",
                "/proc/fs",
                "/proc/irq",
                "/proc/sys",
                "/proc/sysrq-trigger"
            ],
            "Init": false
        },
        "GraphDriver": {
            "Data": {
                "MergedDir": "/var/lib/docker/overlay2/dfaeca34766819244849f66b40ab5b597ff188d75a3d85f58bd171637b46aa6e/merged",
                "UpperDir": "/var/lib/docker/overlay2/dfaeca34766819244849f66b40ab5b597ff188d75a3d85f58bd171637b46aa6e/diff",
                "WorkDir": "/var/lib/docker/overlay2/dfaeca34766819244849f66b40ab5b597ff188d75a3d85f58bd171637b46aa6e/work"
            },
            "Name": "overlay2"
"""


def test_a_fragment_that_starts_inside_a_hostconfig_list_opens_both_levels() -> None:
    data = close_json(TERRAFORM_405)
    assert data["GraphDriver"]["Name"] == "overlay2"
    assert data[CUT_KEY] == {CUT_KEY: [], "ReadonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                                            "/proc/sysrq-trigger"], "Init": False}
    # Nothing a container check reads is in it (no Config, no HostConfig key of ours): no container.
    with pytest.raises(ParseError):
        parse_inspect_excerpt(TERRAFORM_405)


# The same fragment with a ShmSize line above Init (modelled): a HostConfig opened above the cut is read by its keys.
def test_a_hostconfig_opened_above_the_cut_is_read_by_its_keys() -> None:
    text = TERRAFORM_405.replace('"Init": false', '"ShmSize": 67108864,\n            "IpcMode": "private",\n'
                                 '            "Init": false') + '        },\n        "Config": {\n' \
        '            "Hostname": "f00", "Image": "nvidia/cuda:12.2.0-base-ubuntu22.04", "Cmd": ["nvidia-smi"]\n'
    (ctr,) = parse_inspect_excerpt(text)
    assert ctr.shm_size == 67108864 and ctr.ipc_mode == "private" and ctr.image.startswith("nvidia/cuda:12.2")


# containers/podman#19338 (sreevatsank1999's comment): a container object inside a compose API response, pasted from
# its middle (no `{` above "Image") into HostConfig, cut inside RestartPolicy.
PODMAN_19338 = """\
                            "Image": "sha256:35a88802559dd2077e584394471ddaa1a2c5bfd16893b829ea57619301eb3908",
                            "ResolvConfPath": "",
                            "HostnamePath": "",
                            "HostsPath": "",
                            "LogPath": "",
                            "Name": "/test-issue-19338-1",
                            "RestartCount": 0,
                            "Driver": "overlay",
                            "Platform": "linux",
                            "MountLabel": "",
                            "ProcessLabel": "",
                            "AppArmorProfile": "",
                            "ExecIDs": [],
                            "HostConfig": {
                                "Binds": [],
                                "ContainerIDFile": "",
                                "LogConfig": {
                                    "Type": "journald",
                                    "Config": null
                                },
                                "NetworkMode": "bridge",
                                "PortBindings": {},
                                "RestartPolicy": {
                                    "Name": "no",
                                    "MaximumRetryCount": 0
"""


def test_a_container_object_pasted_from_its_middle_shows_its_hostconfig_only() -> None:
    (ctr,) = parse_inspect_excerpt(PODMAN_19338)
    assert ctr.name == "test-issue-19338-1" and ctr.network_mode == "bridge" and ctr.excerpt
    assert ctr.shm_size is None and ctr.env == () and not ctr.env_whole


# apocas/dockerode#811 (batuhanunverdi's issue body, its `> ` quote marks taken off): a vLLM container's inspect
# pasted from inside Config.Env (the list's key and first entries are above the cut) into Config.Cmd.
DOCKERODE_811 = """\
                "NV_LIBNCCL_DEV_PACKAGE_NAME=libnccl-dev",
                "NV_LIBNCCL_DEV_PACKAGE_VERSION=2.25.1-1",
                "NV_LIBNCCL_DEV_PACKAGE=libnccl-dev=2.25.1-1+cuda12.8",
                "LIBRARY_PATH=/usr/local/cuda/lib64/stubs",
                "DEBIAN_FRONTEND=noninteractive",
                "UV_HTTP_TIMEOUT=500",
                "UV_INDEX_STRATEGY=unsafe-best-match",
                "VLLM_USAGE_SOURCE=production-docker-image"
            ],
            "Cmd": [
                "--max-model-len",
                "1024",
                "--gpu-memory-utilization",
                "0.95",
                "--max-num-seqs",
                "1",
                "--tensor-parallel-size",
"""


def test_a_list_whose_key_is_cut_away_is_not_taken_for_the_env() -> None:
    data = close_json(DOCKERODE_811)
    assert data[CUT_KEY][-1] == "VLLM_USAGE_SOURCE=production-docker-image" and "Cmd" in data
    # The list's key is above the cut: it is not claimed as Config.Env, and no Config names a container.
    with pytest.raises(ParseError):
        parse_inspect_excerpt(DOCKERODE_811)


# --- not a container (modelled) ------------------------------------------------------------------

# Another program's JSON cut above its top: a "Config" object with an Env list, but not a container's Config.
OTHER_PROGRAM = """\
            "level": "debug"
        },
        "Name": "worker-3",
        "Config": {
            "Env": ["NCCL_P2P_DISABLE=1", "CUDA_VISIBLE_DEVICES=0"],
            "Replicas": 2
        },
        "Status": "ready"
"""

# An image's `docker inspect` pasted from its middle: its Config is the image's, not a running container's.
IMAGE_TAIL = """\
        "RepoTags": ["nvidia/cuda:10.0-base"],
        "Config": {
            "Hostname": "", "Env": ["CUDA_VERSION=10.0.130", "NVIDIA_VISIBLE_DEVICES=all"], "Cmd": ["/bin/bash"],
            "Image": "sha256:1a2b"
        },
        "Architecture": "amd64"
"""


@pytest.mark.parametrize("text", [OTHER_PROGRAM, IMAGE_TAIL], ids=["other-program", "image-inspect"])
def test_a_config_that_is_no_containers_gives_no_container(text: str) -> None:
    with pytest.raises(ParseError):
        parse_inspect_excerpt(text)
    assert "docker inspect excerpt" not in [kind for kind, *_ in recognise(text).recognised]


def test_an_excerpt_more_levels_deep_than_docker_nests_is_refused() -> None:
    # Hostile (modelled): a thousand closers above a Config: bounded, no container, no RecursionError.
    text = "}\n" * 1000 + '"Config": {"Hostname": "a", "Image": "b", "Env": ["A=1"]}\n'
    with pytest.raises(ParseError):
        parse_inspect_excerpt(text)
