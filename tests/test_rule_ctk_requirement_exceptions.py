"""The container toolkit's refusal of an image's CUDA requirement, whichever condition it names, and the driver
version `nvidia-container-cli info` reports (issue 28, h81a).

- NVIDIA_REQUIRE_CUDA ORs its alternatives (`cuda>=10.0 brand=tesla,driver>=384,driver<385`), and the hook names the
  last condition it found false: `unsatisfied condition: brand = tesla` or a `driver` bound is the same refusal as
  `cuda>=10.0` (facts/symptoms.py ctk-cuda-requirement): DRV-CUDA-COMPAT's issue (corpus 1813).
- `nvidia-container-cli info`'s `NVRM version:   384.130` is the loaded driver's version (facts/nvidia.STATED_DRIVER):
  with `uname -a` beside it, KVER-NVIDIA-KERNEL-COMBOS judges the pair (corpus 1813).

Real pastes are cited by their public threads; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks, symptom_names

HOOK = ("stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig.real "
        "--device=all --compute --utility --require=cuda>=10.0 brand=tesla,driver>=384,driver<385 --pid=28631 "
        "/var/lib/docker/aufs/mnt/9ebf]\\\\nnvidia-container-cli: requirement error: unsatisfied condition: {}\\\\n\": unknown.")


def test_refusals_naming_the_exception_are_the_cuda_requirement() -> None:
    # NVIDIA/nvidia-docker#921 and #912 (`brand = tesla` on GeForce cards), docker/for-linux#846 (`driver >= 410`),
    # lmb-freiburg/netdef-docker#6 (`driver < 385`, a Tesla P100 on 390.77): each the hook's last false condition.
    for condition in ("brand = tesla", "driver >= 410", "driver < 385", "cuda >= 9.0", "cuda>=11.0, please update"):
        assert symptom_names(HOOK.format(condition) + "\n") == ["ctk-cuda-requirement"], condition


def test_refusals_that_are_not_the_driver() -> None:
    # NVIDIA/nvidia-container-toolkit#24: `brand = quadrortx` is a brand the toolkit before 1.9.0 does not know (its
    # maintainer's answer), not a driver older than the image: not this symptom.
    assert symptom_names("nvidia-container-cli: requirement error: unsatisfied condition: brand = quadrortx: "
                         "unknown\n") == []
    # Modelled: the hook's own command line asks (`--require=cuda>=10.0 brand=tesla,...`) and refuses nothing.
    assert symptom_names("exec command: [/usr/bin/nvidia-container-cli configure --require=cuda>=10.0 "
                         "brand=tesla,driver>=384,driver<385 --pid=1 /merged]\n") == []


def test_brand_tesla_refusal_over_a_384_driver() -> None:
    # Corpus 1813 (NVIDIA/nvidia-docker#895): a GeForce 920M on 384.130 (CUDA 9.0) refused the CUDA 10 image.
    results = capture_checks("1813", "DRV-CUDA-COMPAT", "KVER-NVIDIA-KERNEL-COMBOS")
    compat = results["DRV-CUDA-COMPAT"]
    assert compat.status == "issue", compat.message
    assert any("brand = tesla" in line for line in compat.evidence)
    # The info run's `NVRM version:   384.130` is the loaded driver, and `uname -a` names the kernel.
    combos = results["KVER-NVIDIA-KERNEL-COMBOS"]
    assert combos.status == "ok", combos.message
    assert "4.15.0-43-generic" in combos.message and "384.130" in combos.message


def test_info_run_driver_without_the_image_stays_unknown() -> None:
    # Corpus 1311 (NVIDIA/nvidia-container-toolkit#183): the info run reads driver 418.87.00, and the failing image's
    # CUDA is not shown: the driver is known, the pair is not.
    compat = capture_checks("1311", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status == "unknown", compat.message
    assert "418.87.00" in compat.message


def test_cuda_requirement_refusal_clears_container_access() -> None:
    # The hook ran and read the driver before it refused the image's requirement: not CTR-GPU-ACCESS's failure (issue
    # 28, h104b). Corpus 2367 (theroyallab/tabbyAPI#324, `cuda>=12.8`, both readers) and 2333 (vLLM's image,
    # `cuda>=12.4`, another thread).
    for prefix in ("2367", "2333"):
        result = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert result.status == "not-an-issue", (prefix, result.message)
        assert "prestart hook ran" in result.message


def test_hook_setup_failure_is_still_the_container_access(tmp_path: Path) -> None:
    # Modelled counter-example: the hook failing to set the container up (ctk-setup-error) is this check's issue.
    line = ("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create "
            "failed: unable to start container process: error during container init: error running hook #0: error "
            "running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
            "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
            "object file: no such file or directory: unknown.\n")
    result = paste_checks(tmp_path, line, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message
