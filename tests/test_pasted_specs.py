"""Container specs people paste (docker run lines, compose files, Kubernetes manifests, docker inspect
excerpts): recognised, recorded verbatim under their own sources, read into `docker_containers`, and
judged by the checks that read it. Corpus files are real pastes; the variants marked modelled are
built from them where a case needs one.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus import body, capture_result, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.container_specs import (
    load_yaml_documents,
    parse_compose,
    parse_docker_run,
    parse_flat_k8s,
    parse_inspect_excerpt,
    parse_k8s,
    parse_size_bytes,
)
from stackaudit.facts.docker import DockerContainers, Ulimit
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise

CORPUS = Path(__file__).parent / "data" / "captures"
GIB = 1024**3





def containers(host: MemoryHost) -> DockerContainers:
    value = fact(host, "docker_containers")
    assert isinstance(value, DockerContainers), value
    return value


# --- docker run --------------------------------------------------------------------------------------


def test_continued_docker_run_is_recorded_verbatim_with_the_engine_argv_after_the_image() -> None:
    text = body("91")
    host = pasted(text)
    doc = host.record.docs["docker_run"]
    assert "    --shm-size 10.24g \\\n    --ipc=host \\\n" in doc  # as pasted, continuations kept
    prov = host.record.provenance["doc:docker_run"]
    assert prov.source == "docker run" and prov.whole is True and prov.lines == (5, 18)
    (ctr,) = containers(host).containers
    assert ctr.image == "vllm/vllm-openai:latest" and ctr.ipc_mode == "host"
    assert ctr.shm_size == int(10.24 * GIB) and ctr.runtime == "nvidia" and ctr.gpu_requested
    assert ctr.env_value("NCCL_P2P_DISABLE") == "1"
    assert ctr.argv[0] == "--gpu-memory-utilization" and ctr.argv[-1] == "--enforce-eager"
    assert ctr.tensor_parallel == 2
    # `docker build` / `docker stop` / `docker logs` lines around it are not docker run lines.
    assert [k for k, _, _ in recognise(text).recognised].count("docker run") == 1


def test_docker_run_flags_reach_the_checks() -> None:
    results = run_checks(pasted(body("91")), ["RT-CUDA-GRAPHS", "CTR-SHM-SIZE", "CTR-GPU-ACCESS", "IC-NCCL-ENV"])
    assert results["RT-CUDA-GRAPHS"].status == "issue" and "--enforce-eager" in results["RT-CUDA-GRAPHS"].message
    # The request is read (a request alone shows no GPU inside: unknown, issue 28 h121c).
    assert "request GPUs: vllm_d (all)" in results["CTR-GPU-ACCESS"].message
    # `--ipc=host` beside `--shm-size`: the container shares the host's /dev/shm, the documented setting.
    assert results["CTR-SHM-SIZE"].status == "ok" and "host IPC" in results["CTR-SHM-SIZE"].message
    # The paste does not show the GPUs' model: NCCL_P2P_DISABLE=1 is judged as on PCIe GPUs with P2P.
    assert "NCCL_P2P_DISABLE=1" in results["IC-NCCL-ENV"].message


def test_one_line_docker_run_without_shm_size_is_the_64_mib_default() -> None:
    host = pasted(body("51"))
    first, second = containers(host).containers
    assert first.shm_size is None and not first.ipc_mode and second.shm_size == GIB
    assert first.argv == ("/bin/bash",) and first.image == "video-diffusion"
    result = run_checks(host, ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
    assert result.status == "issue" and "64 MiB" in result.message


def test_docker_run_with_outputs_from_inside_its_container_gives_that_container_its_flags() -> None:
    # `docker run --rm -it ubuntu`, then `df -h` inside, cut before /dev/shm's mount point.
    host = pasted(body("52"))
    results = run_checks(host, ["CTR-SHM-SIZE", "CTR-GPU-ACCESS"])
    assert results["CTR-SHM-SIZE"].status == "issue" and "64 MiB" in results["CTR-SHM-SIZE"].message
    assert results["CTR-GPU-ACCESS"].status == "not-applicable"
    # Modelled: the same paste with --shm-size=16g on the line is not small.
    bigger = pasted(body("52").replace("docker run --rm -it ubuntu", "docker run --rm --shm-size=16g -it ubuntu"))
    assert run_checks(bigger, ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"].status == "ok"


@pytest.mark.parametrize(("line", "check"), [
    ("$ docker run -itd --gpus '\"device=0,1\"' --ulimit memlock=-1 --ulimit nofile=1024:4096 img",
     lambda c: c.gpu_count == 2 and c.ulimit("memlock") == Ulimit("memlock", -1, -1)
     and c.ulimit("nofile") == Ulimit("nofile", 1024, 4096)),
    ("sudo docker run --device /dev/nvidia0:/dev/nvidia0 -e HOME=/root --name web img python3 app.py",
     lambda c: c.devices == ("/dev/nvidia0",) and c.gpu_count == 1 and c.name == "web"
     and c.argv == ("python3", "app.py") and c.env == (("HOME", "/root"),)),
    ("docker container run --rm -eFOO=1 -p8000:8000 --shm-size=2g --cpus 4.5 img",
     lambda c: c.env_value("FOO") == "1" and c.shm_size == 2 * GIB and c.cpu_limit == 4.5 and c.argv == ()),
])
def test_docker_run_options(line: str, check: Any) -> None:
    assert check(parse_docker_run(line))


def test_docker_run_secrets_are_redacted_where_they_stand() -> None:
    host = pasted("docker run --gpus all -e HF_TOKEN=hf_abcdefghijklmnop -e NCCL_DEBUG=INFO vllm/vllm-openai "
                  "--model m\n")
    doc = host.record.docs["docker_run"]
    assert "hf_abcdefghijklmnop" not in doc and "NCCL_DEBUG=INFO" in doc and "--model m" in doc


@pytest.mark.parametrize("text", [
    "services:\n  api:\n    image: vllm/vllm-openai\n    environment:\n      - HF_TOKEN=hf_abcdefghijklmnop\n",
    "services:\n  api:\n    image: vllm/vllm-openai\n    environment:\n      HF_TOKEN: hf_abcdefghijklmnop\n",
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
     "    image: vllm/vllm-openai\n    env:\n    - name: HF_TOKEN\n"
     "      value: hf_abcdefghijklmnop\n    - {name: API_KEY, value: 'sk-abcdefgh'}\n"),
    "apiVersion: apps/v1 kind: Deployment metadata: name: d spec: template: spec: containers: - name: c image: "
    "vllm/vllm-openai env: - name: HF_TOKEN value: hf_abcdefghijklmnop\n",
])
def test_spec_secrets_are_redacted_where_they_stand(text: str) -> None:
    host = pasted(text)
    recorded = "".join(host.record.docs.values())
    assert recorded and "hf_abcdefghijklmnop" not in recorded and "sk-abcdefgh" not in recorded
    assert "<redacted>" in recorded and "vllm/vllm-openai" in recorded


def test_a_backgrounded_docker_run_with_its_output_redirected_gives_the_engine_argv_alone() -> None:
    """Modelled: `> log 2>&1 &` sends the run's output to a file and puts it in the background; none of those words is
    an argument of the engine in the container (facts._parse.first_command, shared with engine command lines)."""
    c = parse_docker_run("docker run --gpus all --shm-size 8g vllm/vllm-openai:latest --model m --enforce-eager "
                         "> vllm.log 2>&1 &")
    assert c.image == "vllm/vllm-openai:latest" and c.shm_size == 8 * GIB
    assert c.argv == ("--model", "m", "--enforce-eager")
    piped = parse_docker_run("docker run --gpus all vllm/vllm-openai:latest --model m 2>&1 | tee vllm.log")
    assert piped.argv == ("--model", "m")


def test_a_quoted_shell_operator_stays_a_word_of_the_run() -> None:
    """Modelled counter-example: `>` and `|` inside one quoted word are text of the word, not the shell's."""
    c = parse_docker_run("docker run -e 'PROMPT=a > b | c' img python3 app.py --stop 'x|y'")
    assert c.env == (("PROMPT", "a > b | c"),) and c.argv == ("python3", "app.py", "--stop", "x|y")


