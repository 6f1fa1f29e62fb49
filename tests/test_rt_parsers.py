"""Parsers of the serving-process and Python-environment facts: realistic, truncated and hostile input."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.facts._parse import ParseError
from stackaudit.facts.processes import (
    parse_cmdline_bytes,
    parse_environ,
    parse_flat_yaml,
    parse_stat_ppid,
    parse_status,
)
from stackaudit.facts.python_env import (
    parse_cuda_version_file,
    parse_dist_name,
    parse_metadata_version,
    parse_torch_version_py,
)

NUL_PIECES = st.lists(st.one_of(st.sampled_from(["\x00", "=", "VLLM_X=1", "::", "(", ")", " S ", "python3", "-m",
                                                 "VLLM::EngineCore", "\xff", " "]), st.text(max_size=8)),
                      max_size=40).map("".join)


def test_cmdline_with_title_padding_and_trailing_nul() -> None:
    assert parse_cmdline_bytes(b"vllm\x00serve\x00m\x00--enforce-eager\x00") == ("vllm", "serve", "m", "--enforce-eager")
    assert parse_cmdline_bytes(b"VLLM::EngineCore" + b"\x00" * 200) == ("VLLM::EngineCore",)
    assert parse_cmdline_bytes(b"sglang::scheduler_TP0" + b" " * 60) == ("sglang::scheduler_TP0",)
    assert parse_cmdline_bytes(b"") == ()


def test_environ_skips_garbage_and_keeps_values_with_equals() -> None:
    env = parse_environ(b"PATH=/usr/bin\x00JSON={\"a\":1}\x00noequals\x00=x\x00A=b=c\x00\xff\xfe=1\x00")
    assert env == {"PATH": "/usr/bin", "JSON": '{"a":1}', "A": "b=c"}
    assert parse_environ(b"\x00" * 500) == {}


def test_stat_with_spaces_and_parentheses_in_comm() -> None:
    assert parse_stat_ppid("4230 (VLLM::Worker_TP) S 4180 4101 950 0 -1 4194560") == ("VLLM::Worker_TP", 4180)
    assert parse_stat_ppid("77 (a) b (c)) R 12 77 77 0") == ("a) b (c)", 12)
    for bad in ("", "4230 VLLM S 4180", "1 (x)", "1 (x) S notanumber"):
        try:
            parse_stat_ppid(bad)
        except ParseError:
            continue
        raise AssertionError(bad)


def test_status_fields() -> None:
    status = parse_status("Name:\tpython3\nPid:\t4101\nCpus_allowed_list:\t0-15,32-47\nVmSwap:\t       0 kB\n")
    assert status["Cpus_allowed_list"] == "0-15,32-47" and status["VmSwap"] == "0 kB"


def test_flat_yaml_top_level_keys_nested_and_null() -> None:
    text = ("# TRT-LLM extra options\nbackend: pytorch\ncuda_graph_config:\nkv_cache_config:\n  "
            "free_gpu_memory_fraction: 0.9\nallreduce_strategy: 'ONESHOT'  # forced\nenforce-eager: true\n"
            "- stray list item\n")
    data = parse_flat_yaml(text)
    assert data["cuda_graph_config"] == "null" and data["kv_cache_config"] == "{...}"
    assert data["allreduce_strategy"] == "ONESHOT" and data["enforce_eager"] == "true"
    assert "free_gpu_memory_fraction" not in data


def test_dist_info_names_and_metadata() -> None:
    assert parse_dist_name("torch-2.7.1+cu128.dist-info") == ("torch", "2.7.1+cu128")
    assert parse_dist_name("flashinfer_python-0.2.8.dist-info") == ("flashinfer-python", "0.2.8")
    assert parse_dist_name("nvidia_nccl_cu12-2.26.2.dist-info") == ("nvidia-nccl-cu12", "2.26.2")
    assert parse_dist_name("vllm-0.10.2.dev12+g1a2b3c.d20250801.cu128.dist-info")[1].startswith("0.10.2.dev12")  # type: ignore[index]
    assert parse_dist_name("setuptools-68.0.0-py3.12.egg-info") == ("setuptools", "68.0.0")
    assert parse_dist_name("torch") is None and parse_dist_name("__pycache__") is None
    meta = "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.1+cu128\n\nVersion: not-this-one\n"
    assert parse_metadata_version(meta) == "2.7.1+cu128"
    assert parse_metadata_version("\nVersion: 1") is None


def test_torch_version_py_and_cuda_version_files() -> None:
    assert parse_torch_version_py("__version__ = '2.7.1+cu128'\ncuda: Optional[str] = '12.8'\n") == ("2.7.1+cu128", "12.8")
    assert parse_torch_version_py("__version__ = '2.7.1+cpu'\ncuda: Optional[str] = None\n") == ("2.7.1+cpu", "")
    assert parse_torch_version_py("garbage") == (None, None)
    assert parse_cuda_version_file('{"cuda": {"name": "CUDA SDK", "version": "12.8.1"}}') == "12.8.1"
    assert parse_cuda_version_file("CUDA Version 10.2.89\n") == "10.2.89"
    assert parse_cuda_version_file('["not", "a", "dict"]') is None


@settings(max_examples=200, deadline=None)
@given(data=st.one_of(st.binary(max_size=400), NUL_PIECES.map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_nul_list_parsers_never_raise(data: bytes) -> None:
    parse_cmdline_bytes(data)
    env = parse_environ(data)
    assert all("=" not in k and k for k in env)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=300), NUL_PIECES))
def test_text_parsers_raise_only_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_stat_ppid(text)
    parse_status(text)
    parse_flat_yaml(text)
    parse_dist_name(text)
    parse_metadata_version(text)
    parse_torch_version_py(text)
    parse_cuda_version_file(text)
