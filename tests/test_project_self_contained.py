"""The project stands on its own: no tracked file and no output string refers to a folder outside the
repository (`../shared`, `research/`, `shared/captures`, `/work/`) or to a path of the machine that built it
(this checkout's absolute path, $HOME, `/tmp/`). A user's clone has none of them; a reference to one is a
dead link (cite a public URL or the project's own docs/ instead)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from ceiling_published import CONFIGS
from stackaudit.checks.registry import load_all
from test_cli_conventions import cli_commands

REPO = Path(__file__).resolve().parents[1]
THIS_FILE = Path(__file__).resolve().relative_to(REPO).as_posix()
# LICENSE is the Apache text, verbatim; this file names the patterns it looks for.
NOT_SCANNED = {"LICENSE", THIS_FILE}


def _forbidden() -> list[str]:
    patterns = ["../shared", "research/", "shared/captures", "/work/", "/tmp/", str(REPO)]
    home = os.environ.get("HOME", "").rstrip("/")
    # "/root" is the home of the audited machines in the modelled captures and fake hosts (root runs the
    # engine in most containers): it names the audited host there, not the builder's. A personal home
    # (/home/NAME, /Users/NAME) is never modelled data.
    if home and home not in ("", "/root"):
        patterns.append(home + "/")
    return patterns


# The X server's socket folder (pasted `docker run` lines mount it) and ZeroMQ's IPC sockets (vLLM's
# worker logs name them) are the audited host's, not scratch paths of the machine that built the project.
# A GitHub Actions runner's workspace is where an engine's wheel was built: a pasted CUDA error names its source there.
# Engines' own scratch folders in their pasted logs are the audited host's too: PyInstaller's extraction folder of a
# KoboldCpp binary (`/tmp/_MEIwREyY8/`), TGI's shard sockets (`shard_uds_path: "/tmp/text-generation-server"`),
# LocalAI's backend assets and its Go process manager's state (`/tmp/localai/`, `/tmp/go-processmanager…`), ollama
# 0.1's runner libraries, which it extracts to a folder of its own (`/tmp/ollama168465594/cpu_avx2/libext_server.so`).
# The MPS control daemon's default pipe directory (`/tmp/nvidia-mps`), which its log names.
_SYSTEM_PATHS = ("/tmp/.X11-unix", "ipc:///tmp/", "/home/runner/work/", "/tmp/_MEI", "/tmp/text-generation-server",
                 "/tmp/localai/", "/tmp/go-processmanager", "/tmp/ollama", "/tmp/nvidia-mps")


# A capture is a verbatim paste from a public thread: a /tmp/ path there is the audited host's scratch folder
# (`--model_dir /tmp/llama2-7b-hf/`), never the builder's.
CAPTURES = "tests/data/captures/"


# In a capture, `/work/` inside another path is the audited host's (conda-build's
# `/opt/conda/conda-bld/pytorch_1603729062494/work/torch/...` in a traceback, corpus 916); at a path's root it is the
# builder's folder.
_NESTED_WORK = re.compile(r"(?<=[\w.-])/work/")


# Below a capture's end-of-header line is the paste itself, verbatim from the public thread its header cites: a
# `/work/` there is the audited host's too, at a path's root as well (`root@host:/work/vllm_code#`, corpus 993).
# The header is the project's own writing and is scanned as any file is, but for the nested form above.
END_OF_HEADER = "# ----- end of header"


# conda-build's work folder of a package it built (`.../conda-bld/pytorch-0.1.9_1487346124464/work/torch/...`), named
# in a pasted traceback or CUDA error that a test quotes as a constant (tests/test_container_where_ran.py), is the
# package builder's, never this project's builder's.
_CONDA_BUILD_WORK = re.compile(r"/conda-bld/[\w.+-]+/work/")


# A public repository whose owner's name ends in "research" (`facebookresearch/Detectron`, corpus 1266) is no
# reference folder: "research/" counts only where it starts a path.
_OWNER_RESEARCH = re.compile(r"(?<=[\w-])research/")


# `/tmp/` inside another path is a folder of that path (`./tmp/baichuan_v1_13b/` under the working directory in
# TensorRT-LLM's examples, `/var/tmp/`), not the builder's /tmp.
_NESTED_TMP = re.compile(r"(?<=[\w.-])/tmp/")


def _offences(text: str, capture: bool = False, body: bool = False) -> list[str]:
    for path in _SYSTEM_PATHS:
        text = text.replace(path, "")
    text = _OWNER_RESEARCH.sub("", text)
    text = _CONDA_BUILD_WORK.sub("/", text)
    text = _NESTED_TMP.sub("/", text)
    if capture:
        text = _NESTED_WORK.sub("/", text)
    return [p for p in _forbidden() if p in text and not (capture and p == "/tmp/") and not (body and p == "/work/")]


def _capture_body_from(name: str, text: str) -> int:
    """The 1-based number of a capture's first body line; past the end for any other file."""
    if not name.startswith(CAPTURES):
        return len(text) + 2
    end = next((n for n, line in enumerate(text.splitlines(), 1) if line.startswith(END_OF_HEADER)), None)
    return end + 1 if end is not None else len(text) + 2


