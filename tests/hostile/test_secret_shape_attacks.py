"""Secret shapes known by their prefix (review 2026-12, X6): under names that do not look secret, with `-`,
`_` or `.` that keep them out of the entropy rule, they reach no snapshot, no report format and no
investigator tool output.

The values are made up at test time in each vendor's documented shape (none is a real credential):
Slack https://api.slack.com/authentication/token-types, Stripe https://docs.stripe.com/keys, GitLab
https://docs.gitlab.com/ee/security/tokens/, npm https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/,
PyPI https://pypi.org/help/#apitoken, SendGrid, Google API keys, DigitalOcean and Shopify as their
secret-scanning partner patterns give them.
"""

from __future__ import annotations

import json
import random
import string
import tarfile
from pathlib import Path

import pytest

from stackaudit.capture import capture_host
from stackaudit.engine.runner import run_audit
from stackaudit.host.memory import fake_host
from stackaudit.host.redact import redact_text
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.investigate.tools import SnapshotTools
from stackaudit.render.formats import FORMATS
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions

_rng = random.Random(30)
_ALNUM = string.ascii_letters + string.digits


def _chars(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


SHAPES = {
    "slack bot": f"xoxb-{_chars(12, string.digits)}-{_chars(13, string.digits)}-{_chars(24)}",
    "slack user": f"xoxp-{_chars(12, string.digits)}-{_chars(12, string.digits)}-{_chars(32, 'abcdef0123456789')}",
    "slack app": f"xapp-1-A{_chars(10, string.ascii_uppercase + string.digits)}-{_chars(13, string.digits)}-"
                 f"{_chars(64, 'abcdef0123456789')}",
    "stripe live": "sk_live_" + _chars(99),
    "stripe restricted": "rk_live_" + _chars(99),
    "stripe test": "sk_test_" + _chars(99),
    "gitlab": "glpat-" + _chars(20, _ALNUM + "_-"),
    "npm": "npm_" + _chars(36),
    "pypi": "pypi-AgEIcHlwaS5vcmc" + _chars(50, _ALNUM + "_-"),
    "sendgrid": f"SG.{_chars(22, _ALNUM + '_-')}.{_chars(43, _ALNUM + '_-')}",
    "google": "AIza" + _chars(17) + "-" + _chars(17),
    "digitalocean": "dop_v1_" + _chars(64, "abcdef0123456789"),
    "shopify": "shpat_" + _chars(32, "abcdef0123456789"),
}


def _host():  # type: ignore[no-untyped-def]
    names = list(SHAPES)
    environ = "".join(f"SETTING_{n}={SHAPES[k]}\0" for n, k in enumerate(names)) + "NCCL_DEBUG=INFO\0"
    argv = ["/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m",
            "--served-model-name", SHAPES["slack bot"]]
    for k in names[1:]:
        argv += ["--middleware", SHAPES[k]]
    inspect = json.dumps([{"Id": "c0ffee", "Args": ["--served-model-name", SHAPES["stripe live"]],
                           "Config": {"Env": [f"PAYMENTS={SHAPES['stripe live']}", f"SLACK={SHAPES['slack bot']}"],
                                      "Cmd": ["serve"]}}])
    config = "tensor_parallel_size: 2\n" + "".join(f"note_{n}: {SHAPES[k]}\n" for n, k in enumerate(names))
    return fake_host(
        files={"/proc/4242/environ": environ, "/proc/4242/cmdline": "\0".join(argv) + "\0",
               "/proc/4242/status": "Name:\tpython3\nPPid:\t1\nUid:\t0\t0\t0\t0\n",
               "/proc/4242/root/etc/vllm.yaml": config, "/etc/engine.env": environ.replace("\0", "\n"),
               "/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro\n"},
        dirs={"/proc": ["4242", "cmdline"], "/proc/4242/root": ["etc"]},
        commands={("docker", "ps", "-q"): "c0ffee\n", ("docker", "inspect", "c0ffee"): inspect},
        which={"docker": "/usr/bin/docker"},
        strict=True,
    )


def _hits(blob: str | bytes) -> list[str]:
    data = blob if isinstance(blob, bytes) else blob.encode("utf-8", "replace")
    return [name for name, value in SHAPES.items() if value.encode() in data]


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("form", ["NOTE={}", "'note': '{}'", "note: {}", "--middleware {}", "x {} y",
                                  '"Env": ["NOTE={}"]'])
def test_each_shape_is_redacted_by_its_prefix(name: str, form: str) -> None:
    text = form.format(SHAPES[name])
    assert SHAPES[name] not in redact_text(text)


def test_the_shapes_never_reach_the_snapshot(tmp_path: Path) -> None:
    snap = tmp_path / "snap.tar.gz"
    capture_host(_host(), str(snap))
    with tarfile.open(snap) as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert _hits(blob) == []
    assert b"NCCL_DEBUG=INFO" in blob  # the environment was captured, only its secrets withheld


def test_the_shapes_never_reach_any_report_format(tmp_path: Path) -> None:
    """Every format, verbose, of the live host and of its snapshot (JSON and HTML show the command line)."""
    snap = tmp_path / "s.tar.gz"
    capture_host(_host(), str(snap))
    for report in (run_audit(_host()), run_audit(load_snapshot(str(snap)))):
        for fmt in FORMATS["audit"]:
            assert _hits(render(report, fmt, options=RenderOptions(verbose=True))) == [], fmt


def test_the_json_report_shows_the_command_line_the_shapes_were_in() -> None:
    """The command line is evidence in the JSON report: what the shapes test above would find if not redacted."""
    out = render(run_audit(_host()), "json", options=RenderOptions(verbose=True))
    assert "--served-model-name <redacted>" in out and "--middleware <redacted>" in out


@pytest.mark.parametrize("path", ["/proc/4242/cmdline", "/proc/4242/root/etc/vllm.yaml", "/etc/engine.env"])
def test_the_shapes_never_reach_an_investigators_tool_output(path: str) -> None:
    tools = SnapshotTools(_host())
    result = tools.call("read_file", {"path": path})
    assert not result.error, result.text
    assert _hits(result.text) == [] and "<redacted>" in result.text
    listing = tools.call("read_output", {"command": "docker inspect c0ffee"})
    assert _hits(listing.text) == []
