"""Issue 29: the all-reduce term priced from the host's topology class, and `ceiling --model ID` from the
shipped catalogue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gap_pastes import essay_paste, glm5_config
from stackaudit.ceiling import compute
from stackaudit.ceiling.interconnect import (
    LATENCY_TABLE,
    TOPOLOGY_CLASSES,
    allreduce_model,
    topology_class,
)
from stackaudit.cli.main import main
from stackaudit.facts.machine_topology import MachineTopology, Pair
from stackaudit.gputable import lookup
from stackaudit.models import lookup as catalogue_lookup
from test_ceiling_cli import no_nvml  # noqa: F401  (autouse: a GPU-less host, as on CI)

PRO = lookup("RTX PRO 6000 Blackwell Server").spec
LLAMA_70B = catalogue_lookup("meta-llama/Llama-3.3-70B-Instruct")


def test_every_class_has_a_sourced_nccl_row() -> None:
    for path in TOPOLOGY_CLASSES:
        assert any(r.path == path and r.implementation == "nccl" for r in LATENCY_TABLE), path
    for row in LATENCY_TABLE:
        assert row.source.startswith("https://") and row.measured_by and row.figures, row
        assert row.latency_us > 0 and row.max_ranks >= 2


@pytest.mark.parametrize(("kind", "expected"), [
    ("NV", "nvlink"), ("PIX", "pcie-switch"), ("PXB", "pcie-switch"), ("PHB", "pcie-socket"),
    ("NODE", "pcie-socket"), ("SYS", "pcie-cross-socket"), (None, None),
])  # fmt: skip
def test_topo_kinds_map_to_classes(kind: str | None, expected: str | None) -> None:
    assert topology_class(kind) == expected


def _term_us(topology: str | None, gpu: str = "RTX PRO 6000 Blackwell Server") -> float:
    assert LLAMA_70B is not None
    report = compute(LLAMA_70B.config, lookup(gpu).spec, gpus=8, tp=8, topology=topology)
    return report.levels[0].times_us["allreduce"]


def test_a_cross_socket_pcie_box_is_not_priced_like_gpus_behind_switches() -> None:
    """The old model priced every 8-GPU PCIe group at one figure, whatever the topology."""
    cross, switch, nvswitch = _term_us("pcie-cross-socket"), _term_us("pcie-switch"), _term_us(None, "H100 SXM")
    assert cross > switch > 2 * nvswitch
    # 162 all-reduces (2 x 80 layers + 2) at the table's figures.
    assert cross == pytest.approx(162 * 26.2, rel=0.03)  # plus the bytes over the link
    assert nvswitch == pytest.approx(162 * 5.7, rel=0.02)


def test_the_report_names_the_class_and_whether_it_was_assumed() -> None:
    assert LLAMA_70B is not None
    read = compute(LLAMA_70B.config, PRO, gpus=8, tp=8, topology="pcie-cross-socket").to_dict()
    allreduce = read["hardware"]["allreduce"]
    assert allreduce["topology_class"] == "pcie-cross-socket" and allreduce["topology_assumed"] is None
    assert "PCIe across sockets (from the topology)" in allreduce["reason"]
    guessed = compute(LLAMA_70B.config, PRO, gpus=8, tp=8).to_dict()["hardware"]["allreduce"]
    assert guessed["topology_class"] == "pcie-switch" and "no topology read" in guessed["topology_assumed"]
    assert "assumed" in guessed["reason"]


def test_without_a_topology_the_fastest_measured_class_keeps_the_ceiling_a_ceiling() -> None:
    for ranks in (2, 4, 8):
        guessed = allreduce_model(PRO, ranks, "pcie")
        for path in ("pcie-switch", "pcie-socket", "pcie-cross-socket"):
            known = allreduce_model(PRO, ranks, "pcie", path=path)
            measured_on = [r.max_ranks for r in LATENCY_TABLE if r.path == path and r.implementation ==
                           known.implementation]  # fmt: skip
            if max(measured_on) >= ranks:
                assert guessed.latency_us <= known.latency_us, (ranks, path)


def test_the_group_path_is_the_slowest_pair_in_the_group() -> None:
    from stackaudit.facts.machine_topology import Gpu

    gpus = tuple(Gpu(f"GPU{i}") for i in range(4))
    pairs = (Pair("GPU0", "GPU1", "PIX", "PIX"), Pair("GPU2", "GPU3", "PIX", "PIX"),
             Pair("GPU0", "GPU2", "SYS", "SYS"), Pair("GPU0", "GPU3", "SYS", "SYS"),
             Pair("GPU1", "GPU2", "SYS", "SYS"), Pair("GPU1", "GPU3", "SYS", "SYS"))  # fmt: skip
    topology = MachineTopology(gpus=gpus, pairs=pairs)
    assert topology.group_path(2) == "PIX"
    assert topology.group_path(4) == "SYS"
    assert topology.group_path(8) is None  # more GPUs than the source shows


def _audit_host(capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json", *extra]) in (0, 1)
    return dict(json.loads(capsys.readouterr().out)["host"])


def test_the_audit_prices_the_all_reduce_from_the_topology_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ("--model", str(glm5_config(tmp_path)), "--weights", "nvfp4")
    read = _audit_host(capsys, essay_paste(tmp_path, topology=True), *flags)
    assert "all-reduce priced for PCIe across sockets (from the topology)" in str(read["ceiling_layout"])
    (tmp_path / "b").mkdir()
    guessed = _audit_host(capsys, essay_paste(tmp_path / "b"), *flags)
    assert "all-reduce priced for GPUs behind PCIe switches (assumed" in str(guessed["ceiling_layout"])
    assert float(str(read["ceiling_tok_s"])) < float(str(guessed["ceiling_tok_s"]))


def _ceiling(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["ceiling", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_standalone_ceiling_says_the_class_it_assumed_and_takes_one(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    config = glm5_config(tmp_path)
    common = ("--model", str(config), "--gpu", "RTX PRO 6000 Blackwell Server", "--gpus", "8", "--weights",
              "nvfp4")  # fmt: skip
    rc, out, err = _ceiling(capsys, *common)
    assert rc == 0, err
    assert "all-reduce priced for GPUs behind PCIe switches (assumed: no topology read" in out
    rc, out, err = _ceiling(capsys, *common, "--topology", "pcie-cross-socket", "--format", "json")
    assert rc == 0, err
    assert json.loads(out)["hardware"]["allreduce"]["topology_class"] == "pcie-cross-socket"
    rc, out, err = _ceiling(capsys, *common, "--topology", "pcie-sideways")
    assert rc == 2 and "--topology 'pcie-sideways'" in err and "Traceback" not in err


def test_ceiling_model_resolves_a_catalogue_id_without_a_download(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, `ceiling --model ID` read only files and the local Hugging Face cache."""
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rc, out, err = _ceiling(capsys, "--model", "meta-llama/Llama-3.3-70B-Instruct", "--gpu", "H100 SXM",
                            "--gpus", "8", "--format", "json")  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"]["name"] == "meta-llama/Llama-3.3-70B-Instruct"
    assert doc["source"]["model"].startswith("stackaudit's catalogue (https://")
    assert doc["active_params"] == pytest.approx(69.50e9, rel=0.01)
    # A quantised re-upload named after its base: the format its name gives.
    rc, out, err = _ceiling(capsys, "--model", "someone/Llama-3.3-70B-Instruct-FP8", "--gpu", "H100 SXM",
                            "--format", "json")  # fmt: skip
    assert rc == 0, err
    assert set(json.loads(out)["weights"].values()) >= {"fp8"}
    rc, out, err = _ceiling(capsys, "--model", "nobody/not-a-model", "--gpu", "H100 SXM")
    assert rc == 2 and "catalogue" in err and "Traceback" not in err
