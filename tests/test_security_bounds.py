"""Bounds on parsed input (docs/design.md, "Bounds"): the one XML and JSON parsers at every call site,
`ceiling --model`'s walk, and an unknown that names the cut of its source."""

from __future__ import annotations

import json
import os
import re
import struct
import time
from pathlib import Path

import pytest

from nvidia_support import hgx, host_for
from stackaudit.ceiling import modelconfig
from stackaudit.ceiling.gguf_file import MAX_GGUF_TENSORS, check_header
from stackaudit.cli.main import main
from stackaudit.engine.runner import Report, run_audit
from stackaudit.errors import InputError
from stackaudit.facts._parse import ParseError
from stackaudit.facts.docker import parse_docker_inspect
from stackaudit.facts.nvidia_smi import parse_xml
from stackaudit.facts.python_env import parse_cuda_version_file
from stackaudit.facts.serving_logs import parse_p2p_cache
from stackaudit.host.base import MAX_OUTPUT_BYTES, CommandResult
from stackaudit.host.limits import MAX_XML_DEPTH, load_json, load_xml
from stackaudit.host.memory import fake_host
from stackaudit.host.redact import redact_command_output
from stackaudit.host.source import Provenance
from stackaudit.report.render import render

TEN_MB = 10 * 1024 * 1024
DEEP_JSON = "[" * 100_000 + "]" * 100_000
NVSMI_HEAD = '<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n'

# -- XML -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", [
    # internal entities (a billion-laughs seed) and an external one (file disclosure): refused before parsing
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><r>&b;</r>',
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/shadow">]><r>&x;</r>',
    '<!DOCTYPE r [<!ELEMENT r ANY>]><r/>',
])
def test_xml_entities_and_internal_subsets_stay_inert(doc: str) -> None:
    with pytest.raises(ValueError, match="document type or entities"):
        load_xml(doc, "test XML")


def test_xml_with_nvidia_smis_own_doctype_parses_and_depth_is_bounded() -> None:
    root = load_xml(NVSMI_HEAD + "<nvidia_smi_log><driver_version>570.1</driver_version></nvidia_smi_log>", "x")
    assert root.tag == "nvidia_smi_log" and root.findtext("driver_version") == "570.1"
    ok = "<a>" * MAX_XML_DEPTH + "</a>" * MAX_XML_DEPTH
    assert load_xml(ok, "x").tag == "a"
    with pytest.raises(ValueError, match="nests deeper"):
        load_xml("<a>" * 100_000 + "</a>" * 100_000, "x")
    with pytest.raises(ValueError, match="over the limit"):
        load_xml("<a>" + "x" * 2000 + "</a>", "x", max_bytes=1000)
    with pytest.raises(ParseError, match="nests deeper"):  # through nvidia-smi's parser: a ParseError
        parse_xml(NVSMI_HEAD + "<nvidia_smi_log>" + "<a>" * 100_000 + "</a>" * 100_000 + "</nvidia_smi_log>")


# -- JSON at its call sites ----------------------------------------------------------------------


def test_a_100000_deep_json_is_a_parse_error_at_every_call_site() -> None:
    with pytest.raises(ParseError):
        parse_docker_inspect(DEEP_JSON)
    with pytest.raises(ParseError):
        parse_p2p_cache(DEEP_JSON)
    assert parse_cuda_version_file(DEEP_JSON) is None
    assert "[[[" in redact_command_output(("docker", "inspect"), DEEP_JSON)  # kept as text, redacted as text
    for bad in ("[Infinity]", "[1e999]", '["\\ud800"]'):
        with pytest.raises(ValueError):
            load_json(bad, "x")


@pytest.mark.parametrize("bad", [
    '["\\ud800"]', '{"\\uDFFF": 1}', '{"a": {"b": ["x", "\\udc80"]}}',  # escapes, in values and keys
    b'["\xed\xa0\x80"]',                                              # a surrogate UTF-8-encoded: surrogatepass
    '["\udc80"]',                                                     # a str with a surrogate escape in it
])
def test_a_lone_surrogate_is_refused_however_it_gets_in(bad: str | bytes) -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        load_json(bad, "x")


def test_depth_is_bounded_when_texts_need_no_check() -> None:
    assert load_json('{"a": "\\\\ud800", "b": ["\\ud83d\\ude00"]}', "x") == {"a": "\\ud800", "b": ["\U0001f600"]}
    with pytest.raises(ValueError, match="nests deeper than 64"):
        load_json("[" * 65 + "]" * 65, "x")  # ASCII with no escape: only containers are walked
    assert load_json("[" * 64 + "]" * 64, "x") is not None


def test_a_deep_docker_inspect_paste_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = tmp_path / "inspect.txt"
    paste.write_text('$ docker inspect vllm\n[{"Id": "abc", "Config": {"Env": ' + DEEP_JSON + "}}]\n")
    assert main(["audit", "--from", str(paste)]) == 2  # was exit 3 (RecursionError)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("text", [DEEP_JSON, '{"conversations": [{"from": "human", "value": "hi"}]}\n' + DEEP_JSON + "\n"])
def test_a_deep_bench_dataset_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(text)
    assert main(["bench", "--url", "http://127.0.0.1:9", "--dataset", str(dataset)]) == 2  # was exit 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "deeper than 64" in err


# -- ceiling --model -----------------------------------------------------------------------------

LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
         "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "vocab_size": 32000, "torch_dtype": "bfloat16"}


@pytest.mark.parametrize(("text", "message"), [
    (json.dumps({**LLAMA, "num_hidden_layers": 10**9}), "num_hidden_layers is 1e+09, outside 0..4096"),
    (json.dumps(LLAMA).replace("4096", "Infinity", 1), "Infinity is not a JSON number"),
    (json.dumps(LLAMA).replace("4096", "1e999", 1), "out of range"),
    (json.dumps({**LLAMA, "hidden_size": "4096"}), "hidden_size is '4096', not an integer"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nests deeper than 32"),
    (json.dumps({**LLAMA, "pad": "x" * (2 << 20)}), "over the limit"),
])
def test_hostile_model_configs_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    text: str, message: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(text)
    # Its time is measured by perf/security_figures.py, not asserted here (pytest-timeout bounds a hang).
    assert main(["ceiling", "--model", str(path), "--gpu", "H100"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_fifo_model_config_is_not_waited_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "config.json")
    assert main(["ceiling", "--model", str(tmp_path), "--gpu", "H100"]) == 2  # returns at once: never opened
    with pytest.raises(InputError, match="not a regular file"):
        modelconfig.read_small(tmp_path / "config.json", 1024)
    with pytest.raises(InputError, match="not a regular file or a directory"):
        modelconfig.resolve_config_path(str(tmp_path / "config.json"))


def test_the_walk_is_bounded_in_entries_and_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(6):
        (tmp_path / f"shard-{n}.bin").write_bytes(b"")
    monkeypatch.setattr(modelconfig, "MAX_DIR_ENTRIES", 5)
    with pytest.raises(InputError, match="more than 5 entries"):
        modelconfig.resolve_config_path(str(tmp_path))
    with pytest.raises(InputError, match=r"took more than 0\.05 s"), modelconfig.walk_deadline(0.05):
        while True:  # a walk that never ends on its own
            time.sleep(0.01)


def test_gguf_header_counts_are_checked_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 10**12, 3))
    with pytest.raises(InputError, match=f"over the limits of {MAX_GGUF_TENSORS}"):
        check_header(path)
    path.write_bytes(b"GGML" + bytes(20))
    with pytest.raises(InputError, match="no GGUF magic"):
        check_header(path)


# -- reports stay bounded -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ten_mb_report() -> Report:
    """One audit of a host with a 10 MB hostname and command line, for each format's test to render."""
    host = fake_host(files={"/proc/sys/kernel/hostname": "h" * TEN_MB + "\n", "/proc/cmdline": "BOOT_IMAGE=/x " + "y" * TEN_MB},
                     hostname="a" * TEN_MB)
    return run_audit(host)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_10_mb_hostname_and_command_line_keep_every_report_format_bounded(fmt: str, ten_mb_report: Report) -> None:
    out = render(ten_mb_report, fmt)
    assert len(out) < 200_000  # was 10.5 MB in text and Markdown
    if fmt != "json":  # the header shows the hostname (JSON does not carry one this long at all)
        assert re.search(r"cut: 4096 of 104857\d\d characters", out)  # the marker (Markdown escapes its brackets)


# -- an unknown names the cut --------------------------------------------------------------------

_STANZA = """{bdf} 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)
\tSubsystem: NVIDIA Corporation Device [10de:16c1]
\tRegion 0: Memory at c5000000 (32-bit, non-prefetchable) [size=16M]
\tCapabilities: [78] Express (v2) Endpoint, MSI 00
\t\tDevCtl:\tCorrErr+ NonFatalErr+ FatalErr+ UnsupReq-
\t\t\tMaxPayload 256 bytes, MaxReadReq 512 bytes
\t\tLnkSta:\tSpeed 32GT/s, Width x16
\tKernel driver in use: nvidia

"""  # modelled on a real A100 SXM4 paste (tests/data/captures/05-*)


def test_an_unknown_names_the_output_that_was_cut_at_its_cap() -> None:
    argv = ("lspci", "-D", "-nn", "-vvv")
    listing = "".join(_STANZA.format(bdf=f"0000:{0x18 + n:02x}:00.0") for n in range(2))  # 2 of 8 GPUs
    host = host_for(hgx(count=8), extra_commands={argv: CommandResult(argv, 0, listing, truncated=True)})
    results = {r.id: r for r in run_audit(host).results}
    mps = results["PCIE-MPS"]
    assert mps.status == "unknown" and mps.message.endswith("(lspci -D -nn -vvv was cut at 8 MiB)")
    assert [p.cut_at for p in mps.provenance if p.cut_at] == [MAX_OUTPUT_BYTES]
    # the same listing whole: no cut is named
    host = host_for(hgx(count=8), extra_commands={argv: CommandResult(argv, 0, listing)})
    assert not any("was cut at" in r.message for r in run_audit(host).results)


def test_a_cut_survives_the_snapshot_provenance() -> None:
    prov = Provenance("`lspci -D -nn -vvv`", "live", False, cut_at=MAX_OUTPUT_BYTES)
    again = Provenance.from_json(json.loads(json.dumps(prov.to_json())))
    assert again == prov and again.describe() == "live `lspci -D -nn -vvv` (cut at 8 MiB)"
    assert "cut_at" not in Provenance("x").to_json()  # whole sources keep the old JSON shape