def test_a_docker_run_line_without_an_image_is_not_one() -> None:
    with pytest.raises(ParseError):
        parse_docker_run("docker run --rm -it")
    assert not [k for k, _, _ in recognise("I tried docker run but it failed\n").recognised if k == "docker run"]


# --- compose -----------------------------------------------------------------------------------------


def test_compose_gpu_reservation_reaches_gpu_access() -> None:
    host = pasted(body("84"))
    assert host.record.provenance["doc:compose_file"].source == "compose"
    by_name = {c.name: c for c in containers(host).containers}
    assert set(by_name) == {"ollama", "open-webui"}
    req = by_name["ollama"].device_requests[0]
    assert req.driver == "nvidia" and req.count == -1 and req.capabilities == (("gpu",),)
    results = run_checks(host, ["CTR-GPU-ACCESS", "RT-CUDA-GRAPHS"])
    assert "request GPUs: ollama (all)" in results["CTR-GPU-ACCESS"].message
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"


def test_cut_compose_file_is_an_excerpt() -> None:
    host = pasted(body("54"))
    (ctr,) = containers(host).containers
    assert ctr.ipc_mode == "host" and ctr.shm_size is None  # `#shm_size:` is a comment
    assert ctr.devices[0] == "/dev/dri/card0" and ctr.tensor_parallel == 2
    assert ctr.env_value("HF_TOKEN") == "<redacted>"
    # The named volume vllm_hf_cache has no top-level `volumes:`: the paste was cut.
    assert ctr.excerpt
    results = run_checks(host, ["RT-CUDA-GRAPHS", "CTR-GPU-ACCESS"])
    assert results["RT-CUDA-GRAPHS"].status == "unknown" and results["CTR-GPU-ACCESS"].status == "not-applicable"


