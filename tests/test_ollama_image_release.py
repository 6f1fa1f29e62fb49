"""DRV-CUDA-COMPAT from an ollama image's release beside the driver (checks/drv.py `ollama_release`, `_ollama_image`).

From 0.9.3 ollama ships no CUDA v11 runner (a maintainer in ollama#11220; ollama PR 12000: "we support v12.1 or newer
(531 Feb 2023)"), so under a driver for CUDA 12.0 or older it serves from the CPU.

Real pastes: corpus 507 (ollama#12770: `ollama/ollama:0.9.3` on driver 515, CUDA 11.7, a T4 that ran on 0.9.2), an
install script's `docker run ... docker.m.daocloud.io/ollama/ollama:0.9.3` (a registry mirror), and a compose file's
`image: ollama/ollama:0.5.13` (a release that still ships v11). The drivers beside the last two are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from gap_pastes import H100_BUS, nvidia_smi_table

COMPAT = "DRV-CUDA-COMPAT"
MIRROR_RUN = ("docker run -d --restart=always --name opsany-base-ollama \\\n"
              "    -p 8020:11434 -v ${INSTALL_PATH}/ollama-volume:/root/.ollama \\\n"
              "    docker.m.daocloud.io/ollama/ollama:0.9.3\n")
COMPOSE_0513 = """services:
  ollama:
    image: ollama/ollama:0.5.13
    ports: ["11434:11434"]
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: all
              capabilities: [gpu]
"""


def _table(driver: str, cuda: str) -> str:
    # Modelled: the default table of one GPU under the driver named.
    return nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559).replace(
        "570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8",
        f"{driver}             Driver Version: {driver}     CUDA Version: {cuda}")


def test_507_a_cuda_11_driver_under_ollama_0_9_3_serves_from_the_cpu() -> None:
    result = capture_checks("507", COMPAT)[COMPAT]
    assert result.status == "issue" and "ollama/ollama:0.9.3" in result.message and "CPU" in result.message


def test_the_release_decides_and_a_new_driver_is_fine(tmp_path: Path) -> None:
    old_driver = "\n" + _table("515.105.01", "11.7")
    assert paste_checks(tmp_path, MIRROR_RUN + old_driver, COMPAT)[COMPAT].status == "issue"
    assert paste_checks(tmp_path, MIRROR_RUN + "\n" + _table("535.230.02", "12.2"), COMPAT)[COMPAT].status == "ok"
    # 0.5.13 still ships its v11 runner: which one it loads is not in the source.
    assert paste_checks(tmp_path, COMPOSE_0513 + old_driver, COMPAT)[COMPAT].status == "unknown"


def test_an_untagged_image_names_no_release(tmp_path: Path) -> None:
    text = MIRROR_RUN.replace(":0.9.3", ":latest") + "\n" + _table("515.105.01", "11.7")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status == "unknown" and "ollama" not in result.message
