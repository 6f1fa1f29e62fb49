"""A `docker run` whose image the user replaced with a placeholder (`<image>`, `<container_name>`) is the run they
typed, read for its options: a word held whole in angle brackets is no `<` redirection (facts/_parse.first_command),
and CTR-GPU-ACCESS does not take the GPU request of a container whose image is hidden as access (corpus 2591). A
volume whose host path is a placeholder (`-v <my_local_model_path>:/mnt/model/`) and a command continued over an
interactive shell's `>` prompts (PS2, facts/_parse.join_continued) are read the same way (corpus 2607)."""

from __future__ import annotations

import pytest

from corpus import capture_report, capture_result
from stackaudit.facts._parse import ParseError, first_command, join_continued
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


# Real: corpus 2607 (vllm-project/vllm#1710), typed at the host's prompt and continued over bash's `>` prompts.
VLLM_1710 = """(base) ubuntu@ip-10-217-30-221:~$ docker run --runtime nvidia --gpus all \\
>    -p 8000:8000 \\
>    -v <my_local_model_path>:/mnt/model/ \\
>     vllm:latest \\
>    --host 0.0.0.0 \\
>    --model="/mnt/model/" \\
>    --tensor-parallel-size 2"""


def test_run_continued_over_shell_prompts_with_placeholder_volume() -> None:
    run = parse_docker_run(join_continued(VLLM_1710))
    assert run.image == "vllm:latest" and run.runtime == "nvidia" and run.gpu_requested
    assert run.argv == ("--host", "0.0.0.0", "--model=/mnt/model/", "--tensor-parallel-size", "2")
    assert run.shm_size is None and run.ipc_mode == ""


def test_prompts_and_redirections_apart() -> None:
    # Modelled: a `>` set in from the margin on a continued line is the shell's redirection, not its prompt; a
    # word opening with `<` and no closing bracket stays a redirection.
    assert join_continued("vllm serve m \\\n  > out.log").split() == ["vllm", "serve", "m", ">", "out.log"]
    assert first_command(["cmd", "<in.txt", "x"]) == ["cmd", "x"]
    assert first_command(["docker", "-v", "<path>:/mnt", "img"]) == ["docker", "-v", "<path>:/mnt", "img"]


def test_corpus_2607_shm_and_ipc() -> None:
    shm = capture_result("2607", "CTR-SHM-SIZE")
    assert shm.status == "issue" and "64 MiB" in shm.message
    ipc = capture_result("2607", "CTR-IPC-ISOLATION")
    assert ipc.status == "ok" and "TP x PP = 2" in ipc.message


def test_corpus_1840_quoted_run_unchanged() -> None:
    # Real, another thread: a TGI run quoted in Markdown (`> ` on every line) is read as before.
    assert capture_result("1840", "CTR-SHM-SIZE").status == "issue"
    assert capture_result("1840", "CTR-IPC-ISOLATION").status == "ok"
