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


def test_a_table_ending_at_a_border_may_hide_gpus() -> None:
    # Modelled: the same table without the MIG box after it.
    text = A30_OPENSHIFT.split("\n\n")[0] + "\n"
    assert fact(pasted(text), "gpus").count_unshown


def test_a_vm_with_its_one_gpu_whole_loses_no_p2p() -> None:
    # Corpus 386: a VM's passthrough slot (bus 00) and one A30 before the MIG box: no GPU pair to lose.
    assert capture_checks("386", "FW-VM")["FW-VM"].status == "not-an-issue"
