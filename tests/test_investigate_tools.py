"""The investigators' tools (read-only, over the snapshot only) and the evidence rule.

Hosts here are modelled (tests/test_core_host.py's fake_host): a sysfs PCI device link as sysfs has it
(relative, `../../../devices/pci0000:00/…`), links planted to escape the allow-list, a pasted vLLM log with
an API key in its arguments.
"""

from __future__ import annotations

import json
import random

import jsonschema
import pytest

from stackaudit.host.memory import fake_host
from stackaudit.investigate.evidence import EvidenceIndex, check_findings
from stackaudit.investigate.schema import FINDING_SCHEMA, REPORT_FINDINGS_SCHEMA, validate
from stackaudit.investigate.tools import MAX_OUTPUT_BYTES, SnapshotTools, tool_specs

BDF = "0000:01:00.0"
SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def tools() -> SnapshotTools:
    host = fake_host(
        files={
            "/proc/sys/kernel/numa_balancing": "1\n",
            f"/sys/devices/pci0000:00/0000:00:01.1/{BDF}/current_link_speed": "16.0 GT/s PCIe\n",
            "/etc/modprobe.d/nvidia.conf": "options nvidia NVreg_EnableGpuFirmware=0\n",
            "/root/.ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nxxx\n",
            "/proc/1234/environ": f"PATH=/usr/bin\x00HF_TOKEN={SECRET}\x00",
            "/var/log/big.log": "x\n",
            "/etc/big.conf": "".join(f"line {i} {'y' * 60}\n" for i in range(5000)),
        },
        links={
            f"/sys/bus/pci/devices/{BDF}": f"../../../devices/pci0000:00/0000:00:01.1/{BDF}",
            "/etc/escape": "/root/.ssh",
            "/sys/loop": "/etc/escape",
            "/proc/self": "1234",
        },
        commands={"dmesg": "[    9.87] NVRM: loading NVIDIA UNIX Open Kernel Module  575.57.08\n"},
        docs={"vllm_log": f"INFO args: Namespace(model='m', api_key='{SECRET}', tensor_parallel_size=8)\n"},
        strict=True,
    )
    return SnapshotTools(host, facts={"kernel_knobs": {"numa_balancing": 1}},
                         explain={"KERN-NUMA-BALANCING": "KERN-NUMA-BALANCING — automatic NUMA balancing\n"})


def test_schemas_are_valid_json_schema_and_closed() -> None:
    for spec in tool_specs(["dmesg"], ["kernel_knobs"], ["KERN-NUMA-BALANCING"]):
        jsonschema.Draft202012Validator.check_schema(spec.parameters)
        assert spec.parameters["additionalProperties"] is False
        assert spec.to_openai()["function"]["name"] == spec.name
    # No tool writes, runs or reaches the live machine: the set is exactly these, in a fixed order.
    assert [s.name for s in tool_specs()] == ["read_file", "list_dir", "read_output", "get_fact", "explain_check",
                                              "report_findings"]


def _sample(rng: random.Random) -> object:
    """A report_findings argument object, mostly valid, sometimes broken in a place or two."""

    def pick(good: object, *bad: object) -> object:
        return good if rng.random() < 0.85 else rng.choice(bad)

    item: dict[str, object] = {
        "id": pick(rng.choice(["KERN-NUMA-BALANCING", "X-KERN-swap-on"]), "X-kern-bad", "bad", "X-FOO-x"),
        "status": pick("issue", "maybe"), "severity": pick("high", 3, None),
        "confidence": pick("documented", "sure"), "title": pick("t", "", "x" * 201),
        "evidence": pick(["a line"], [], ["q"] * 6, "not a list", [1])}
    if rng.random() < 0.1:
        item["extra"] = True
    if rng.random() < 0.1:
        del item["title"]
    return {"findings": pick([item], [item] * 21, item, [True])}