def test_compose_with_its_volumes_declared_is_whole_and_graphs_on() -> None:
    # Modelled on corpus 54: the same service with its named volume declared at the top level.
    text = body("54").replace("#shm_size: '32gb'", "shm_size: '32gb'") + "\nvolumes:\n  vllm_hf_cache:\n"
    (ctr,) = parse_compose(text[text.index("version"):])
    assert not ctr.excerpt and ctr.shm_size == 32 * GIB


# --- Kubernetes ------------------------------------------------------------------------------------

_POD = """apiVersion: v1
kind: Pod
metadata: {name: vllm}
spec:
  containers:
  - name: server
    image: vllm/vllm-openai:latest
    args: ["--model", "m", "--tensor-parallel-size", "4"]
    env:
    - {name: NCCL_DEBUG, value: INFO}
    - name: HF_TOKEN
      valueFrom: {secretKeyRef: {name: hf, key: token}}
    resources: {limits: {nvidia.com/gpu: 4}}
    volumeMounts:
    - {mountPath: MOUNT, name: dshm}
  volumes:
  - name: dshm
    emptyDir: {medium: Memory, sizeLimit: 16Gi}
"""


@pytest.mark.parametrize(("mount", "shm"), [("/dev/shm", 16 * GIB), ("/models", None)])
def test_k8s_pod_shm_from_a_memory_emptydir_mounted_at_dev_shm(mount: str, shm: int | None) -> None:
    # Modelled on corpus 72 and 87 (a dshm emptyDir mounted at /dev/shm, or declared and not mounted).
    (ctr,) = parse_k8s(_POD.replace("MOUNT", mount))
    assert ctr.shm_size == shm and ctr.gpu_count == 4 and ctr.tensor_parallel == 4
    assert ctr.env == (("NCCL_DEBUG", "INFO"),)  # valueFrom is not in the paste


