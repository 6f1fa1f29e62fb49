"""GPUs named outside nvidia-smi where the tool did not read them (issue 28, h116d).

- facts/gpus.TORCH_DEVICE_NAME: TRL's environment report's `CUDA device(s):` line, every device torch counts.
MEM-MIG reads those models through the `gpus` fact: a model without MIG makes it not applicable.
"""

from __future__ import annotations

import pytest

from corpus import capture_result
from stackaudit.facts.gpus import parse_torch_named_gpus
from stackaudit.facts._parse import ParseError


def test_trl_env_lists_every_cuda_device() -> None:
    # Real (corpus 2627, NVIDIA/TensorRT-LLM#5395): TRL's `trl env` report, four RTX A6000.
    text = ("- PyTorch version: 2.7.0\n"
            "- CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000, NVIDIA RTX A6000, NVIDIA RTX A6000\n")
    assert parse_torch_named_gpus(text).models == {i: "NVIDIA RTX A6000" for i in range(4)}
    result = capture_result("2627", "MEM-MIG")
    assert result.status == "not-applicable" and "RTX A6000" in result.message, result.message


def test_device_list_without_torch_is_not_read() -> None:
    # Modelled: the same key in another program's banner, no torch version beside it.
    with pytest.raises(ParseError):
        parse_torch_named_gpus("CUDA device(s): NVIDIA RTX A6000, NVIDIA RTX A6000\n")
