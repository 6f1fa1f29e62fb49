"""WSL 2 read from `nvidia-smi -q`: a Windows driver model beside a persistence mode (facts/nvidia_smi.py
`_driver_model`, facts/platform.py `wsl_driver`).

nvidia-smi prints a persistence mode on Linux only: Windows' own `nvidia-smi -q` prints `Persistence Mode : N/A`
and its table puts the driver model in the Persistence-M column. WSL 2's Linux nvidia-smi talks to the Windows
driver, so its `-q` shows both `Persistence Mode : Enabled` and `Driver Model / Current : WDDM`.

Real paste: corpus 1263 (NVIDIA/nvidia-container-toolkit#271, `nvidia-smi -a` in a WSL 2 distro). The Windows
counterpart is modelled (marked so below).
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.nvidia_smi import parse_query_text
from stackaudit.facts.platform import wsl_driver

# The section of corpus 1263 (verbatim lines 9-26 of its capture).
WSL_QUERY = """\
==============NVSMI LOG==============

Driver Version                            : 510.06
CUDA Version                              : 11.6

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce GTX 1650 Ti with Max-Q Design
    Product Brand                         : GeForce
    Display Mode                          : Enabled
    Display Active                        : Enabled
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Driver Model
        Current                           : WDDM
        Pending                           : WDDM
    Minor Number                          : N/A
"""
# Modelled: the same section as Windows' own nvidia-smi prints it (no persistence mode there).
WINDOWS_QUERY = WSL_QUERY.replace("Persistence Mode                      : Enabled",
                                  "Persistence Mode                      : N/A")


def test_a_windows_driver_model_beside_a_persistence_mode_is_wsl() -> None:
    nvidia = parse_query_text(WSL_QUERY)
    assert nvidia.gpus[0].wsl_driver_model == "WDDM" and nvidia.gpus[0].driver_model is None
    said = wsl_driver(nvidia)
    assert "WDDM" in said and "WSL 2" in said


def test_windows_own_query_is_no_wsl() -> None:
    nvidia = parse_query_text(WINDOWS_QUERY)
    assert nvidia.gpus[0].driver_model == "WDDM" and nvidia.gpus[0].wsl_driver_model is None
    assert wsl_driver(nvidia) == ""


def test_1263_is_a_one_gpu_wsl_vm_whose_display_is_shared() -> None:
    results = capture_checks("1263", "FW-VM", "MEM-GPU-SHARED", "DRV-PERSISTENCE")
    assert results["FW-VM"].status == "not-an-issue" and "microsoft" in results["FW-VM"].message
    assert results["MEM-GPU-SHARED"].status == "issue" and "WSL 2" in results["MEM-GPU-SHARED"].message
    # WSL's Linux nvidia-smi reports a persistence mode: read, not set aside as a Windows driver's.
    assert results["DRV-PERSISTENCE"].status == "ok"


def test_windows_own_query_is_a_windows_host(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, WINDOWS_QUERY, "FW-VM", "DRV-PERSISTENCE")
    assert "Windows host" in results["FW-VM"].message
    assert results["DRV-PERSISTENCE"].status == "not-applicable"


# WSL 2's distro takes the Windows computer's name as its hostname (facts/container.py WINDOWS_DEFAULT_HOSTNAME).
# Corpus 1265 (microsoft/WSL#9272): `root@LAPTOP-UDGOEVA7:~# nvidia-smi`, no container in the paste.
WSL_PROMPT_TABLE = """\
root@LAPTOP-UDGOEVA7:~# nvidia-smi
Wed Dec 14 21:46:40 2022
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.65       Driver Version: 527.56       CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0 Off |                  N/A |
| N/A   52C    P8    10W / 115W |     33MiB /  6144MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_1265_a_windows_named_prompt_runs_no_container() -> None:
    result = capture_checks("1265", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable"


def test_a_windows_named_prompt_that_runs_docker_is_left_open(tmp_path: Path) -> None:
    # Modelled: the same prompt starting a container.
    text = WSL_PROMPT_TABLE.replace("root@LAPTOP-UDGOEVA7:~# nvidia-smi",
                                    "root@LAPTOP-UDGOEVA7:~# docker run --rm --gpus all ubuntu nvidia-smi")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "not-applicable"


def test_another_host_name_is_no_evidence(tmp_path: Path) -> None:
    # Modelled: a Linux host's own name says nothing of a container either way.
    text = WSL_PROMPT_TABLE.replace("LAPTOP-UDGOEVA7", "gpu-node-3")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_2080_which_nvidia_smi_from_wsls_mount_is_the_distros_own_shell(tmp_path: Path) -> None:
    """Corpus 2080 (ollama/ollama#1460, both readers: not applicable): `which nvidia-smi` answers
    /usr/lib/wsl/lib/nvidia-smi, a path on the WSL distro's own PATH, so the shell and the ollama beside it are the
    distro's, no container. Modelled: the answer a container's PATH gives (/usr/bin) proves nothing, and a `docker
    exec` typed at the same shell leaves the check open."""
    result = capture_checks("2080", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable"
    info = fact(pasted(body("2080")), "container")
    assert info.on_host and "WSL distro's own" in info.evidence[0]
    usr_bin = body("2080").replace("/usr/lib/wsl/lib/nvidia-smi", "/usr/bin/nvidia-smi")
    assert paste_checks(tmp_path, usr_bin, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
    execd = body("2080").replace("$ which nvidia-smi", "$ docker exec -it ollama bash\n$ which nvidia-smi")
    assert paste_checks(tmp_path, execd, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "not-applicable"
