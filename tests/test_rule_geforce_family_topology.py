"""Rule of IC-TOPO-READ (issue 28, name-implied facts): with no topology matrix, two or more GPUs all of a family
without PCIe P2P (GeForce, gputable.FAMILIES) settle what a matrix would show: traffic between them goes through
host memory by design, a key negative (not-an-issue) over the GPUs shown. A family that may have P2P or NVLink, or a
mix, still needs the matrix (unknown).

Real pastes: 320 (text-generation-inference#515, two cut "NVIDIA GeForce ..." names), 92 (vllm#11084, two RTX 4090),
245 (text-generation-inference#574, two RTX 3080 with cut names), 159 (lmdeploy#3996, four RTX 3090 in check_env).
The mixed and data-center tables are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

TOPO = "IC-TOPO-READ"


def test_geforce_cards_without_a_matrix_are_a_key_negative() -> None:
    for prefix, shown in (("320", 2), ("92", 2), ("245", 2), ("159", 4)):
        result = capture_checks(prefix, TOPO)[TOPO]
        assert result.status == "not-an-issue", prefix
        assert "no PCIe P2P from the stock driver" in result.message and "NV# in `nvidia-smi" in result.message, prefix
        assert result.coverage is not None and result.coverage.count == shown, prefix


_ROW = """\
|   {i}  {name} Off |   00000000:{bus}:00.0 Off |                  Off |
| 30%   33C    P8             22W /  {cap}W |    7981MiB /  {mem}MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
_HEAD = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.78                 Driver Version: 550.78         CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""


def _table(*rows: tuple[str, str, str]) -> str:
    return _HEAD + "".join(_ROW.format(i=i, name=name.ljust(26), bus=f"{0x4b + i:02X}", cap=cap, mem=mem)
                           for i, (name, cap, mem) in enumerate(rows))


def test_modelled_mixed_or_datacenter_cards_still_need_the_matrix(tmp_path: Path) -> None:
    mixed = _table(("NVIDIA GeForce RTX 4090", " 450", "24564"), ("NVIDIA RTX A6000", " 300", "49140"))
    datacenter = _table(("NVIDIA L40S", " 350", "46068"), ("NVIDIA L40S", " 350", "46068"))
    for text in (mixed, datacenter):
        result = paste_checks(tmp_path, text, TOPO)[TOPO]
        assert result.status == "unknown" and "topology matrix is not in the source" in result.message


def test_modelled_one_geforce_card_shown_is_no_pair(tmp_path: Path) -> None:
    # One row of a table that ends at its border without its process list: read as the host's one card (no source
    # shows more), which has no pair to judge.
    result = paste_checks(tmp_path, _table(("NVIDIA GeForce RTX 4090", " 450", "24564")), TOPO)[TOPO]
    assert result.status == "not-applicable" and "GeForce" not in result.message