def test_validator_agrees_with_jsonschema() -> None:
    rng = random.Random(7)
    reference = jsonschema.Draft202012Validator(REPORT_FINDINGS_SCHEMA)
    seen = {True: 0, False: 0}
    for _ in range(400):
        value = _sample(rng)
        ours = not validate(REPORT_FINDINGS_SCHEMA, value)
        assert ours == reference.is_valid(value), value
        seen[ours] += 1
    assert seen[True] > 10 and seen[False] > 10
    for spec in tool_specs(["dmesg"], ["kernel_knobs"]):
        ref = jsonschema.Draft202012Validator(spec.parameters)
        for value in ({"path": "/etc/x"}, {"path": "/etc/x", "start_line": 0}, {"path": 3}, {"command": "dmesg"},
                      {"command": "rm -rf /"}, {"name": "kernel_knobs"}, {"id": "kern-x"}, {"max_lines": 401, "path": "/a"},
                      {"path": "/a", "start_line": True}, {}):
            assert (not validate(spec.parameters, value)) == ref.is_valid(value), (spec.name, value)


def test_read_file_in_the_allow_list_and_one_value_files_quotable_with_their_path() -> None:
    t = tools()
    result = t.call("read_file", {"path": "/proc/sys/kernel/numa_balancing"})
    assert not result.error
    assert result.text == "/proc/sys/kernel/numa_balancing: 1"
    assert "/proc/sys/kernel/numa_balancing: 1" in t.evidence


@pytest.mark.parametrize("path,why", [
    ("/root/.ssh/id_rsa", "outside the allowed trees"),
    ("/var/log/big.log", "outside the allowed trees"),
    ("/etc/../root/.ssh/id_rsa", "`..` component is refused"),
    ("/sys/bus/pci/../../../root/.ssh/id_rsa", "`..` component is refused"),
    ("etc/passwd", "absolute path"),
    ("/etc/escape/id_rsa", "is a link to '/root/.ssh', outside the allowed trees"),
    ("/sys/loop/id_rsa", "outside the allowed trees"),
    ("/etc/x\x00", "absolute path"),
])
def test_paths_outside_the_allow_list_dotdot_and_symlink_escapes_are_refused(path: str, why: str) -> None:
    t = tools()
    result = t.call("read_file", {"path": path})
    assert result.error and not result.malformed
    assert why in result.text
    assert "PRIVATE KEY" not in result.text and not t.evidence


def test_links_inside_the_allow_list_are_followed() -> None:
    t = tools()
    result = t.call("read_file", {"path": f"/sys/bus/pci/devices/{BDF}/current_link_speed"})
    assert not result.error, result.text
    assert "16.0 GT/s PCIe" in result.text and f"/sys/devices/pci0000:00/0000:00:01.1/{BDF}" in result.text
    listing = t.call("list_dir", {"path": "/sys/bus/pci/devices"})
    assert f"/sys/bus/pci/devices/{BDF} -> ../../../devices/pci0000:00/0000:00:01.1/{BDF}" in listing.text


def test_outputs_are_capped_with_a_marker_saying_how_to_get_the_rest() -> None:
    t = tools()
    result = t.call("read_file", {"path": "/etc/big.conf"})
    assert len(result.text.encode()) <= MAX_OUTPUT_BYTES + 300
    assert "[output cut at 8000 bytes" in result.text and "start_line=" in result.text
    few = t.call("read_file", {"path": "/etc/big.conf", "max_lines": 3})
    assert few.text.splitlines()[1:4] == [f"line {i} {'y' * 60}" for i in range(3)]
    assert "[output cut at 3 lines: 4997 more line(s); ask again with start_line=4" in few.text
    later = t.call("read_file", {"path": "/etc/big.conf", "start_line": 4999, "max_lines": 5})
    assert later.text.splitlines()[1:] == [f"line {i} {'y' * 60}" for i in (4998, 4999)]
    grep = t.call("read_file", {"path": "/etc/big.conf", "match": "LINE 4321 "})
    assert grep.text.splitlines()[1:] == [f"line 4321 {'y' * 60}"]
    # Headers and markers are not evidence; the lines shown are.
    assert not any(line.startswith(("==", "[output cut")) for line in t.evidence)


