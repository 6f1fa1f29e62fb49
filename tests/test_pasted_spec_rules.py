"""Issue 28: a pasted container spec shows what it asks for, not which runtime Docker runs it with; a whole
compose service without `shm_size` gets Docker's 64 MiB, whatever its command passes to the engine.

A compose file or `docker run` line without a GPU request leaves CTR-GPU-ACCESS unknown (nvidia may be Docker's
default runtime, the documented way for Swarm stacks); a `docker inspect`, which records the runtime used, still
proves the issue. The pastes are real, verbatim from the public thread named beside each; the inspect is modelled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts.container_specs import parse_compose
from stackaudit.importers.pasted import load_pasted
from test_ctr_facts import docker_object

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/huggingface/text-generation-inference/issues/375 (jsimao71): TGI started without --gpus.
TGI_375 = """\
docker run --name hf-server -d --shm-size 1g -p 80:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:0.7 --model-id $model --num-shard $num_shard
"""
# https://github.com/huggingface/text-generation-inference/issues/1770 (AdamPalaxo): TGI 2.0 run without --gpus.
TGI_1770 = """\
docker run --name tgi-2 -p 8080:80 ghcr.io/huggingface/text-generation-inference:2.0 --model-id openchat/openchat-3.5-0106 --disable-custom-kernels
"""


def _gpu_access(path: Path) -> tuple[str, str]:
    r = run_checks(load_pasted([str(path)]), ["CTR-GPU-ACCESS"])["CTR-GPU-ACCESS"]
    return r.status, r.message


@pytest.mark.parametrize("text", [TGI_375, TGI_1770], ids=["tgi-375", "tgi-1770"])
def test_a_pasted_run_without_a_gpu_request_is_unknown(tmp_path: Path, text: str) -> None:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    status, message = _gpu_access(path)
    assert status == "unknown", message
    assert "default runtime" in message


def test_a_swarm_stack_without_a_gpu_request_is_unknown() -> None:
    # Corpus 250 (huggingface/text-generation-inference#540): two TGI services, `deploy:` without devices.
    status, message = _gpu_access(next(CAPTURES.glob("250-*.txt")))
    assert status == "unknown" and "llm_bloom" in message and "default runtime" in message


def test_an_inspected_container_without_a_gpu_request_is_an_issue(tmp_path: Path) -> None:
    # Modelled: `docker inspect` records the runtime the container runs with (runc) and no device request.
    path = tmp_path / "inspect.json"
    path.write_text(json.dumps([docker_object(gpus=0, env=["PATH=/usr/bin"])]))
    status, message = _gpu_access(path)
    assert status == "issue", message
    assert "without any GPU request" in message


def test_shm_size_in_the_command_leaves_docker_default() -> None:
    # Corpus 250: `--shm-size 1g` sits in `command:` (TGI's launcher gets it), the services set no `shm_size:`.
    r = run_checks(load_pasted([str(next(CAPTURES.glob("250-*.txt")))]), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"]
    assert r.status == "issue", r.message
    assert "64 MiB in container llm_bloom " in r.message and "goes to the engine, not to Docker" in r.message


def test_long_syntax_volumes_do_not_make_a_compose_an_excerpt() -> None:
    # Corpus 250's long-syntax named volume, declared at the top level: the services are whole.
    whole = next(CAPTURES.glob("250-*.txt")).read_text().split("```")[1]
    assert not any(c.excerpt for c in parse_compose(whole))
    # Modelled: the same mount of a volume the file does not declare shows a cut paste; a bind mount does not.
    service = ("services:\n  tgi:\n    image: ghcr.io/huggingface/text-generation-inference:0.8\n    volumes:\n"
               "      - type: {kind}\n        source: {src}\n        target: /data\n")
    assert all(c.excerpt for c in parse_compose(service.format(kind="volume", src="mydata")))
    assert not any(c.excerpt for c in parse_compose(service.format(kind="bind", src="./data")))
