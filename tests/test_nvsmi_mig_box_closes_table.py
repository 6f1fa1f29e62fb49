"""The nvidia-smi table's MIG devices box closes its GPU table (facts/nvidia_smi.py parse_table).

nvidia-smi prints the MIG devices box after every GPU's rows and before the Processes box, so a paste that reaches
the box shows the whole GPU list even when it is cut before the processes. A table that stops at a GPU's bottom
border with nothing after it may have lost later GPUs. Real pastes are corpus captures or verbatim excerpts (the
source beside each); counter-examples are modelled where marked.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted

# https://github.com/rohitralhan/RHOAI-NVIDIA-MIG-GPU (README: nvidia-smi in the GPU Operator's driver pod, an A30
# with MIG enabled), the GPU table and the MIG box's head, leading tab dropped, cut before the MIG rows.
A30_OPENSHIFT = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A30                     On  |   00000000:CA:00.0 Off |                   On |
| N/A   30C    P0             37W /  165W |      51MiB /  24576MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
"""


@pytest.mark.parametrize("prefix", ["386", "284"])  # dcgm-exporter#114 (A30), k8s-device-plugin (A100 PCIe)
def test_corpus_tables_cut_after_the_mig_box_are_whole(prefix: str) -> None:
    gpus = fact(pasted(body(prefix)), "gpus")
    assert gpus.count == 1 and not gpus.count_unshown


def test_an_openshift_a30_table_with_its_mig_box_is_whole() -> None:
    gpus = fact(pasted(A30_OPENSHIFT), "gpus")
    assert gpus.count == 1 and not gpus.count_unshown


def test_a_table_ending_at_a_border_is_read_whole_where_nothing_shows_more() -> None:
    # Modelled: the same table without the MIG box after it: the table says where it ends, and the inventory reads
    # its GPUs as the host's (NvidiaGpus.cut_at_border, GpuInventory.read_whole).
    text = A30_OPENSHIFT.split("\n\n")[0] + "\n"
    assert fact(pasted(text), "nvidia").cut_at_border
    assert not fact(pasted(text), "gpus").count_unshown


def test_a_vm_with_its_one_gpu_whole_loses_no_p2p() -> None:
    # Corpus 386: a VM's passthrough slot (bus 00) and one A30 before the MIG box: no GPU pair to lose.
    assert capture_checks("386", "FW-VM")["FW-VM"].status == "not-an-issue"


def _without_mig_rows(text: str) -> str:
    """The table as a paste cut mid-block leaves it: no `Enabled`/`Disabled` MIG M. row (modelled from the real)."""
    return "\n".join(line for line in text.splitlines() if not line.rstrip().endswith(("Enabled |", "Disabled |")))


@pytest.mark.parametrize("prefix", ["284", "336", "386", "513"])
def test_an_ecc_cell_that_reads_on_is_mig_mode_where_the_mig_row_is_cut(prefix: str) -> None:
    # Real tables with MIG enabled (k8s-device-plugin A100, gpu-operator H100, dcgm-exporter A30, ollama A100 80G):
    # nvidia-smi prints `On` in the ECC cell instead of a count. With the MIG M. rows cut away the cell still says it.
    gpus = fact(pasted(_without_mig_rows(body(prefix))), "nvidia")
    assert [g.mig_current for g in gpus.gpus if g.index >= 0][:1] == [True]


def test_a_count_in_the_ecc_cell_says_nothing_of_mig() -> None:
    # Modelled from 284: the same row with ECC on and MIG off prints the count `0`; with the MIG row cut, the mode is
    # not shown.
    text = _without_mig_rows(body("284")).replace("Off |                   On |", "Off |                    0 |")
    gpus = fact(pasted(text), "nvidia")
    assert gpus.gpus[0].mig_current is None


def test_704_cut_before_the_mig_row_is_mig_switched_on_by_hand() -> None:
    # Real: tests/data/captures/704 (an H100 PCIe, cut after GPU 0's second row): MIG on, no engine shown.
    r = capture_checks("704", "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-an-issue" and "switched on by hand" in r.message
