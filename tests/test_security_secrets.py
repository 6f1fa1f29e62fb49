"""A secrets corpus: every shape planted in env, args, files and docker inspect, under names that do not
look secret; captured, then the whole snapshot and every report format grepped: zero hits. Auditing the
redacted snapshot gives the same results as the host it came from.

The values are made up at test time in each vendor's documented shape (none is a real credential).
"""

from __future__ import annotations

import json
import os
import random
import string
import tarfile
from pathlib import Path

import pytest

from stackaudit.capture import capture_host, is_audited_process
from stackaudit.engine.runner import run_audit
from stackaudit.host.base import NotCaptured
from stackaudit.host.memory import fake_host
from stackaudit.host.redact import redact_argv, redact_command_output, redact_text
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.report.render import render

_rng = random.Random(11)


def _chars(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


SHAPES = {
    "github classic": "ghp_" + _chars(36),
    "github fine-grained": "github_pat_" + _chars(22) + "_" + _chars(59),
    "hugging face": "hf_" + _chars(34),
    "openai": "sk-proj-" + _chars(48, string.ascii_letters + string.digits + "_-"),
    "aws access key id": "AKIA" + _chars(16, string.ascii_uppercase + string.digits),
    "nvidia api": "nvapi-" + _chars(64, string.ascii_letters + string.digits + "_-"),
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI" + _chars(24) + "." + _chars(43),
    "pem": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + _chars(40),
    "slack webhook": "T0" + _chars(8, string.ascii_uppercase) + "/B0" + _chars(8, string.ascii_uppercase) + "/" + _chars(24),
    "redis empty user": "pw" + _chars(18),
    "ssl keyfile password": "kfp" + _chars(17),
    "docker label": "lbl" + _chars(17),
    "mysql": "my" + _chars(18),
    "high entropy": "Zq8" + _chars(29),
}
PEM = f"-----BEGIN PRIVATE KEY-----\n{SHAPES['pem']}\n-----END PRIVATE KEY-----\n"
WEBHOOK = f"https://hooks.slack.com/services/{SHAPES['slack webhook']}"


def _environ() -> str:
    values = [f"NOTE_{n}={v}" for n, v in enumerate(SHAPES[k] for k in ("github classic", "hugging face", "jwt"))]
    values += [f"CACHE_URL=redis://:{SHAPES['redis empty user']}@cache:6379/0", f"ALERTS={WEBHOOK}",
               f"SESSION_BLOB={SHAPES['high entropy']}", "NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0,1"]
    return "\0".join(values) + "\0"


def _cmdline() -> str:
    return "\0".join(["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m",
                      "--served-model-name", SHAPES["openai"], "--ssl-keyfile-password", SHAPES["ssl keyfile password"],
                      "--tensor-parallel-size", "2", "--config", "/etc/vllm.yaml"]) + "\0"


def _host():  # type: ignore[no-untyped-def]
    inspect = json.dumps([{"Id": "c0ffee", "Args": ["--served-model-name", SHAPES["nvidia api"]],
                           "Config": {"Env": [f"NOTE={SHAPES['aws access key id']}", "PATH=/usr/bin"],
                                      "Labels": {"traefik.auth.users": SHAPES["docker label"]},
                                      "Cmd": ["serve"]}}])
    return fake_host(
        files={"/proc/4242/environ": _environ(), "/proc/4242/cmdline": _cmdline(),
               "/proc/4242/status": "Name:\tpython3\nPPid:\t1\nUid:\t0\t0\t0\t0\n",
               "/proc/4242/root/etc/vllm.yaml": f"tensor_parallel_size: 2\nnote: {SHAPES['github fine-grained']}\n"
                                                f"tls: |\n  {PEM}",
               "/proc/5151/cmdline": f"mysql\0-u\0root\0-p{SHAPES['mysql']}\0",
               "/proc/5151/environ": f"MYSQL_PWD={SHAPES['mysql']}\0",
               "/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro\n"},
        dirs={"/proc": ["4242", "5151", "cmdline"], "/proc/4242/root": ["etc"]},
        commands={("docker", "ps", "-q"): "c0ffee\n", ("docker", "inspect", "c0ffee"): inspect},
        which={"docker": "/usr/bin/docker"},
        strict=True,
    )


def _hits(text: str | bytes) -> list[str]:
    blob = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    return [name for name, value in SHAPES.items() if value.encode() in blob]


def test_the_corpus_never_reaches_the_snapshot(tmp_path: Path) -> None:
    snap = tmp_path / "snap.tar.gz"
    _, summary = capture_host(_host(), str(snap))
    with tarfile.open(snap) as tar:
        members = tar.getmembers()
        blob = b"".join(tar.extractfile(m).read() for m in members if m.isfile())  # type: ignore[union-attr]
        names = "\n".join(m.name + " " + m.linkname for m in members)
    assert _hits(blob) == [] and _hits(names) == []
    assert "redacted" in summary and "fs:/proc/4242/environ" in summary
    # Another user's process (mysql -pX): no command line, no environment in the snapshot.
    replayed = load_snapshot(str(snap))
    assert replayed.read_bytes("/proc/5151/cmdline") == b""
    with pytest.raises((PermissionError, NotCaptured)):
        replayed.read_bytes("/proc/5151/environ")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_corpus_never_reaches_a_report(tmp_path: Path, fmt: str) -> None:
    assert _hits(render(run_audit(_host()), fmt)) == []
    snap = tmp_path / "s.tar.gz"
    capture_host(_host(), str(snap))
    assert _hits(render(run_audit(load_snapshot(str(snap))), fmt)) == []


def test_auditing_the_redacted_snapshot_gives_the_hosts_results(tmp_path: Path) -> None:
    snap = tmp_path / "s.tar.gz"
    capture_host(_host(), str(snap))

    def statuses(report) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
        return {r.id: (r.status, r.message) for r in report.results}

    live = statuses(run_audit(_host()))
    replayed = statuses(run_audit(load_snapshot(str(snap))))
    assert replayed == live
    assert any(status != "unknown" for status, _ in live.values())


# Shapes a server can report about itself (a model id, a launch flag, an `*_info` label): the ones known by
# their shape, under innocent names, and one under a secret flag's name.
SELF_REPORT = {
    "tokenizer_path": f"https://alice:{SHAPES['redis empty user']}@hf.example/org/model",
    "dist_init_addr": f"redis://:{SHAPES['redis empty user']}@cache:6379/0",
    "note": " ".join(SHAPES[k] for k in ("github classic", "github fine-grained", "hugging face", "openai",
                                          "aws access key id", "nvidia api", "jwt")),
    "alerts": WEBHOOK,
    "banner": PEM,
    "ssl_keyfile_password": SHAPES["ssl keyfile password"],
}


def test_the_corpus_in_a_servers_self_report_never_reaches_bench_output_or_history(tmp_path: Path) -> None:
    import sqlite3
    import subprocess
    import sys

    report_file = tmp_path / "report.json"
    report_file.write_text(json.dumps(SELF_REPORT))
    server = Path(__file__).parent / "hostile" / "hostile_bench_server.py"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))  # this tree, whatever the cwd
    db = str(tmp_path / "runs.sqlite3")
    proc = subprocess.Popen([sys.executable, str(server), "--self-report-file", str(report_file)],
                            stdout=subprocess.PIPE, text=True)
    outputs = []
    try:
        assert proc.stdout is not None
        url = f"http://127.0.0.1:{int(proc.stdout.readline().split()[1])}"
        for fmt in ("json", "text", "markdown"):
            done = subprocess.run([sys.executable, "-m", "stackaudit", "bench", "--url", url, "-c", "1", "--requests", "4",
                                   "--input-tokens", "8", "--output-tokens", "8", "--warmup", "0", "--quiet",
                                   "--db", db, "-f", fmt], capture_output=True, text=True, timeout=120, env=env)
            assert done.returncode == 0, done.stderr
            outputs += [done.stdout, done.stderr]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for fmt in ("json", "text", "markdown", "html"):
        done = subprocess.run([sys.executable, "-m", "stackaudit", "bench", "history", "--db", db, "-f", fmt],
                              capture_output=True, text=True, timeout=60, env=env)
        outputs.append(done.stdout)
    with sqlite3.connect(db) as handle:
        stored = "\n".join(str(row) for table in ("runs", "requests", "meta") for row in handle.execute(f"SELECT * FROM {table}"))
    assert "hf.example/org/model" in outputs[0]  # what the server reported is kept, less its secrets
    assert _hits("\n".join(outputs) + stored) == []