def test_k8s_deployment_excerpt_is_recognised_and_a_cut_document_gives_no_container() -> None:
    host = pasted(body("87"))
    assert host.record.provenance["doc:k8s_spec"].source == "k8s pod"
    # The second Deployment is cut before its containers: nothing read from it, nothing invented.
    assert not isinstance(fact(host, "docker_containers"), DockerContainers)


def test_one_line_manifest_is_read_in_part() -> None:
    host = pasted(body("72"))
    (ctr,) = containers(host).containers
    assert ctr.image == "vllm/vllm-openai:latest" and ctr.gpu_count == 4 and ctr.tensor_parallel == 4
    assert ctr.env == (("NCCL_DEBUG", "INFO"),) and not ctr.excerpt
    # The dshm emptyDir is declared but the only mount is /models: the runtime's 64 MiB.
    assert ctr.shm_size is None
    results = run_checks(host, ["CTR-SHM-SIZE", "CTR-K8S-GPU-TOPOLOGY"])
    assert results["CTR-SHM-SIZE"].status == "issue" and results["CTR-K8S-GPU-TOPOLOGY"].status == "unknown"


def test_one_line_manifest_with_dshm_mounted() -> None:
    # Modelled on corpus 72: the same one-line paste with the dshm volume mounted at /dev/shm.
    line = next(ln for ln in body("72").splitlines() if "apiVersion" in ln).replace("volumeMounts: - mountPath: /models",
                                              "volumeMounts: - mountPath: /dev/shm name: dshm - mountPath: /models")
    line = line.replace("emptyDir: medium: Memory", "emptyDir: {medium: Memory, sizeLimit: 16Gi}")
    (ctr,) = parse_flat_k8s(line)
    assert ctr.shm_size == 16 * GIB


# --- docker inspect excerpts -------------------------------------------------------------------------


def test_hostconfig_fragment_gives_its_ulimits_and_leaves_the_rest_unknown() -> None:
    host = pasted(body("53"))
    assert host.record.provenance["doc:docker_inspect_excerpt"].whole is False
    (ctr,) = containers(host).containers
    assert ctr.excerpt and ctr.ulimit("nofile") == Ulimit("nofile", 1024, 4096) and ctr.shm_size is None
    results = run_checks(host, ["CTR-GPU-ACCESS", "RT-ULIMIT-NOFILE"])
    assert results["CTR-GPU-ACCESS"].status == "unknown"
    # Every process in the container inherits the hard limit 4096.
    assert results["RT-ULIMIT-NOFILE"].status == "issue" and "hard 4096" in results["RT-ULIMIT-NOFILE"].message


def test_inspect_excerpt_after_an_image_object_gives_the_container_args() -> None:
    host = pasted(body("93"))
    (ctr,) = containers(host).containers
    assert ctr.argv[:4] == ("tini", "--", "vllm", "serve") and "--pipeline-parallel-size" in ctr.argv
    results = run_checks(host, ["RT-CUDA-GRAPHS", "CTR-SHM-SIZE"])
    assert results["RT-CUDA-GRAPHS"].status == "unknown" and results["CTR-SHM-SIZE"].status == "unknown"


