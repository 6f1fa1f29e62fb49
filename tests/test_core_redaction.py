"""Secrets never reach a snapshot or any report format."""

from __future__ import annotations

import json
import tarfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.capture import capture_host
from stackaudit.engine.runner import run_audit
from stackaudit.host.memory import fake_host
from stackaudit.host.redact import redact_argv, redact_command_output, redact_env_entries, redact_text
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.report.render import render

SECRETS = ("sk-live-0123456789abcdef", "hf_AbCdEfGhIjKlMnOpQrStUv", "s3cr3tpass", "ghp_tokentokentoken")


def test_redact_env_entries_by_name_and_urls() -> None:
    out = redact_env_entries([
        f"OPENAI_API_KEY={SECRETS[0]}", f"HF_TOKEN={SECRETS[1]}", "NCCL_P2P_DISABLE=1",
        f"PROXY=http://user:{SECRETS[2]}@proxy:3128", "CUDA_VISIBLE_DEVICES=0,1",
    ])
    text = "\n".join(out)
    assert not any(s in text for s in SECRETS)
    assert "NCCL_P2P_DISABLE=1" in out and "CUDA_VISIBLE_DEVICES=0,1" in out


def test_redact_argv_flag_forms() -> None:
    argv = ["vllm", "serve", "m", "--api-key", SECRETS[0], f"--hf-token={SECRETS[1]}", "--tensor-parallel-size", "2"]
    out = redact_argv(argv)
    assert SECRETS[0] not in out and all(SECRETS[1] not in a for a in out)
    assert out[-2:] == ["--tensor-parallel-size", "2"]


def test_redact_text_shell_and_json() -> None:
    text = (f'export GITHUB_TOKEN={SECRETS[3]}\npython -m sglang.launch_server --api-key {SECRETS[0]}\n'
            f'{{"password": "{SECRETS[2]}", "model": "llama"}}')
    out = redact_text(text)
    assert not any(s in out for s in SECRETS)
    assert '"model": "llama"' in out


def test_docker_inspect_is_redacted_structurally() -> None:
    inspect = json.dumps([{"Id": "abc", "Args": ["--api-key", SECRETS[0], "--port", "8000"],
                           "Config": {"Env": [f"HF_TOKEN={SECRETS[1]}", "PATH=/usr/bin"],
                                      "Cmd": ["serve", f"--api-key={SECRETS[0]}"]}}])
    out = redact_command_output(("docker", "inspect", "abc"), inspect)
    assert not any(s in out for s in SECRETS)
    assert json.loads(out)[0]["Config"]["Env"][1] == "PATH=/usr/bin"


def _host_with_secrets():  # type: ignore[no-untyped-def]
    environ = "\0".join([f"OPENAI_API_KEY={SECRETS[0]}", f"HF_TOKEN={SECRETS[1]}", "NCCL_DEBUG=INFO"]) + "\0"
    cmdline = "\0".join(["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--api-key", SECRETS[0],
                         "--model", "m"]) + "\0"
    return fake_host(
        files={"/proc/self/environ": environ, "/proc/4242/environ": environ, "/proc/4242/cmdline": cmdline,
               "/proc/4242/status": "Name:\tpython3\nPPid:\t1\n", "/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro\n"},
        dirs={"/proc": ["4242", "self", "cmdline"]},
        commands={("docker", "ps", "-q"): "abc\n",
                  ("docker", "inspect", "abc"): json.dumps([{"Id": "abc", "Args": ["--api-key", SECRETS[0]],
                                                              "Config": {"Env": [f"HF_TOKEN={SECRETS[1]}"]}}])},
        which={"docker": "/usr/bin/docker"},
    )


def test_secrets_never_reach_snapshot(tmp_path) -> None:
    out = tmp_path / "snap.tar.gz"
    capture_host(_host_with_secrets(), str(out))
    with tarfile.open(out) as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert not any(s.encode() in blob for s in SECRETS)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_secrets_never_reach_reports(fmt: str, tmp_path) -> None:
    report = run_audit(_host_with_secrets())
    text = render(report, fmt)
    assert not any(s in text for s in SECRETS)
    snap = tmp_path / "s.tar.gz"
    capture_host(_host_with_secrets(), str(snap))
    replayed = render(run_audit(load_snapshot(str(snap))), fmt)
    assert not any(s in replayed for s in SECRETS)