@pytest.mark.parametrize("text,kept", [
    ("max_num_batched_tokens=8192 --tokenizer-mode auto", True),
    ("GPU-5e3a1c2d-8b7f-4e6a-9c0d-1a2b3c4d5e6f boot_id 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", True),
    ("sha256:" + "a" * 64 + " disk-by-uuid nvme0n1 task-runner", True),
    ("ssh://git@github.com/org/repo", False),
    ("--db-password hunter2hunter2", False),
    ("--enable-auth --port 8000", True),
])
def test_non_secrets_are_kept_and_flags_by_pattern_redacted(text: str, kept: bool) -> None:
    assert (redact_text(text) == text) is kept


@pytest.mark.parametrize("value,random_", [
    ("Zq8" + _chars(29), True),
    ("GPU-5e3a1c2d-8b7f-4e6a-9c0d-1a2b3c4d5e6f", False),  # a GPU UUID
    ("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", False),  # boot_id
    ("sha256:" + "ab12" * 16, False),  # an image digest
    ("3f4e" * 16, False),  # a 64-hex container ID
    ("DeepSeek-R1-Distill-Qwen-32B", False),  # a model name
    ("TORCH_CUDA_ARCH_LIST", False),
    ("AbCdEfGhIjKlMnOpQrStUvWx", False),  # no digits: a word-like run
])
def test_high_entropy_values_but_not_known_non_secret_shapes(value: str, random_: bool) -> None:
    from stackaudit.host.redact import looks_random

    assert looks_random(value) is random_
    assert (redact_text(f"SOME_SETTING={value}") == f"SOME_SETTING={value}") is not random_


