"""TGI's `text-generation-launcher --env` report: its `Docker label` names the image its launcher runs in
(facts/serving_logs.TGI_IMAGE_LABEL, facts/container._tgi_image), and the nvidia-smi it prints below ran there.

The pastes are corpus files (verbatim, with their public threads in their headers): 1756, 245 and 904 show a label and
the launcher's nvidia-smi listing the GPUs; 746 and 1775 show `Docker label: N/A` under the report's head, a launcher
outside TGI's image (huggingface/text-generation-inference#2828, #1451); 320 (#515) shows the fields without the head.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container import ContainerInfo


@pytest.mark.parametrize(("prefix", "label"), [("1756", "sha-630800e"), ("245", "sha-"), ("904", "sha-")])
def test_a_labelled_report_runs_in_tgis_image(prefix: str, label: str) -> None:
    """Real (the corpus files' threads): the label shows the container, and the report's nvidia-smi, which the
    launcher ran inside it, lists the GPUs: CTR-GPU-ACCESS ok."""
    container = fact(pasted(body(prefix)), "container")
    assert isinstance(container, ContainerInfo) and container.in_container
    assert f"Docker label: {label}" in container.evidence[0]
    result = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok" and "`nvidia-smi` run inside the container lists" in result.message


def test_the_fields_without_the_reports_head_say_nothing() -> None:
    """Real (corpus 320): an issue form's System Info with the fields and no `Runtime environment:` head is not read
    as the report (the fields alone are no program's own output)."""
    container = fact(pasted(body("320")), "container")
    assert not isinstance(container, ContainerInfo)


@pytest.mark.parametrize("prefix", ["746", "1775"])
def test_a_report_labelled_na_runs_on_the_host(prefix: str) -> None:
    """Real (corpus 746, 1775): `Docker label: N/A` is TGI's word for a launcher outside its image, where no
    container is shown: the program runs on the host, and CTR-GPU-ACCESS does not apply."""
    container = fact(pasted(body(prefix)), "container")
    assert isinstance(container, ContainerInfo) and not container.in_container and container.on_host
    assert "Docker label: N/A" in container.evidence[0]
    assert capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_a_report_labelled_na_in_a_container_shown_stays_a_container() -> None:
    """Modelled: a launcher built from source in an image of the user's own also reads `N/A`; a prompt whose host is
    a container's id shows the container, which the label does not undo."""
    text = ("root@3f2a9c1b7d4e:/usr/src# text-generation-launcher --env\n"
            "2024-01-17T19:54:02.802338Z  INFO text_generation_launcher: Runtime environment:\n"
            "Target: x86_64-unknown-linux-gnu\nCargo version: 1.70.0\nCommit sha: 0eabc83541225979209ff7183b4b4442e47adf92\n"
            "Docker label: N/A\nnvidia-smi:\nN/A\n")
    container = fact(pasted(text), "container")
    assert isinstance(container, ContainerInfo) and container.in_container and not container.on_host


def test_the_launchers_env_report_typed_inside_a_container_lists_its_gpus(tmp_path: Path) -> None:
    # Corpus 2586: `text-generation-launcher --env` typed at a container-id prompt, its report's nvidia-smi table
    # (run by the launcher there) lists the A100: the device and NVML reached the container.
    r = capture_checks("2586", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and "`text-generation-launcher --env` run inside the container" in r.message, r.message
    # Modelled: the launcher's nvidia-smi failing there (`N/A`) lists no GPU, and shows no access.
    text = body("2586")
    failed = text.split("nvidia-smi:\n", 1)[0] + "nvidia-smi:\nN/A\n"
    assert paste_checks(tmp_path, failed, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"
