"""Markdown wrappers and container specs people paste (issue 28, class h66d).

A pod spec's `containers:` list pasted without the pod around it, inside one Markdown inline-code span (a lone
backtick opens its first line and closes its last: corpus 1405, vllm#7303) is a piece of a pod spec
(importers/container_specs._containers_piece): its containers' args are shown to their end (DockerContainer.command_whole),
so RT-CUDA-GRAPHS reads the engine's flags; the pod's other keys and whatever the user left out of the container are
not shown, so no GPU request shown is not a container started without GPUs (CTR-GPU-ACCESS unknown).

uvicorn's own lines in vLLM's API server behind its process tag (`(APIServer pid=1) INFO:     Started server process
[1]`, corpus 1396 behind a compose prefix, 510, 1395) are that server's log: the paste view keeps the tag on them.
Texts marked modelled are built for the counter-cases.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.sources import LOG_LINE_PROGRAMS
from stackaudit.importers._paste import view
from stackaudit.importers.recognition import recognise


def _spans(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == kind]


def test_1405_backticked_containers_list_is_a_pod_piece_with_its_lines() -> None:
    text = body("1405")
    # The span's backticks are markup: line 1 and 10 lose them and keep their numbers.
    lines = view(text)
    assert lines.lines[0] == "      containers:" and lines.origin[0] == 0
    assert lines.lines[9] == "            - float16" and lines.origin[9] == 9
    assert _spans(text, "k8s pod") == [("k8s pod", 1, 10)]
    assert _spans(text, "server log") == [("server log", 12, 12)]


def test_1405_args_are_the_engines_flags_the_request_is_not_shown() -> None:
    results = capture_checks("1405", "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS", "CTR-SHM-SIZE")
    assert results["RT-CUDA-GRAPHS"].status == "ok"  # no --enforce-eager in the args list
    # The piece shows no `resources:`: its GPU request may be in the part left out, not a container without GPUs.
    assert results["CTR-GPU-ACCESS"].status == "unknown"
    assert "piece" in results["CTR-GPU-ACCESS"].message
    assert results["CTR-SHM-SIZE"].status == "unknown"  # no volumes shown


# Modelled on 1405: the same list, fenced, with an eager-mode flag among its args.
_EAGER = ("My pod:\n```\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.5.3.post1\n"
          "          args:\n            - '--model'\n            - microsoft/Phi-3-mini-4k-instruct\n"
          "            - '--enforce-eager'\n```\n")


def test_modelled_eager_flag_in_the_list_is_an_issue(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, _EAGER, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


def test_modelled_list_the_paste_cuts_leaves_its_args_open(tmp_path: Path) -> None:
    # Modelled: the fence never closes, so the list goes on past the paste's end: a flag could follow.
    text = _EAGER.replace("            - '--enforce-eager'\n```\n", "            - '--dtype'\n            - half\n")
    assert _spans(text, "k8s pod")
    assert paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "unknown"


def test_modelled_containers_key_without_a_list_is_no_pod() -> None:
    # Modelled: a `containers:` key over a mapping (a tool's own config) holds no container list.
    text = "```\ncontainers:\n  runtime: docker\n  image: vllm/vllm-openai:latest\n```\n"
    assert _spans(text, "k8s pod") == []


def test_1396_uvicorn_lines_behind_the_api_server_tag_are_the_server_log() -> None:
    text = body("1396")
    assert _spans(text, "server log") == [("server log", 1, 4), ("server log", 6, 10)]
    # The tag still names the process for what reads it (PID 1: the container's first process).
    assert "APIServer pid=1" in recognise(text).record.docs[LOG_LINE_PROGRAMS.name]


def test_modelled_uvicorn_lines_without_the_tag_are_any_web_servers() -> None:
    # Modelled: the same lines with no vLLM process tag may be any Python web server's.
    text = ("INFO:     Started server process [1]\nINFO:     Waiting for application startup.\n"
            "INFO:     Application startup complete.\n")
    assert _spans(text, "server log") == []
