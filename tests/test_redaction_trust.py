"""A snapshot captured under these redaction rules is replayed without redacting it again; any other
snapshot (older rules, none named, a manifest that does not verify, pasted outputs beside it) is redacted
member by member as before. Trusting rests on redaction being idempotent: redacting what was redacted
changes nothing, which the property tests below check over texts built from the rules' own pieces."""

from __future__ import annotations

import io
import json
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stackaudit.capture import capture_host
from stackaudit.engine.runner import run_audit
from stackaudit.host import recording
from stackaudit.host.memory import add_pasted, fake_host
from stackaudit.host.redact import (
    REDACTED,
    redact_argv,
    redact_command_output,
    redact_env_entries,
    redact_file,
    redact_text,
    rules_fingerprint,
)
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.host.snapshot_writer import write_snapshot
from stackaudit.report.render import render

PLANTED = "hf_PlantedAfterCaptureXyZ0123456789"


def _host():  # type: ignore[no-untyped-def]
    return fake_host(files={"/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro iommu=pt\n"},
                     commands={"dmesg": "[    0.000000] Linux version 6.8.0\n[    1.0] pci 0000:41:00.0: ok\n"})


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    out = tmp_path / "node.tar.gz"
    capture_host(_host(), str(out))
    return out


def _rewritten(snapshot: Path, out: Path, redaction: str | None) -> Path:
    """The snapshot written again (a valid manifest) with a secret planted in its kernel log and meta.json
    naming `redaction` as its rules (None: no name, as snapshots before the fingerprint)."""
    record = load_snapshot(str(snapshot)).record
    result = record.commands[("dmesg",)]
    record.commands[("dmesg",)] = replace(result, stdout=result.stdout + f"[    2.0] export HF_TOKEN={PLANTED}\n")
    record.meta.pop("redaction", None)
    record.meta.pop("path", None)
    if redaction is not None:
        record.meta["redaction"] = redaction
    write_snapshot(record, str(out))
    return out


class _Counting:
    """Counts the calls of the redaction functions RedactingHost applies."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        for name in ("redact_text", "redact_file", "redact_command_output", "redact_argv"):
            real = getattr(recording, name)
            monkeypatch.setattr(recording, name, self._wrap(real))

    def _wrap(self, real):  # type: ignore[no-untyped-def]
        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls += 1
            return real(*args, **kwargs)
        return counted


def test_capture_names_its_rules_and_a_verified_snapshot_carries_them(snapshot: Path) -> None:
    fingerprint = rules_fingerprint()
    assert fingerprint.startswith("sha256:") and len(fingerprint) == len("sha256:") + 64
    with tarfile.open(snapshot) as tar:
        meta = json.loads(tar.extractfile("meta.json").read())  # type: ignore[union-attr]
    assert meta["redaction"] == fingerprint
    assert load_snapshot(str(snapshot)).redacted_with == fingerprint


def test_a_snapshot_under_these_rules_is_not_redacted_again(snapshot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(monkeypatch)
    run_audit(load_snapshot(str(snapshot)))
    assert counting.calls == 0


@pytest.mark.parametrize("redaction", ["sha256:" + "0" * 64, None])
def test_a_snapshot_under_other_rules_or_none_is_redacted_again(snapshot: Path, tmp_path: Path,
                                                                 redaction: str | None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    host = load_snapshot(str(_rewritten(snapshot, tmp_path / "old.tar.gz", redaction)))
    assert host.redacted_with == ""
    counting = _Counting(monkeypatch)
    report = run_audit(host)
    assert counting.calls > 0
    assert all(PLANTED not in render(report, fmt) for fmt in ("text", "json"))
    assert PLANTED not in recording.RedactingHost(host).run(["dmesg"]).stdout


def test_a_snapshot_whose_manifest_does_not_verify_is_redacted_again(snapshot: Path, tmp_path: Path) -> None:
    good = _rewritten(snapshot, tmp_path / "same.tar.gz", rules_fingerprint())
    assert load_snapshot(str(good)).redacted_with == rules_fingerprint()  # the rules named: trusted
    # The same members with the kernel log changed after the manifest was written: replayed as partial.
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(good) as src, tarfile.open(bad, "w:gz") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()  # type: ignore[union-attr]
            if member.name == "cmd/dmesg.json":
                data = data.replace(b"Linux version", b"Linux versioN")
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    host = load_snapshot(str(bad), allow_partial=True)
    assert host.meta.extra.get("partial") and host.redacted_with == ""
    assert PLANTED not in recording.RedactingHost(host).run(["dmesg"]).stdout


def test_pasted_outputs_beside_a_trusted_snapshot_are_redacted(snapshot: Path) -> None:
    pasted = fake_host(commands={"nvidia-smi": f"HF_TOKEN={PLANTED}\n"})
    merged = add_pasted(load_snapshot(str(snapshot)), pasted)
    assert merged.redacted_with == ""
    assert PLANTED not in recording.RedactingHost(merged).run(["nvidia-smi"]).stdout


def test_capture_never_passes_through(snapshot: Path) -> None:
    """Capture redacts what it records whatever the host: a RedactingHost with a process filter never trusts."""
    host = load_snapshot(str(snapshot))
    assert not recording.RedactingHost(host, keep_process=lambda argv: True).passthrough


# Idempotence: the pieces the rules look for, joined at random.
_PIECES = st.sampled_from([
    "API_KEY", "HF_TOKEN", "=", "--api-key", "--token", "--model", " ", "\n", "\t", "\x00", '"', "'", ":", ": ", ",",
    ";", "[", "]", "{", "}", "export ", "token", "password", "hf_", "sk-", "ghp_", "AKIA", "eyJ", "nvapi-", "://",
    "u:p@", "-----BEGIN X-----", "-----END X-----", "https://hooks.slack.com/services", "/", REDACTED, "x", "-", "_",
    "abcdefghijklmnopqrstuvwxyz0123", "AbCdEf0123456789XyZqRsTuVwK9", "ABCDEFGHIJKLMNOP", "abcdefg.", "1",
])
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)
_PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@_PROPERTY
@given(_TEXTS)
def test_redacting_text_twice_changes_nothing(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


def test_a_token_right_after_a_redacted_key_is_redacted_in_the_same_pass() -> None:
    # Found by the property below: an AWS key ran straight into an hf_ token, and the token was left standing
    # until a second pass (the key's replacement gave it the word boundary its pattern needs).
    text = "AKIAABCDEFGHIJKLMNOPhf_abcdefghijklmnopqrstuvwxyz0123"
    assert "hf_" not in redact_text(text)
    assert b"hf_" not in redact_file("/etc/vllm.yaml", text.encode())


@_PROPERTY
@given(st.sampled_from(["/proc/42/environ", "/proc/42/cmdline", "/etc/vllm.yaml"]), _TEXTS)
def test_redacting_a_file_twice_changes_nothing(path: str, text: str) -> None:
    once = redact_file(path, text.encode())
    assert redact_file(path, once) == once


@_PROPERTY
@given(st.lists(_TEXTS, max_size=6))
def test_redacting_argv_and_environment_twice_changes_nothing(items: list[str]) -> None:
    assert redact_argv(redact_argv(items)) == redact_argv(items)
    assert redact_env_entries(redact_env_entries(items)) == redact_env_entries(items)
    inspect = json.dumps([{"Config": {"Env": items, "Cmd": items, "Labels": {"a": items[0] if items else ""}}}])
    once = redact_command_output(("docker", "inspect", "x"), inspect)
    assert redact_command_output(("docker", "inspect", "x"), once) == once