def test_elided_inspect_is_read_in_pieces() -> None:
    host = pasted(body("83"))
    assert [k for k, _, _ in recognise(body("83")).recognised].count("docker inspect excerpt") == 2
    assert run_checks(host, ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"].status == "unknown"


# One HostConfig key projected by jq or --format: its key is named in the command only.
PROJECTED_DEVICE_REQUESTS = [
    # ollama/ollama#6383 (corpus 2130): jq's output in its own fence, a line of prose between.
    "```\ndocker inspect ollama | jq '.[0].HostConfig.DeviceRequests'\n```\nOn my ollama container, it shows:\n"
    '```json\n[\n  {\n    "Driver": "nvidia",\n    "Count": 1,\n    "DeviceIDs": null,\n    "Capabilities": [\n'
    '      [\n        "gpu"\n      ]\n    ],\n    "Options": null\n  }\n]\n```\n',
    # Notifiarr/dockwatch#29: after a prompt, `jq -r ".[].HostConfig.DeviceRequests"`.
    '[nzxl@roland docker]$ docker inspect plex | jq -r ".[].HostConfig.DeviceRequests"\n[\n  {\n    "Driver": '
    '"nvidia",\n    "Count": 1,\n    "DeviceIDs": null,\n    "Capabilities": [\n      [\n        "gpu"\n      ]\n'
    '    ],\n    "Options": null\n  }\n]\n',
    # Modelled on Docker's --format: `{{json ...}}` prints the value on one line.
    "$ docker inspect -f '{{json .HostConfig.DeviceRequests}}' vllm\n"
    '[{"Driver":"","Count":-1,"DeviceIDs":null,"Capabilities":[["gpu"]],"Options":{}}]\n',
]


@pytest.mark.parametrize("text", PROJECTED_DEVICE_REQUESTS)
def test_a_projected_device_request_is_read_as_an_excerpt(text: str) -> None:
    kinds = [k for k, _, _ in recognise(text).recognised]
    assert kinds == ["docker inspect excerpt"]
    (ctr,) = containers(pasted(text)).containers
    assert ctr.excerpt and ctr.gpu_requested


@pytest.mark.parametrize(("text", "name"), list(zip(PROJECTED_DEVICE_REQUESTS, ["ollama", "plex", "vllm"], strict=True)))
def test_a_projection_of_the_device_requests_names_its_container_and_shows_them_whole(text: str, name: str) -> None:
    (ctr,) = containers(pasted(text)).containers
    assert ctr.name == name and ctr.requests_whole


@pytest.mark.parametrize("text", PROJECTED_DEVICE_REQUESTS[:2])
def test_a_named_containers_whole_gpu_request_is_judged_as_a_whole_specs(text: str) -> None:
    """Corpus 2130 (ollama/ollama#6383, both readers: ok) and Notifiarr/dockwatch#29: the container's DeviceRequests
    whole, asking the nvidia driver for a GPU: the request is all of its GPU requests, judged as a whole spec's (which
    alone shows no GPU inside: unknown, issue 28 h121c), not as an excerpt that may hold more."""
    result = run_checks(pasted(text), ["CTR-GPU-ACCESS"])["CTR-GPU-ACCESS"]
    assert result.status == "unknown" and "request GPUs" in result.message and "excerpt" not in result.message


@pytest.mark.parametrize("text", [
    # Corpus 83: DeviceRequests cut inside its second request: the rest of the list is left out.
    body("83"),
    # Modelled: the projection of every running container (no one container named), and an empty list (the runtime,
    # which may be nvidia, is not shown).
    PROJECTED_DEVICE_REQUESTS[0].replace("docker inspect ollama", "docker inspect $(docker ps -q)"),
    "$ docker inspect -f '{{json .HostConfig.DeviceRequests}}' vllm\n[]\n",
])
def test_a_gpu_request_not_shown_whole_of_a_named_container_stays_unknown(text: str) -> None:
    assert run_checks(pasted(text), ["CTR-GPU-ACCESS"])["CTR-GPU-ACCESS"].status == "unknown"


def test_a_projection_printed_in_go_syntax_is_not_read() -> None:
    # Modelled: without `json`, --format prints Go's syntax, not JSON (`[{nvidia 1 [] [[gpu]] map[]}]`).
    text = "$ docker inspect -f '{{.HostConfig.DeviceRequests}}' vllm\n[{nvidia 1 [] [[gpu]] map[]}]\n"
    assert "docker inspect excerpt" not in [k for k, _, _ in recognise(text).recognised]


def test_whole_docker_inspect_is_still_the_whole_source() -> None:
    text = '[\n  {\n    "Id": "abc",\n    "HostConfig": {"ShmSize": 67108864, "IpcMode": "private"}\n  }\n]\n'
    host = pasted(text)
    assert "docker_inspect" in host.record.docs and "docker_inspect_excerpt" not in host.record.docs
    with pytest.raises(ParseError):
        parse_inspect_excerpt('"Foo": 1,\n"Bar": 2\n')


# --- YAML bounds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "a: &x [1, 2]\nb: *x\n",
    "services: !!python/object/apply:os.system ['true']\n",
    "a: " + "[" * 100 + "]" * 100 + "\n",
])
def test_yaml_refuses_aliases_tags_and_deep_nesting(text: str) -> None:
    with pytest.raises(ParseError):
        load_yaml_documents(text)


