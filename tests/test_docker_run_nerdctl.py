"""containerd's `nerdctl run` read as a `docker run` (facts/container_specs.DOCKER_RUN_START): nerdctl takes Docker's
run options as they are (`--gpus`, `--runtime`, `--rm`, `-it`), and its namespace may stand before `run` or after it.
"""

from __future__ import annotations

import pytest

from stackaudit.facts._parse import ParseError
from stackaudit.facts.container_specs import parse_docker_run

# Real: https://github.com/containerd/nerdctl/issues/2755 (a comment: the GPU Operator's toolkit runtime by path).
NERDCTL_2755 = ("nerdctl run -it --rm --gpus all --runtime=/usr/local/nvidia/toolkit/nvidia-container-runtime "
                "docker.io/nvidia/cuda:12.3.1-base-ubuntu20.04  nvidia-smi")
# Real: https://github.com/containerd/nerdctl/pull/251 (the description, at a root prompt).
NERDCTL_251 = "# nerdctl run --gpus all --rm -it nvidia/cuda:9.0-base nvidia-smi"
# Real: https://github.com/containerd/nerdctl/pull/3441 (the example the PR adds to docs/gpu.md).
NERDCTL_3441 = ("nerdctl run -it --rm --runtime=/usr/local/nvidia/toolkit/nvidia-container-runtime --gpus all "
                "nvidia/cuda:12.3.1-base-ubuntu20.04 nvidia-smi")


@pytest.mark.parametrize("line, image", [
    (NERDCTL_2755, "docker.io/nvidia/cuda:12.3.1-base-ubuntu20.04"),
    (NERDCTL_251, "nvidia/cuda:9.0-base"),
    (NERDCTL_3441, "nvidia/cuda:12.3.1-base-ubuntu20.04"),
    # Modelled: the namespace before `run` (nerdctl's global option) and after it.
    ("nerdctl -n k8s.io run --rm --gpus all nvidia/cuda:12.3.1-base-ubuntu20.04 nvidia-smi",
     "nvidia/cuda:12.3.1-base-ubuntu20.04"),
    ("nerdctl run -n k8s.io --rm --gpus all nvidia/cuda:12.3.1-base-ubuntu20.04 nvidia-smi",
     "nvidia/cuda:12.3.1-base-ubuntu20.04"),
])
def test_nerdctl_run_is_read_with_its_gpu_request(line: str, image: str) -> None:
    run = parse_docker_run(line)
    assert run.image == image
    assert run.gpu_requested
    assert run.argv == ("nvidia-smi",)


def test_other_nerdctl_commands_are_no_run() -> None:
    # Modelled: a listing, and a run named in a sentence without options.
    for line in ("nerdctl ps -a", "I tried nerdctl run but it fails"):
        with pytest.raises(ParseError):
            parse_docker_run(line)


def _runs(text: str) -> list[tuple[int, int]]:
    from stackaudit.importers.container_specs import docker_run

    return [(f.start, f.end) for f in docker_run(text.split("\n"))]


# Corpus 1861 (NVIDIA/nvidia-container-toolkit, a comment): the paste's last line, cut inside `--gpus`, no image.
CUT_1861 = ("# nerdctl run -n k8s.io --runtime=/usr/local/nvidia/toolkit/nvidia-container-runtime --network=host --rm -ti "
            "--name ubuntu --gp")


def test_run_the_paste_cuts_before_its_image_is_read_as_an_excerpt() -> None:
    """A run the paste ends in before its image is read for the options it shows; its image is not shown."""
    assert _runs("Running on my host:\n\n```bash\n" + CUT_1861) == [(3, 4)]
    run = parse_docker_run(CUT_1861, cut=True)
    assert (run.image, run.runtime, run.network_mode, run.excerpt) == (
        "", "/usr/local/nvidia/toolkit/nvidia-container-runtime", "host", True)
    assert not run.env_whole and run.argv == ()


def test_run_without_image_inside_the_paste_stays_unread() -> None:
    """Modelled: the same line with the paste going on below it is a run written without its image (a template or
    a typo), not one the paste cuts: not read."""
    assert _runs("```bash\n" + CUT_1861 + "\n```\nIt fails after a while.") == []
    with pytest.raises(ParseError):
        parse_docker_run(CUT_1861)