def test_flags_docker_labels_and_urls_by_shape() -> None:
    argv = redact_argv(["srv", "--ssl-keyfile-password", "p1p1p1", "--my-secret=s2s2", "--enable-auth", "--port", "80"])
    assert argv == ["srv", "--ssl-keyfile-password", "<redacted>", "--my-secret=<redacted>", "--enable-auth",
                    "--port", "80"]
    out = redact_command_output(("docker", "inspect", "x"),
                                json.dumps([{"Config": {"Labels": {"a": "v1v1", "b": ""}}}]))
    assert json.loads(out)[0]["Config"]["Labels"] == {"a": "<redacted>", "b": ""}
    assert redact_text("redis://:pw12@h:6379") == "redis://<redacted>@h:6379"
    assert redact_text(PEM).count("<redacted>") == 1 and SHAPES["pem"] not in redact_text(PEM)


def test_every_process_keeps_comm_uid_and_exe_but_only_audited_ones_their_argv(tmp_path: Path) -> None:
    host = fake_host(
        files={"/proc/777/cmdline": f"sshpass\0-p\0{SHAPES['mysql']}\0ssh\0backup\0",
               "/proc/777/environ": f"SSHPASS={SHAPES['mysql']}\0",
               "/proc/777/status": "Name:\tsshpass\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t777\nUid:\t1001\t1001\t1001\t1001\n"},
        links={"/proc/777/exe": "/usr/bin/sshpass"}, dirs={"/proc": ["777"]})
    snap = tmp_path / "s.tar.gz"
    capture_host(host, str(snap))
    replayed = load_snapshot(str(snap))
    assert b"Uid:\t1001" in replayed.read_bytes("/proc/777/status") and b"Name:\tsshpass" in replayed.read_bytes("/proc/777/status")
    assert replayed.readlink("/proc/777/exe") == "/usr/bin/sshpass"
    assert replayed.read_bytes("/proc/777/cmdline") == b""
    with tarfile.open(snap) as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert SHAPES["mysql"].encode() not in blob


def test_only_engines_workers_and_audited_daemons_keep_their_argv() -> None:
    assert is_audited_process(["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server"])
    assert is_audited_process(["/usr/bin/nvidia-persistenced", "--user", "nvidia-persistenced"])
    assert is_audited_process(["/usr/lib/xorg/Xorg", ":0"])
    assert not is_audited_process(["mysql", "-u", "root", "-pX"])
    assert not is_audited_process(["curl", "-u", "u:X", "https://example.com"])
    assert not is_audited_process(["sshpass", "-p", "X", "ssh", "host"])
