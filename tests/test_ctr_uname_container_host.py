"""`uname -a` whose node name is a container's id: the paste's commands ran in that container.

Docker names a container's host by its id's first 12 hex digits unless its runner names it. Where pasted `uname -a`
prints such a name and no shell prompt names another host and no command names a container runner, the nvidia-smi of
the same paste ran there: its table listing the GPU is CTR-GPU-ACCESS ok (corpus 1997). A prompt of another host, or
a `docker run` typed, leaves where nvidia-smi ran unshown. The lines are real, from the sources named; modelled ones
say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

ACCESS = "CTR-GPU-ACCESS"

# huggingface/text-generation-inference#2058 (corpus 1997): uname -a and nvidia-smi typed in TGI's container.
UNAME = """\
uname -a
Linux a3eb1d6a21b4 5.4.0-174-generic #193-Ubuntu SMP Thu Mar 7 14:29:28 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux
"""
SMI = """\
nvidia-smi
Wed Jun 12 07:26:30 2024
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.67                 Driver Version: 550.67         CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:81:00.0 Off |                  Off |
| 30%   28C    P8             17W /  450W |       1MiB /  24564MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
# A web tutorial's `uname -a` in a Docker Desktop container (linuxkit kernel), no GPU shown.
NO_GPU = """\
$ uname -a
Linux 57bb72d1c052 4.19.76-linuxkit #1 SMP Fri Apr 3 15:53:26 UTC 2020 x86_64 GNU/Linux
"""
# Modelled: the same uname, then nvidia-smi typed at the host's own prompt.
HOST_PROMPT = UNAME + "\nuser@gpu-box:~$ " + SMI
# Modelled: a host named by its owner, not by a container id.
NAMED_HOST = UNAME.replace("a3eb1d6a21b4", "gpu-box") + "\n" + SMI


def test_uname_in_a_container_with_smi_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, UNAME + "\n" + SMI, ACCESS)[ACCESS]
    assert result.status == "ok"
    assert capture_checks("1997", ACCESS)[ACCESS].status == "ok"


def test_uname_in_a_container_without_smi_tells_nothing(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, NO_GPU, ACCESS)[ACCESS].status == "unknown"


def test_another_host_or_a_named_host_is_no_container(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, HOST_PROMPT, ACCESS)[ACCESS].status != "ok"
    assert paste_checks(tmp_path, NAMED_HOST, ACCESS)[ACCESS].status != "ok"