def test_yaml_config_secrets_and_setting_names_kept() -> None:
    from stackaudit.host.redact import is_secret_name, redact_file

    text = f"model: m\napi-key: {SECRETS[0]}\nhf_token: {SECRETS[1]}\nmax_num_batched_tokens: 8192\n"
    out = redact_file("/etc/vllm/config.yaml", text.encode()).decode()
    assert SECRETS[0] not in out and SECRETS[1] not in out
    assert "max_num_batched_tokens: 8192" in out and "model: m" in out
    for name in ("OPENAI_API_KEY", "HF_TOKEN", "api-key", "apikey", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD"):
        assert is_secret_name(name), name
    for name in ("TOKENIZERS_PARALLELISM", "max_num_batched_tokens", "MONKEY_PATCH", "NCCL_P2P_DISABLE"):
        assert not is_secret_name(name), name


def test_python_repr_dicts_in_logs_are_redacted() -> None:
    """vLLM logs `non-default args: {...}` as a Python dict; its secrets must not survive."""
    line = (f"INFO 11-29 10:00:01 [utils.py:326] non-default args: {{'model': 'Qwen/Qwen3-8B', "
            f"'api_key': ['{SECRETS[0]}'], 'hf_token': '{SECRETS[1]}', 'tensor_parallel_size': 2}}")
    out = redact_text(line)
    assert SECRETS[0] not in out and SECRETS[1] not in out
    assert "'model': 'Qwen/Qwen3-8B'" in out and "'tensor_parallel_size': 2" in out
    assert redact_text(out) == out


def test_a_source_read_many_times_is_redacted_and_counted_once() -> None:
    from stackaudit.host.recording import RedactingHost

    log = "NCCL INFO start\nHF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n"
    clean = "[    0.000000] Linux version 6.8.0\n" * 1000
    host = RedactingHost(fake_host(docs={"nccl_log": log}, commands={"dmesg": clean}))
    first = host.doc("nccl_log")
    assert "hf_abc" not in first
    for _ in range(5):
        assert host.doc("nccl_log") is first
        host.run(["dmesg"])
    assert sum(host.redactions.values()) == 1  # one secret, however many readers
    # Nothing to redact: the very text, not a copy per reader (a 20 MB pasted log held once).
    assert redact_text(clean) is clean
    assert host.run(["dmesg"]).stdout is host.run(["dmesg"]).stdout


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="AB_=x- \n\"':{}0123456789abcdefTOKEN", max_size=80))
def test_substitution_that_copies_only_on_change_equals_re_sub(text: str) -> None:
    import re

    from stackaudit.host.redact import _sub_changed

    rx = re.compile(r"(?P<name>[A-Z_]+)=(?P<value>\S*)")

    def repl(m: re.Match[str]) -> str:
        return f"{m.group('name')}=<x>" if "TOKEN" in m.group("name") else m.group(0)

    assert _sub_changed(rx, repl, text) == rx.sub(repl, text)
    if "TOKEN" not in text:
        assert _sub_changed(rx, repl, text) is text


@pytest.mark.parametrize("line", [
    "vllm serve m --api-key --hf-token {s} --port 8000",  # --api-key given no value: the next flag is not it
    "vllm serve m --api-key --token={s}",
    "vllm serve m --api-key=--token {s}",
])
def test_a_secret_flag_is_never_taken_for_the_value_of_the_one_before(line: str) -> None:
    secret = "Zq8mPw2LxV7nKc4R"
    text = line.format(s=secret)
    assert secret not in redact_text(text)
    argv = text.split()
    assert secret not in " ".join(redact_argv(argv)) or argv[3].startswith("--api-key=")
    assert redact_argv(["--api-key", "-dash-start"]) == ["--api-key", "<redacted>"]  # a value may start with "-"
    assert redact_argv(["--api-key", "--max-num-batched-tokens", "8"])[1] == "<redacted>"  # not a secret flag
