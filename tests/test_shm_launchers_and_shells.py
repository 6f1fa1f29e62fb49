"""CTR-SHM-SIZE over containers whose command does not show the engine's ranks: a NIM image (a launcher that picks its
engine and TP profile at start, checks/ctr.ENGINE_LAUNCHERS), a serving image given a bare shell (`docker run -it IMAGE
bash`), and a docker run typed inside a sentence in a CJK script, whose full-width punctuation ends the command
(facts/container_specs._before_sentence).

Real text: corpus 2869 (xorbitsai/inference#3112), 2871 (a NIM on Quadro RTX 6000), 2881 (tritonserver 23.10 with
bash); the variants are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import audit_capture, capture_checks, paste_checks
from stackaudit.facts.container_specs import parse_docker_run


def test_nim_image_picks_its_ranks_later() -> None:
    check = capture_checks("2871", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert check.status == "unknown" and "launcher" in check.message, check.message


def test_nim_given_one_gpu_runs_no_ranks(tmp_path: Path) -> None:
    # Modelled on 2871's docker run, given one GPU.
    text = ("docker run -it --rm --name=my-first-nim --runtime=nvidia --gpus 1 -p 8000:8000 "
            "nvcr.io/nim/meta/llama-3.1-8b-instruct:latest\n")
    check = paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert check.status == "not-an-issue", check.message


def test_serving_image_given_a_shell_runs_what_is_typed_later(tmp_path: Path) -> None:
    check = capture_checks("2881", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert check.status == "unknown" and "opens a shell" in check.message, check.message
    # Modelled: the same shell with the engine typed in it at two ranks: an issue at Docker's 64 MiB.
    text = ("docker run --rm -it --gpus all nvcr.io/nvidia/tritonserver:23.10-trtllm-python-py3 bash\n"
            "root@0a1b2c3d4e5f:/opt/tritonserver# python3 scripts/launch_triton_server.py --world_size 2 "
            "--model_repo /triton_model_repo\n")
    (tmp_path / "typed.txt").write_text(text)
    report = audit_capture(tmp_path / "typed.txt")
    assert report is not None
    typed = next(r for r in report.results if r.id == "CTR-SHM-SIZE")
    assert typed.status == "issue", typed.message


def test_full_width_punctuation_ends_a_command_in_a_sentence() -> None:
    # Real: corpus 2869's sentence; its launcher's arguments stop at the full-width comma.
    c = parse_docker_run("执行 docker run  -p 9997:9997 --gpus all xprobe/xinference:latest xinference-local -H 0.0.0.0 "
                         "，开启容器，本机9997端口打开浏览器，选择qwq32b模型，参数选择 vllm python，直接启动")
    assert c.image == "xprobe/xinference:latest" and c.argv == ("xinference-local", "-H", "0.0.0.0")
    # Modelled: the punctuation glued to the last word.
    glued = parse_docker_run("运行 docker run --gpus all vllm/vllm-openai:latest --model m，然后报错")
    assert glued.argv[-2:] == ("--model", "m")
    check = capture_checks("2869", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    # Xinference's launcher, not the user's words after it ("参数选择 vllm"), decides: unknown, not a one-rank vLLM.
    assert check.status == "unknown", check.message
