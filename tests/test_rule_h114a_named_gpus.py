"""GPUs named where the tool did not read them (issue 28, h114a).

- facts/gpus._OWNED_MODEL: the user's GPU after `I am with`, `w/ a`, `with <model> GPU`, `on Nvidia <model>`, and a
  hardware summary's `gpu <model>` line without its colon; facts/gpus._model_in reads `Nvidia RTX 4060Ti.` as the
  RTX 4060 Ti.
- facts/gpus._LAUNCH_SPEC: gcloud's `--accelerator type=nvidia-tesla-t4,count=1` (a GKE node pool's GPUs).
MEM-MIG reads those models through the `gpus` fact: a model without MIG makes it not applicable.
"""

from __future__ import annotations

import pytest

from corpus import capture_result
from stackaudit.facts.gpus import owned_model, stated_gpus


@pytest.mark.parametrize("prefix", ["2548", "2553", "2565", "2567", "2571", "2582"])
def test_mig_not_applicable_on_the_named_gpu(prefix: str) -> None:
    result = capture_result(prefix, "MEM-MIG")
    assert result.status == "not-applicable", result.message


@pytest.mark.parametrize(("line", "want"), [
    # Real (corpus 2565, lmdeploy#1459).
    ("I am with L40 but only 46068MiB is shown (supposedly it would be 48GB).", "L40"),
    # Real (corpus 2548, siderolabs/extensions#227).
    ("I've got a baremetal proxmox server w/ a Tesla P40 in it, and I'm running Talos in a few VMs", "Tesla P40"),
    # Real (corpus 2571, ollama#3198).
    ("i have cluster kubernetes with 4070 Super GPU", "4070 Super"),
    # Real (corpus 2567, vllm#10792).
    ("Here i am running an embeddings models on Nvidia RTX 4060Ti. As you can see my", "RTX 4060 Ti"),
    # Real (corpus 2553, THUDM/GLM-4's issue form).
    ("gpu V100 32G 显存。", "V100"),
    # Real (another thread: corpus 1624's title, NVIDIA/TensorRT-LLM#963).
    ("When deploying 13B LLaMA-V2 on NVIDIA GeForce RTX 3090.", "RTX 3090"),
])
def test_owned_model_after_with_and_brand(line: str, want: str) -> None:
    assert owned_model(line) == want


@pytest.mark.parametrize("line", [
    # Modelled: a comparison names another GPU, not the user's.
    "mine is much slower compared with A100 GPU numbers",
    # Modelled: `on nvidia` before no model.
    "which runs on nvidia as another backend",
    # Modelled: the key without a model.
    "GPU utilization stays at 100%",
])
def test_no_owned_model(line: str) -> None:
    assert owned_model(line) == ""


def test_gcloud_accelerator_request() -> None:
    # Real (corpus 2582): a GKE node pool of one T4 each.
    assert stated_gpus("  --accelerator type=nvidia-tesla-t4,count=1 \\") == [(1, "T4")]
    # Modelled: gcloud compute's `=` form with two L4s.
    assert stated_gpus("gcloud compute instances create vm --accelerator=type=nvidia-l4,count=2") == [(2, "L4")]
    # Modelled: a flag of another tool, no type= (no model).
    assert stated_gpus("--accelerator gpu --devices 2") == []
