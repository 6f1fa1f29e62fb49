"""TGI's `text-generation-launcher --env` report: its `Docker label` names the image its launcher runs in
(facts/serving_logs.TGI_IMAGE_LABEL, facts/container._tgi_image), and the nvidia-smi it prints below ran there.

The pastes are corpus files (verbatim, with their public threads in their headers): 1756, 245 and 904 show a label and
the launcher's nvidia-smi listing the GPUs; 320 and 746 show `Docker label: N/A`, a launcher outside TGI's image.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
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


@pytest.mark.parametrize("prefix", ["320", "746"])
def test_a_report_labelled_na_is_no_container(prefix: str) -> None:
    """Real (corpus 320, 746): `Docker label: N/A` is a launcher outside TGI's image; it shows no container."""
    container = fact(pasted(body(prefix)), "container")
    assert not (isinstance(container, ContainerInfo) and container.in_container
                and any("Docker label" in e for e in container.evidence))
