"""A `docker run` whose image the user replaced with a placeholder (`<image>`, `<container_name>`) is the run they
typed, read for its options: a word held whole in angle brackets is no `<` redirection (facts/_parse.first_command),
and CTR-GPU-ACCESS does not take the GPU request of a container whose image is hidden as access (corpus 2591)."""

from __future__ import annotations

import pytest

from corpus import capture_report, capture_result
from stackaudit.facts._parse import ParseError, first_command
from stackaudit.facts.container_specs import parse_docker_run

# Real: corpus 2591 (ai-dynamo/nixl#441, a comment), the image name replaced by the user.
NIXL_441 = ("$ docker run --name nixl --privileged --gpus all --network=host --ipc=host --ulimit memlock=-1 "
            "--ulimit stack=67108864 -d  <image>")
# Real: corpus 1910 (a bug report's precondition), image and script both placeholders.
PRECONDITION_1910 = "docker run --rm --runtime=nvidia <container_name> <bash_script_that_uses_gpu>"


def test_placeholder_image_is_read_with_its_options() -> None:
    run = parse_docker_run(NIXL_441)
    assert run.image == "<image>" and run.image_hidden
    assert run.ipc_mode == "host" and run.privileged and run.gpu_requested
    assert any(u.name == "memlock" and u.soft == -1 for u in run.ulimits)
    other = parse_docker_run(PRECONDITION_1910)
    assert other.image == "<container_name>" and other.runtime == "nvidia"
    assert other.argv == ("<bash_script_that_uses_gpu>",)


def test_redirections_are_still_left_out() -> None:
    # Modelled: a real redirection and a here-string keep their meaning; only a word whole in brackets is kept.
    assert first_command(["cat", "<", "file", "x"]) == ["cat", "x"]
    assert first_command(["cmd", "<input.txt", ">out.log", "2>&1"]) == ["cmd"]
    assert first_command(["docker", "<image>"]) == ["docker", "<image>"]


def test_template_in_a_sentence_stays_refused() -> None:
    # Modelled: a placeholder run someone suggests inside a sentence's inline code is a template, not a run.
    with pytest.raises(ParseError):
        parse_docker_run("Please try `docker run --gpus all <image> nvidia-smi` and paste the output")
    with pytest.raises(ParseError):
        parse_docker_run("docker run --gpus all ...")


def test_corpus_2591_is_read() -> None:
    assert "docker run (lines 6-6)" in capture_report("2591").source["recognised"]
    assert capture_result("2591", "CTR-SHM-SIZE").status == "ok"
    assert capture_result("2591", "CTR-MEMLOCK").status == "ok"
    gpu = capture_result("2591", "CTR-GPU-ACCESS")
    assert gpu.status == "unknown" and "placeholder" in gpu.message
    assert capture_result("2591", "DRV-CUDA-COMPAT").status == "unknown"


def test_corpus_1910_run_is_recognised() -> None:
    assert "docker run (lines 4-4)" in capture_report("1910").source["recognised"]
    assert capture_result("1910", "CTR-GPU-ACCESS").status == "issue"  # dockerd down decides, as before
