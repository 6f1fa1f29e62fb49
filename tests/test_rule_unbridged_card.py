"""Rule: a bridge card (data/gpus.toml nvlink_kind "bridge") with every NVLink inactive beside bridged cards is a card
with no bridge fitted: the build, not links down (DRV-NVLINK-HEALTH not-an-issue, quoted), unless the matrix shows
it NVLink-connected, where its inactive links are down (issue 28).

Real pastes: 694 (siboehm/bench gpu/nvlink/README.md: three RTX A6000, GPU0-GPU1 NV4, GPU2 NODE to both and
'all links are inActive'); 61 (Azure/azhpc-diagnostics#73: a V100 SXM2 with two links inactive, a mesh module, not a
bridge card: links down stay an issue). The counter-examples are modelled on 694.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks


def test_third_card_without_a_bridge_is_the_build() -> None:
    result = capture_checks("694", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-an-issue"
    assert "GPU 0 4/4, GPU 1 4/4" in result.message and "GPU 2 has every NVLink inactive" in result.message
    assert "no NV# path" in result.message
    assert any(e.startswith("GPU2") and "NODE" in e for e in result.evidence)
    assert any("all links are inActive" in e for e in result.evidence)


def test_mesh_module_with_links_inactive_stays_an_issue() -> None:
    result = capture_checks("61", "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "issue" and "GPU 3: 4 of 6 NVLinks active" in result.message


def test_modelled_card_the_matrix_shows_bridged_has_its_links_down(tmp_path: Path) -> None:
    # Modelled on 694: the matrix joins GPU2 to GPU1 over NV4, yet nvlink -s says every link of GPU2 is inactive.
    text = body("694").replace("GPU1\tNV4\t X \tNODE", "GPU1\tNV4\t X \tNV4").replace(
        "GPU2\tNODE\tNODE\t X ", "GPU2\tNODE\tNV4\t X ")
    result = paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "issue" and "GPU 2: 0 of 4 NVLinks active" in result.message


def test_modelled_without_a_matrix_the_idle_card_is_still_the_build(tmp_path: Path) -> None:
    # Modelled: 694's nvlink -s alone (the matrix left out).
    text = body("694")
    text = text[text.index("> nvidia-smi nvlink -s"):]
    result = paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"]
    assert result.status == "not-an-issue" and "GPU 2 has every NVLink inactive" in result.message
    assert "no NV# path" not in result.message