def _tracked_text_files() -> list[tuple[str, str]]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, timeout=60, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout (an sdist or wheel): nothing tracked to scan")
    files = []
    for name in listed.stdout.decode().split("\0"):
        path = REPO / name
        if not name or name in NOT_SCANNED or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        try:
            files.append((name, data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return files


def test_the_scan_sees_the_forbidden_references() -> None:
    """The patterns catch what they must (a scan that matches nothing would pass vacuously)."""
    assert _offences("See ../shared/DESIGN.md") == ["../shared"]
    assert _offences("(research/ceiling-model.md)") == ["research/"]
    assert _offences("https://github.com/facebookresearch/Detectron/issues/312") == []
    assert "/tmp/" in _offences("written to /tmp/x.json")
    assert _offences("--output_dir ./tmp/trt_engines/ --cache /var/tmp/x") == []
    assert _offences("--output_dir=/tmp/trt_engines/") == ["/tmp/"]
    assert str(REPO) in _offences(f"{REPO}/src/stackaudit")
    assert _offences("docs/design.md, https://docs.vllm.ai/en/latest/") == []
    assert _offences("--volume /tmp/.X11-unix:/tmp/.X11-unix") == []
    assert _offences("--volume /tmp/.X11-unix:/tmp/x") == ["/tmp/"]
    assert _offences("File /opt/conda/conda-bld/pytorch_1603729062494/work/torch/lib", capture=True) == []
    assert _offences("file=/data/users/soumith/miniconda2/conda-bld/pytorch-0.1.9_1487346124464/work/torch/lib") == []
    assert "/work/" in _offences("cd /work/main && make", capture=True)
    assert _offences("Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307") == []
    assert _offences("see /home/me/work/notes") == ["/work/"]
    assert _offences("--model_dir /tmp/llama2-7b-hf/", capture=True) == []
    assert _offences("cat /work/notes /tmp/x", capture=True) == ["/work/"]
    assert _offences("root@13yper:/work/vllm_code/benchmarks# python3 x.py", capture=True, body=True) == []
    assert _capture_body_from(CAPTURES + "1-x.txt", "# source: x\n# ----- end of header; ...\npaste\n") == 3


def test_no_tracked_file_refers_outside_the_repository() -> None:
    files = _tracked_text_files()
    assert len(files) > 100, "git ls-files listed too few files"
    bad = [f"{name}:{n}: {line.strip()[:120]}" for name, text in files
           for body in [_capture_body_from(name, text)]
           for n, line in enumerate(text.splitlines(), 1)
           if _offences(line, name.startswith(CAPTURES), n >= body)]  # fmt: skip
    assert not bad, "references outside the repository:\n" + "\n".join(bad)


def _commands() -> list[list[str]]:
    """Every command path of the CLI: [], ["audit"], ... (and any nested group's commands)."""
    return [path for path, _ in cli_commands()]


def test_help_texts_refer_to_nothing_outside(cli) -> None:  # type: ignore[no-untyped-def]
    commands = _commands()
    assert ["audit"] in commands and ["ceiling"] in commands
    for path in commands:
        run = cli(*path, "--help")
        assert run.rc == 0, (path, run.err)
        assert not _offences(run.out + run.err), (path, _offences(run.out + run.err))


@pytest.mark.parametrize("check_id", sorted(load_all()))
def test_explain_refers_to_nothing_outside(cli, check_id: str) -> None:  # type: ignore[no-untyped-def]
    run = cli("explain", check_id)
    assert run.rc == 0 and check_id in run.out, run.err
    assert not _offences(run.out + run.err)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_ceiling_measured_output_refers_to_nothing_outside(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    # A relative model path: an absolute path in the output would be the tool's own, not the argument.
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(CONFIGS["GLM-5"]), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = cli("ceiling", "--model", "m/config.json", "--gpu", "H200", "--gpus", "8", "--concurrency", "1,10",
              "--measured", "1=51.6,10=30", "--format", fmt)  # fmt: skip
    assert run.rc == 0, run.err
    assert "51.6" in run.out
    assert not _offences(run.out + run.err), _offences(run.out + run.err)