@pytest.mark.parametrize(("text", "si", "value"), [
    ("64m", False, 64 * 1024**2), ("1gb", False, GIB), ("67108864", False, 67108864), ("64Gi", True, 64 * GIB),
    ("20G", True, 20 * 10**9), ("lots", False, None),
])
def test_sizes(text: str, si: bool, value: int | None) -> None:
    assert parse_size_bytes(text, decimal_si=si) == value


# --- fuzz ----------------------------------------------------------------------------------------

_SPEC_WORDS = st.sampled_from([
    "docker run ", "--gpus", " all ", "--shm-size=", "1e999", "-itd ", "--ulimit ", "nofile=1:x", "services:\n",
    "  a:\n", "    shm_size: ", "[", "]", "{", "}", "\"HostConfig\": {", "\"Ulimits\": [", "...\n", "apiVersion: v1\n",
    "kind: Pod\n", "spec:\n", "  containers: ", "- ", ": ", "\n", "'", "\"", "\\\n", "&a ", "*a ", "!!python/name:x ",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(_SPEC_WORDS, max_size=40).map("".join))
def test_spec_parsers_raise_only_parse_errors(text: str) -> None:
    for parse in (parse_docker_run, parse_compose, parse_k8s, parse_inspect_excerpt):
        with contextlib.suppress(ParseError):  # anything else (TypeError, RecursionError) fails the test
            parse(text)


# --- nvidia-smi -q fragments ----------------------------------------------------------------------


def test_nvidia_smi_q_section_without_its_gpu_header_is_an_excerpt() -> None:
    host = pasted(body("63"))
    assert host.record.provenance["cmd:nvidia-smi -q"].whole is False
    results = run_checks(host, ["DRV-COMPUTE-MODE", "MEM-ECC-MODE"])
    # Default on the one section shown: ok over it (the coverage rule, issue 28); how many GPUs there are is not in
    # the fragment, so the coverage has no total and run next asks for every GPU.
    mode = results["DRV-COMPUTE-MODE"]
    assert mode.status == "ok" and "Default" in mode.message
    assert mode.coverage is not None and mode.coverage.text() == "1 GPU shown" and "`nvidia-smi -q`" in mode.hint
    assert results["MEM-ECC-MODE"].status == "not-applicable"


# --- Ray logs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "available"), [("64", 67108864), ("65", 67108864), ("66", 46198665216)])
def test_ray_shm_warning_reaches_shm_as_free_space(prefix: str, available: int) -> None:
    host = pasted(body(prefix))
    shm = fact(host, "shm")
    # Ray reports /dev/shm's free space (fstatvfs f_bavail): a lower bound, the size stays unknown.
    assert shm.available_bytes == available and shm.size_bytes is None
    assert host.record.provenance["doc:ray_log"].source == "ray log"


def test_ray_lines_are_claimed_and_the_traceback_after_them_is_not() -> None:
    spans = recognise(body("65")).recognised
    assert [(k, a, b) for k, a, b in spans] == [("ray log", 10, 11)]


def test_a_compose_service_pasted_without_services_is_read() -> None:
    # Real: ollama/ollama#1561 (162, the service key at column 0) and ollama/ollama#6364 (163, indented).
    for prefix, lines in (("162", (4, 19)), ("163", (3, 32))):
        result = recognise(body(prefix))
        assert ("compose", *lines) in result.recognised, result.recognised
        (svc,) = containers(MemoryHost(result.record)).containers
        assert (svc.name, svc.image) == ("ollama", "ollama/ollama:latest")
    gpu = containers(pasted(body("162"))).containers[0]
    assert [r.count for r in gpu.device_requests] == [1]
    # Modelled: a mapping under another key (not `services:`) is not a service pasted on its own.
    assert not recognise("x-defaults:\n  base:\n    image: foo\n    shm_size: 1g\n").recognised


def test_a_container_pasted_without_its_manifest_is_a_pod_excerpt() -> None:
    # Real: ray-project/ray#12881 (corpus 172), from inside the container's ports to its env.
    result = recognise(body("172"))
    assert result.recognised == [("k8s pod", 2, 29)]
    (ctr,) = containers(MemoryHost(result.record)).containers
    assert [r.count for r in ctr.device_requests] == [1]
    # /dev/shm is mounted from a volume the paste cut away: not the 64 MiB default, an excerpt.
    assert ctr.excerpt and ctr.shm_size is None
    status = run_checks(MemoryHost(result.record), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"].status
    assert status == "unknown"


def test_stray_words_before_more_docker_options_are_not_the_image_894() -> None:
    """corpus 894: `--ulimit memlock=-1  ulimit stack 67108864 \\` then `--gpus=all ...`: the stray words are not
    the image; the image is the first bare word no docker option follows."""
    c = parse_docker_run("docker run -it --ipc=host --shm-size=1g --ulimit memlock=-1  ulimit stack 67108864 "
                         "--gpus=all -v /data/crc/data:/data -n trtllm_dev -h trtllm_dev tensorrt_llm/devel:latest "
                         "/bin/bash")
    assert c.image == "tensorrt_llm/devel:latest" and c.gpu_requested


def test_runtime_typed_apart_is_the_option_896() -> None:
    """corpus 896: `docker run -- runtime nvidia --gpus all ...` is the user's `--runtime nvidia`."""
    c = parse_docker_run("docker run -- runtime nvidia --gpus all --rm --shm-size=30gb --privileged "
                         "-e CUDA_VISIBLE_DEVICES=0,1 xxxxx ")
    assert c.image == "xxxxx" and c.runtime == "nvidia"


def test_an_engine_flag_after_the_image_keeps_the_image() -> None:
    """Modelled counter-example: the engine's own flags after the image (`--device cuda`, `-m`) are not docker's."""
    c = parse_docker_run("docker run --gpus all vllm/vllm-openai:latest python3 -m vllm.entrypoints.openai.api_server "
                         "--device cuda --tensor-parallel-size 2")
    assert c.image == "vllm/vllm-openai:latest"


def test_a_shell_variable_among_docker_options_hides_them_not_names_the_image() -> None:
    # Corpus 2564 (huggingface/text-generation-inference#1769): `docker run --rm $args \` then TGI's image.
    run = next(line for line in body("2564").splitlines() if line.startswith("docker run"))
    text = body("2564")
    joined = text[text.index(run):text.index("-p 8089") + len("-p 8089")].replace("\\\n", " ")
    c = parse_docker_run(joined)
    assert c.image == "ghcr.io/huggingface/text-generation-inference:2.0"
    assert c.excerpt and c.command_whole and not c.env_whole and "--cuda-graphs" in c.argv
    assert capture_result("2564", "CTR-SHM-SIZE").status == "unknown"
    assert capture_result("2564", "RT-CUDA-GRAPHS").status == "issue"
    # Modelled counter-examples: a variable that is the image keeps it (no image reference after it), and a run
    # whose options are all shown is whole.
    image = parse_docker_run("docker run --gpus all $IMAGE python3 -m vllm.entrypoints.openai.api_server")
    assert image.image == "$IMAGE" and not image.excerpt
    whole = parse_docker_run("docker run --rm --gpus all -v $volume:/data ghcr.io/huggingface/text-generation-"
                             "inference:2.0 --model-id /model")
    assert not whole.excerpt and whole.image.endswith(":2.0")