def test_secrets_are_redacted_as_in_a_snapshot() -> None:
    t = tools()
    log = t.call("read_file", {"path": "doc:vllm_log"})
    assert not log.error, log.text
    assert SECRET not in log.text and "<redacted>" in log.text
    # A process's environment is withheld whole, by its own path or through /proc/self.
    for path in ("/proc/1234/environ", "/proc/self/environ"):
        environ = t.call("read_file", {"path": path})
        assert environ.error and "withheld" in environ.text and SECRET not in environ.text
    assert all(SECRET not in line for line in t.evidence)
    assert "tensor_parallel_size=8" in log.text


def test_recorded_outputs_facts_and_documents() -> None:
    t = tools()
    out = t.call("read_output", {"command": "dmesg"})
    assert "NVRM: loading NVIDIA UNIX Open Kernel Module" in out.text and "(exit 0" in out.text
    assert t.call("read_output", {"command": "rm -rf /"}).malformed  # not a recorded command: outside its enum
    fact = t.call("get_fact", {"name": "kernel_knobs"})
    assert json.loads(fact.text.split("\n", 1)[1]) == {"numa_balancing": 1}
    doc = t.call("explain_check", {"id": "KERN-NUMA-BALANCING"})
    assert "automatic NUMA balancing" in doc.text and not doc.evidence  # documentation is not evidence
    assert t.call("list_dir", {"path": "doc:"}).text.splitlines()[1:] == ["doc:vllm_log"]


def test_unknown_tools_and_invalid_arguments_are_malformed() -> None:
    t = tools()
    assert t.call("write_file", {"path": "/etc/x"}).malformed
    bad = t.call("read_file", {"path": "/etc/x", "mode": "w"})
    assert bad.malformed and "unexpected property 'mode'" in bad.text
    assert t.call("read_file", {}).malformed
    assert t.call("read_file", {"path": "/etc/x", "max_lines": 10_000}).malformed


def _index(*lines: str) -> EvidenceIndex:
    return EvidenceIndex(lines)


def _finding(quote: str, observed: str = "", fid: str = "X-KERN-thing") -> dict[str, object]:
    item: dict[str, object] = {"id": fid, "status": "issue", "severity": "low", "confidence": "documented",
                               "title": "t", "evidence": [quote]}
    if observed:
        item["observed"] = observed
    return item


@pytest.mark.parametrize("quote,observed,kept", [
    ("/proc/sys/kernel/numa_balancing: 1", "", True),  # a whole line
    ("  /proc/sys/kernel/numa_balancing:    1 ", "", True),  # whitespace normalised
    ("LnkSta: Speed 8GT/s (downgraded)", "8GT/s", True),  # 20+ characters containing the observed value
    ("LnkSta: Speed 8GT/s (downgraded)", "16GT/s", False),  # does not contain the observed value
    ("LnkSta: Speed 8GT/s (downgraded)", "", False),  # a part of a line, with no observed value
    ("Speed 8GT/s", "8GT/s", False),  # under 20 characters and not a whole line
    ("0", "0", False),  # a quote of "0" proves nothing
    ("LnkSta: Speed 2.5GT/s (downgraded)", "2.5GT/s", False),  # invented
])
def test_the_evidence_rule(quote: str, observed: str, kept: bool) -> None:
    index = _index("/proc/sys/kernel/numa_balancing: 1", "0", "\t\tLnkSta: Speed 8GT/s (downgraded), Width x16")
    checked = check_findings([_finding(quote, observed)], "KERN", index, [])
    assert len(checked.kept) == (1 if kept else 0)
    assert checked.dropped_count == (0 if kept else 1)


def test_ids_a_finding_may_carry() -> None:
    index = _index("/proc/sys/kernel/numa_balancing: 1")
    quote = "/proc/sys/kernel/numa_balancing: 1"
    checked = check_findings([_finding(quote, fid="KERN-NUMA-BALANCING"), _finding(quote, fid="KERN-NO-SUCH"),
                              _finding(quote, fid="X-PCIE-other-domain"), _finding(quote, fid="X-KERN-fine"),
                              {"id": "X-KERN-x"}], "KERN", index, ["KERN-NUMA-BALANCING"])
    assert [f.id for f in checked.kept] == ["KERN-NUMA-BALANCING", "X-KERN-fine"]
    assert checked.dropped == {"unknown check ID": 1, "X- ID of another domain": 1, "not in the findings schema": 1}
    assert not validate(FINDING_SCHEMA, _finding(quote))
