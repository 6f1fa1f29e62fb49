"""Issue 28, absence only from whole sources: a compose service whose definition ends on a key with no value
(`reservations:` and nothing below) was cut there, so CTR-GPU-ACCESS does not conclude "no serving container" or "no
GPU request" from it (facts/container_specs._ends_open)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.container_specs import parse_compose

# Modelled: the same service cut at `deploy:` with a vLLM image (a serving container whose request is not shown).
CUT_AT_DEPLOY = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.6.4
    command: --model Qwen/Qwen2.5-7B-Instruct
    deploy:
"""

# Modelled: the whole service, with its reservation.
WHOLE = CUT_AT_DEPLOY + """\
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
"""


def test_a_service_cut_at_reservations_leaves_gpu_access_open() -> None:
    # Real: https://github.com/ollama/ollama/issues/6364, the compose service cut at `reservations:`.
    result = capture_checks("163", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "unknown"
    assert "cut part-way" in result.message and "ollama" in result.message


@pytest.mark.parametrize(("capture", "status"), [
    # Real: https://github.com/ollama/ollama/issues/1561, a whole service with its GPU reservation.
    ("162", "ok"),
    # Real: https://github.com/ollama/ollama/issues/7786, one GPU reserved: the request alone shows no GPU inside.
    ("260", "unknown"),
    # Real: https://github.com/open-webui/open-webui/issues/11943, ollama and open-webui, `count: all` (the same).
    ("84", "unknown"),
])
def test_whole_services_are_judged_as_before(capture: str, status: str) -> None:
    assert capture_checks(capture, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == status


def test_the_cut_is_read_from_the_service_not_from_a_declared_volume() -> None:
    assert [c.excerpt for c in parse_compose(CUT_AT_DEPLOY)] == [True]
    assert [c.excerpt for c in parse_compose(WHOLE)] == [False]
    # A top-level named volume declared with no options is whole compose syntax, not a cut.
    assert [c.excerpt for c in parse_compose(WHOLE + "volumes:\n  data:\n")] == [False]


def test_a_whole_service_still_gets_its_verdict(tmp_path: Path) -> None:
    # Judged on its request, which alone shows no GPU inside (issue 28 h121c): not the cut's unknown.
    result = paste_checks(tmp_path, WHOLE, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "unknown" and "request GPUs:" in result.message and "cut part-way" not in result.message


# compose reads a quoted number as the number: compose-go's own test (TestExpandDevicesCountAsString, loader
# expansion) turns `count: "1"` into `count: 1`; corpus 537 (ollama#8674) writes it that way.
COUNT_AS_STRING = """\
services:
  test:
    image: ollama/ollama:latest
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: "1"
"""


def test_a_quoted_count_is_that_many_gpus() -> None:
    containers = parse_compose(COUNT_AS_STRING)
    assert [r.count for c in containers for r in c.device_requests] == [1]
    assert "ollama (1)" in capture_checks("537", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].message
    # Modelled: not a number and not `all`: no count read (compose refuses it).
    assert [r.count for c in parse_compose(COUNT_AS_STRING.replace('"1"', '"one"')) for r in c.device_requests] == [0]


# Modelled on corpus 1163: a service pasted without `services:`, a `count:` commented out at column 0 inside its
# reservation, and a `command: [` list the paste cuts.
SERVICE_CUT_IN_COMMAND = """\
  vllm:
    image: vllm/vllm-openai:v0.8.5
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
#              count: all
              capabilities: [gpu]
              device_ids: ["1"]
    ipc: host
    command: [
      "--model", "Qwen/Qwen3-14B", # a comment
"""


def test_a_service_whose_yaml_stops_is_read_above_the_key_that_stopped_it(tmp_path: Path) -> None:
    checks = paste_checks(tmp_path, SERVICE_CUT_IN_COMMAND, "CTR-SHM-SIZE", "CTR-GPU-ACCESS", "RT-CUDA-GRAPHS")
    assert checks["CTR-SHM-SIZE"].status == "ok" and "host IPC" in checks["CTR-SHM-SIZE"].message
    # The commented `count: all` is a comment: device_ids asks for one GPU, not all of them.
    assert "request GPUs: vllm (1)" in checks["CTR-GPU-ACCESS"].message
    # The command below the stop is not read: no verdict on its flags.
    assert checks["RT-CUDA-GRAPHS"].status == "unknown" and "excerpt" in checks["RT-CUDA-GRAPHS"].message


def test_the_real_service_cut_in_its_command() -> None:
    # Real: https://github.com/vllm-project/vllm/issues/17649, corpus 1163.
    checks = capture_checks("1163", "CTR-SHM-SIZE", "CTR-GPU-ACCESS")
    assert checks["CTR-SHM-SIZE"].status == "ok"
    assert "request GPUs: vllm (1)" in checks["CTR-GPU-ACCESS"].message
