"""DRV-CUDA-COMPAT where no torch is shown but a container's image names the runtime (checks/drv.py `_ollama_image`,
`_image_runtime`; facts/docker.py `image_cuda`).

An ollama image of any tag under a driver for CUDA 12.1 or newer runs: ollama picks its CUDA runner from the
driver's CUDA (OLLAMA_RUNNER_BY_DRIVER). NVIDIA's CUDA image names its runtime in its tag, and a newer driver runs
an older runtime.

Real pastes: corpus 567 (ollama/ollama#7006: `ollama/ollama:latest` on WSL 2 beside driver 555.99, CUDA 12.5);
ollama's own docs/docker.md command (`docker run -d --gpus=all ... ollama/ollama`, no tag); the CUDA image checks
of google-deepmind/alphafold PR 700 (`docker run --rm --gpus all nvidia/cuda:11.0.3-base nvidia-smi`) and
mmartial/ComfyUI-Nvidia-Docker#21 (`nvidia/cuda:11.6.2-base-ubuntu20.04`, a driver of CUDA 12.6 in the thread);
corpus 570's command (redhat-et/triton-dev-containers#30) in the docker form. The nvidia-smi tables beside the
commands are modelled for the drivers the threads name.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from gap_pastes import H100_BUS, nvidia_smi_table
from stackaudit.facts.docker import image_cuda

COMPAT = "DRV-CUDA-COMPAT"
OLLAMA_DOCS = "docker run -d --gpus=all -v ollama:/root/.ollama -p 11434:11434 --name ollama ollama/ollama\n"
ALPHAFOLD = "docker run --rm --gpus all nvidia/cuda:11.0.3-base nvidia-smi\n"
COMFY = "docker run --rm --runtime=nvidia --gpus all nvidia/cuda:11.6.2-base-ubuntu20.04 nvidia-smi\n"
TRITON_DEV = "$ sudo docker run --rm --gpus all nvidia/cuda:11.0.3-base-ubuntu20.04 nvidia-smi\n"


def _table(driver: str, cuda: str) -> str:
    # Modelled: the default table of one GPU under the driver named.
    return "\n" + nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559).replace(
        "570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8",
        f"{driver}             Driver Version: {driver}     CUDA Version: {cuda}")


def test_567_an_untagged_ollama_image_under_a_cuda_12_5_driver() -> None:
    result = capture_checks("567", COMPAT)[COMPAT]
    assert result.status == "ok" and "ollama/ollama:latest" in result.message and "12.5" in result.message


def test_an_ollama_image_without_a_tag(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, OLLAMA_DOCS + _table("550.54.15", "12.4"), COMPAT)[COMPAT].status == "ok"
    # Under a driver for CUDA 11.7 which runner it loads depends on the release the tag does not name.
    assert paste_checks(tmp_path, OLLAMA_DOCS + _table("515.105.01", "11.7"), COMPAT)[COMPAT].status == "unknown"


def test_a_cuda_image_older_than_the_driver_runs(tmp_path: Path) -> None:
    for command, driver, cuda in ((ALPHAFOLD, "525.85.12", "12.0"), (COMFY, "560.35.03", "12.6"),
                                  (TRITON_DEV, "565.77", "12.7")):
        result = paste_checks(tmp_path, command + _table(driver, cuda), COMPAT)[COMPAT]
        assert result.status == "ok" and "nvidia/cuda:11." in result.message, command


def test_a_cuda_image_newer_than_the_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled counter-example: a CUDA 12.8 image under a driver for CUDA 12.2 meets the image's requirement check.
    newer = COMFY.replace("11.6.2-base-ubuntu20.04", "12.8.0-base-ubuntu22.04")
    result = paste_checks(tmp_path, newer + _table("535.183.01", "12.2"), COMPAT)[COMPAT]
    assert result.status == "unknown" and "cuda>=" in result.message


def test_an_image_tag_that_names_no_cuda(tmp_path: Path) -> None:
    # Modelled counter-example: `nvidia/cuda:latest` names no runtime; an ubuntu image ships none.
    for image in ("nvidia/cuda:latest", "ubuntu:22.04"):
        text = COMFY.replace("nvidia/cuda:11.6.2-base-ubuntu20.04", image) + _table("560.35.03", "12.6")
        result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
        assert result.status == "unknown" and "torch's CUDA version is not in this source" in result.message, image


def test_a_wheel_label_in_any_image_tag_names_its_torch_cuda(tmp_path: Path) -> None:
    # 2369 (YanWenKun/ComfyUI-Docker#93): `yanwk/comfyui-boot:cu124-cn` under WSL's driver 572.16 for CUDA 12.8.
    result = capture_checks("2369", COMPAT)[COMPAT]
    assert result.status == "ok" and "yanwk/comfyui-boot:cu124-cn (CUDA 12.4)" in result.message
    assert image_cuda("foo/bar:2.1-cu118-slim") == "11.8" and image_cuda("lmsysorg/sglang:v0.4.8-cu126") == "12.6"
    # Modelled: the same label above the driver's CUDA is no ok; a `cu` that is no word of the tag names nothing.
    text = COMFY.replace("nvidia/cuda:11.6.2-base-ubuntu20.04", "yanwk/comfyui-boot:cu128-cn")
    assert paste_checks(tmp_path, text + _table("535.183.01", "12.2"), COMPAT)[COMPAT].status == "unknown"
    for image in ("foo/bar:ecu124", "foo/bar:cu1240", "foo/cu124:latest", "foo/bar:cu124.1"):
        assert image_cuda(image) == "", image


def test_tgi_release_tags_name_the_cuda_of_their_dockerfile() -> None:
    # Text Generation Inference's Dockerfile at each release tag (docker.TGI_CUDA): 11.8, then 12.1 from v1.2.0, 12.4
    # from v2.3.0, 12.6 from v3.3.1; other builds' suffixes, a release outside the table and other images name none.
    from stackaudit.facts.docker import image_cuda, tgi_image_cuda

    image = "ghcr.io/huggingface/text-generation-inference:"
    assert [tgi_image_cuda(image + tag) for tag in ("0.8.2", "1.1.1", "1.4", "2.0.4", "2.3.0", "3.3.0", "3.3.1")] == [
        "11.8", "11.8", "12.1", "12.1", "12.4", "12.4", "12.6"]
    assert [tgi_image_cuda(image + tag) for tag in ("latest", "2.0.4-rocm", "3.0.1-intel", "0.4.0", "3.4.0")] == [""] * 5
    assert image_cuda(image + "2.0.4") == "12.1" and tgi_image_cuda("vllm/vllm-openai:v0.5.4") == ""


def test_276_a_tgi_image_under_a_newer_driver_is_ok() -> None:
    # Corpus 276: `docker run ... ghcr.io/huggingface/text-generation-inference:2.0.4` beside driver 550.54.15 (12.4).
    result = capture_checks("276", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "text-generation-inference:2.0.4 (CUDA 12.1)" in result.message


def test_a_tgi_image_named_in_prose_under_an_older_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 247's first line: TGI 1.0.2 (CUDA 11.8) named in prose, under a driver for CUDA 11.4 and nothing
    # shown running: the image's requirement lets R470 through (not ok; not an issue by minor-version compatibility).
    text = "Running directly in `ghcr.io/huggingface/text-generation-inference:1.0.2`.\n" + _table("470.141.03", "11.4")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status != "ok" and "CUDA 11.8" in result.message, result.message


def test_247_an_11_8_image_on_r470_starts_and_runs_by_minor_version_compatibility() -> None:
    # Corpus 247: TGI 1.0.2's image (FROM nvidia/cuda:11.8.0, NVIDIA_REQUIRE_CUDA naming R470 for every brand) under
    # driver 470.141.03 (CUDA 11.4): the toolkit lets it start and CUDA 11.x runs on R470 (above 450.80.02).
    result = capture_checks("247", COMPAT)[COMPAT]
    assert result.status == "not-an-issue" and "R470" in result.message, result.message


def test_an_image_whose_requirement_does_not_name_the_branch_stays_unknown(tmp_path: Path) -> None:
    # Modelled: NVIDIA's CUDA 11.8 image under R450 (its list names R450 for tesla only), a CUDA 12.1 image under R470
    # (across majors), and PyTorch's 11.8 image under R470 (not NVIDIA's lineage): the toolkit's check is not told.
    for image, driver, cuda in (("nvidia/cuda:11.8.0-base-ubuntu20.04", "450.80.02", "11.0"),
                                ("nvidia/cuda:12.1.0-base-ubuntu22.04", "470.141.03", "11.4"),
                                ("pytorch/pytorch:2.0.0-cuda11.8-cudnn8-runtime", "470.141.03", "11.4")):
        text = f"docker run --rm --gpus all {image} python serve.py\n" + _table(driver, cuda)
        result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
        assert result.status == "unknown", (image, result.status, result.message)


def test_2075_an_11_8_image_on_a_branch_its_requirement_never_names_is_refused() -> None:
    # Corpus 2075 (NVIDIA/nvidia-docker#1762): `nvidia/cuda:cuda11.8.0-cudnn8-devel-ubuntu20.04` (its tag written with
    # `cuda` before the version) under driver 440.33.01 (CUDA 10.2): no exception of CUDA 11.8's requirement names
    # R440, so the toolkit refuses it on any GPU.
    result = capture_checks("2075", COMPAT)[COMPAT]
    assert result.status == "issue" and "R440" in result.message and "cuda>=11.8" in result.message, result.message


def test_an_11_8_image_under_a_branch_no_exception_names_is_an_issue(tmp_path: Path) -> None:
    # Modelled on NVIDIA/nvidia-docker#1442 (`cuda>=11.0` refused below R450): NVIDIA's CUDA 11.8 image under R460 and
    # under R455; each list of CUDA 11.8's requirement names R418, R450, R470, R510 and R515 only.
    for driver, cuda in (("460.106.00", "11.2"), ("455.45.01", "11.1")):
        text = "docker run --rm --gpus all nvidia/cuda:11.8.0-base-ubuntu20.04 python serve.py\n" + _table(driver, cuda)
        result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
        assert result.status == "issue" and f"R{driver[:3]}" in result.message, (driver, result.message)


def test_1332_tgi_info_names_its_release_and_image() -> None:
    # Corpus 1332: TGI's /info JSON ("version": "1.4.0", "docker_label": "sha-c2d4a3b") beside driver 545.29.06 (CUDA
    # 12.3): the image of release 1.4.0 ships CUDA 12.1 (docker.TGI_CUDA), which the driver runs.
    result = capture_checks("1332", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "Text Generation Inference 1.4.0's image" in result.message and "CUDA 12.1" in result.message


def _info(label: str, extra: str = '  "model_device_type": "cuda",\n') -> str:
    # Modelled on corpus 1332's /info object, under a driver for CUDA 11.8.
    return ('text-generation-inference:\n{\n  "model_id": "/model",\n' + extra + '  "version": "1.4.0",\n'
            f'  "sha": "c2d4a3b5c7bb6a8367c00f7c797bf87f4b2fcef9",\n  "docker_label": {label}\n}}\n'
            + _table("520.61.05", "11.8"))


def test_tgi_info_of_a_newer_image_under_an_older_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled: release 1.4.0's image (CUDA 12.1) under a driver for CUDA 11.8, nothing shown running: not ok.
    result = paste_checks(tmp_path, _info('"sha-c2d4a3b"'), COMPAT)[COMPAT]
    assert result.status != "ok" and "CUDA 12.1" in result.message, result.message


def test_tgi_info_without_its_image_label_names_no_runtime(tmp_path: Path) -> None:
    # Modelled: a source build (`"docker_label": null`) ships whatever CUDA its builder had, and an object without
    # TGI's own keys is not TGI's: neither names a runtime.
    for text in (_info("null"), _info('"sha-c2d4a3b"', extra="")):
        result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
        assert "Text Generation Inference" not in result.message and "CUDA 12.1" not in result.message, result.message
