"""CTR-GPU-ACCESS over an nvidia-smi the user's label says ran in a container (facts/container.STATED_SMI_INSIDE):
`nvidia-smi **from inside the ollama container**:` before the table is the container's own view, as nvidia-smi typed
at a prompt that names the container is; listing the GPUs there shows the device nodes and NVML reached it: ok.
A question about nvidia-smi in a container, or words that put it outside one, is no such label.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import STATED_SMI_INSIDE, stated_container

_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 555.42.03              Driver Version: 555.85         CUDA Version: 12.5     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0  On |                  Off |
|  0%   42C    P8             13W /  450W |    2853MiB /  24564MiB |     43%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""

# Real: https://github.com/ollama/ollama/issues/4726 (a comment: ollama's binary in a CUDA 12.5 image on WSL 2), the
# label and the table as posted, its Processes box and the `# nvidia-smi` prompt line left out.
OLLAMA_4726 = "run nvidia-smi cmd on container\n```\n" + _TABLE + "```\n"


def test_the_labelled_table_inside_the_ollama_container_is_ok() -> None:
    # Real: corpus 1856 (ollama/ollama, Debian 13, the table under `nvidia-smi **from inside the ollama container**:`).
    result = capture_checks("1856", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok", result.message
    assert "run inside the container lists 1 GPU" in result.message


def test_the_label_run_on_container_is_read(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, OLLAMA_4726, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok", result.message


def test_the_same_table_without_the_label_stays_open(tmp_path: Path) -> None:
    # Modelled: the table alone does not say where it ran.
    result = paste_checks(tmp_path, "```\n" + _TABLE + "```\n", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "unknown", result.message


def test_questions_and_outside_words_are_no_label() -> None:
    # Real: https://github.com/ollama/ollama/issues/2954, a maintainer's question.
    assert not STATED_SMI_INSIDE.search("If you exec into the container, does `nvidia-smi` report the GPU?")
    # Modelled.
    assert stated_container("nvidia-smi outside the container:") == ("", "")
    assert not STATED_SMI_INSIDE.search("nvidia-smi --version in the container")
    assert STATED_SMI_INSIDE.search("Output of nvidia-smi inside the vllm/vllm-openai:latest container:")


# nvidia-smi's topology matrices typed at a container's own prompt (checks/ctr._SMI_TOPO, facts/gpus.
# gpus_from_p2p_matrix): a row for every GPU NVML opens there.
_P2P_N = """\
root@f752bc4324bc:/workspace# nvidia-smi {command}
        GPU0    GPU1
 GPU0   X       NS
 GPU1   NS      X

Legend:

  X    = Self
  OK   = Status Ok
  NS   = Not supported
"""


def test_a_topology_matrix_typed_in_the_container_lists_its_gpus() -> None:
    """Real: corpus 2355 (axolotl-ai-cloud/axolotl#3132, RunPod, `nvidia-smi topo -p2p n`; both readers ok), and two
    other threads' `nvidia-smi topo -mp` at a container's prompt (corpus 497, 1194: eight GPUs)."""
    result = capture_checks("2355", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok" and "`nvidia-smi topo -p2p n` run inside the container lists 2 GPU" in result.message
    for prefix in ("497", "1194"):
        result = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert result.status == "ok" and "lists 8 GPU" in result.message, prefix


def test_the_nvlink_matrix_is_no_pcie_refusal(tmp_path: Path) -> None:
    """Modelled on 2355: the `-p2p n` matrix (NVLink capability) lists the GPUs, but its NS feeds no P2P check as a
    PCIe refusal; the same matrix typed on a host prompt (no container) decides no container access."""
    checks = paste_checks(tmp_path, _P2P_N.format(command="topo -p2p n"), "CTR-GPU-ACCESS", "IC-P2P-FUNCTIONAL")
    assert checks["CTR-GPU-ACCESS"].status == "ok"
    assert checks["IC-P2P-FUNCTIONAL"].status == "unknown"
    host = _P2P_N.format(command="topo -p2p n").replace("root@f752bc4324bc:/workspace#", "user@gpubox:~$")
    assert paste_checks(tmp_path, host, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"
    # nvidia-smi's version typed in the container lists no GPU, whatever matrix is pasted under it.
    version = _P2P_N.format(command="--version")
    assert paste_checks(tmp_path, version, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"
