"""No GPU from an EC2 instance type whose family has no accelerator (facts/platform.py EC2_NO_ACCELERATOR): a whole
statement of the machine, so checks about a GPU (IC-NCCL-ENV) or an NVIDIA GPU are not applicable; a GPU family,
GPUs stated beside it, or a paste that names no instance leave them open."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, corpus_path, fact, paste_checks
from stackaudit.facts.platform import instances_without_gpu
from stackaudit.importers.pasted import load_pasted

NCCL = "IC-NCCL-ENV"
FM = "DRV-FABRIC-MANAGER"


def test_m5_instance_has_no_gpu_66() -> None:
    # ray-project/ray#13619: "On a m5.16xlarge instance, I'm getting this error when running `ray microbenchmark`".
    gpus = fact(load_pasted([str(corpus_path("66"))]), "gpus")
    assert gpus.none_on_bus and gpus.no_accelerator
    r = capture_checks("66", NCCL, FM)
    assert r[NCCL].status == "not-applicable" and "m5.16xlarge" in r[NCCL].message
    assert r[FM].status == "not-applicable"


def test_gpu_instance_with_stated_gpus_says_no_absence_215() -> None:
    # The user's words of capture 215: "an AWS g5.48xlarge instance which has 8 x A10G GPUs".
    gpus = fact(load_pasted([str(corpus_path("215"))]), "gpus")
    assert not gpus.none_on_bus and gpus.count == 8


def test_no_instance_named_stays_unknown_65() -> None:
    # ray-project/ray#14616: Ray in a Docker container, no instance type and no GPU listing: nothing shows no GPU.
    assert capture_checks("65", NCCL)[NCCL].status == "unknown"


def test_families_of_the_naming_page() -> None:
    assert instances_without_gpu("c6i.large and hpc7g.16xlarge") == ["c6i.large", "hpc7g.16xlarge"]
    assert instances_without_gpu("g5.48xlarge gr6.4xlarge p4d.24xlarge inf2.xlarge dl1.24xlarge") == []


def test_modelled_two_instances_state_nothing(tmp_path: Path) -> None:
    # Modelled: the words name a CPU and a GPU instance, so they are not one machine's.
    text = "I tried it on an m5.2xlarge and on a g5.2xlarge instance, same error\n"
    assert paste_checks(tmp_path, text, NCCL)[NCCL].status == "unknown"
