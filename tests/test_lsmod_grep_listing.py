"""A grep of `lsmod` shown with all it printed lists every loaded module its pattern matches (facts/shown_commands
_LISTINGS, facts/system.module_loaded): a module the pattern matches and the output does not list is not loaded.
IC-NVIDIA-PEERMEM reads it, and a job that spans nodes (facts/serving_logs.NcclNodes) decides what that absence costs.

Real pastes are corpus captures (their headers name the threads) or verbatim lines (the source beside them);
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from test_rule_nccl_job_nodes import UCCL_172

# Modelled on corpus 665's block (the same rows, nvidia's users shortened): the grep and its whole output, fenced.
LSMOD_GREP_NV = """```
$ lsmod | grep nv
nvidia_uvm           1376256  0
nvidia_drm             69632  0
nvidia_modeset       1245184  1 nvidia_drm
nvidia              56467456  106 nvidia_uvm,nvidia_modeset
```
"""
# uccl#172's two-host nccl-tests header (above) with one NCCL line naming two InfiniBand HCAs (modelled).
IB_LINE = "n232-194-227:600137:600137 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB bond0:10.0.0.1<0>\n"


def test_a_grep_whose_pattern_matches_the_module_proves_it_absent() -> None:
    # Real: corpus 665 (`lsmod | grep nv`) and 79 (`lsmod |grep nvidia`): neither lists nvidia_peermem. Without RDMA
    # NICs shown, the absence is the key negative: GPU-to-GPU traffic inside a host never uses the module.
    for prefix, grep in (("665", "lsmod | grep nv"), ("79", "lsmod |grep nvidia")):
        r = capture_checks(prefix, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
        assert r.status == "not-an-issue" and f"`{grep}` does not list it" in r.message, (prefix, r.message)


def test_a_job_across_nodes_over_infiniband_without_the_module_is_an_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, UCCL_172 + IB_LINE + LSMOD_GREP_NV, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert r.status == "issue" and "multi-node engine" in r.message and "mlx5_0" in r.message


def test_a_grep_whose_pattern_cannot_match_the_module_proves_nothing(tmp_path: Path) -> None:
    # Modelled: `lsmod | grep nvidia_uvm` would not print nvidia_peermem's row, so its output says nothing of it.
    text = LSMOD_GREP_NV.replace("grep nv\n", "grep nvidia_uvm\n").replace(
        "nvidia_drm             69632  0\nnvidia_modeset       1245184  1 nvidia_drm\n"
        "nvidia              56467456  106 nvidia_uvm,nvidia_modeset\n", "")
    r = paste_checks(tmp_path, UCCL_172 + IB_LINE + text, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert r.status == "unknown" and "whether nvidia_peermem is loaded is not in the source" in r.message


def test_the_grep_typed_at_bashs_default_prompt_is_read_as_well() -> None:
    # Real: corpus 1586 (bottlerocket-os/bottlerocket#4087), `bash-5.1# lsmod | grep nvidia` in Bottlerocket's admin
    # shell (importers/_paste._SHELL_VERSION_PROMPT): the same listing as 665's and 79's, nvidia_peermem not in it.
    r = capture_checks("1586", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert r.status == "not-an-issue" and "`lsmod | grep nvidia` does not list it" in r.message, r.message
