"""nvidia-smi parsers (XML, -q text, table) and their importers: real captures, own fixtures, fuzzing."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nvidia_support import HGX_BUSES, QUERY_TEXT, TABLE_OLD, xml_gpu, xml_log
from stackaudit.facts._parse import ParseError
from stackaudit.facts.nvidia_smi import parse_query_text, parse_table, parse_xml
from stackaudit.importers.recognition import recognise, strip_header

# The corpus of real pastes (each file names its public thread in its header).
CAPTURES = Path(__file__).resolve().parent / "data" / "captures"


def _capture(name: str) -> str:
    path = CAPTURES / name
    return strip_header(path.read_text())


# --- real captures -------------------------------------------------------------------------------


def test_a100_mig_xml_capture() -> None:
    out = parse_xml(_capture("01-a100-sxm4-mig-persistence-off-nvsmi-xml.txt"))
    assert (out.driver_version, out.cuda_version, out.attached) == ("535.54.03", "12.2", 4)
    (g,) = out.gpus
    assert g.name == "NVIDIA A100-SXM4-80GB" and g.bdf == "0000:01:00.0"
    assert g.persistence is False and g.mig_current is True and g.mig_pending is True and g.mig_devices == 4
    assert g.clock_events == () and g.power_limit_w == g.power_default_w == 500.0
    assert (g.pcie_gen, g.pcie_gen_max, g.pcie_width, g.pcie_width_max) == (4, 4, 16, 16)
    assert g.ecc_current is True and g.ecc_volatile_uncorrected == 0 and g.gsp_firmware == "535.54.03"
    assert g.processes == () and g.utilization_gpu is None  # N/A with MIG


def test_blackwell_maxq_xml_capture_v13() -> None:
    (g,) = parse_xml(_capture("04-rtx-pro-6000-blackwell-maxq-gen4-host-nvsmi-xml.txt")).gpus
    assert g.architecture == "Blackwell" and g.spec is not None and g.spec.name == "RTX PRO 6000 Blackwell Max-Q"
    assert (g.pcie_gen, g.pcie_gen_max, g.pcie_gen_device_max, g.pcie_gen_host_max) == (1, 4, 5, 4)
    assert g.power_limit_w == g.power_default_w == 300.0 and g.power_draw_w == 3.99
    assert g.mig_current is None and g.ecc_current is False and g.remap_pending is False
    assert g.processes is not None and g.processes[0].name.endswith("llama-server")
    assert g.processes[0].used_mib == 65710.0 and g.bar1_total_mib == 131072.0


def test_rtx3090_table_capture_new_header() -> None:
    out = parse_table(_capture("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt"))
    assert (out.driver_version, out.cuda_version) == ("610.43.03", "13.3")
    assert [g.bdf for g in out.gpus] == ["0000:04:00.0", "0000:09:00.0"]
    assert all(g.persistence is False and g.power_limit_w == 250.0 for g in out.gpus)
    assert [g.display_active for g in out.gpus] == [True, False]
    assert out.gpus[0].processes is None  # the excerpt ends before the process table


def test_titan_q_text_excerpt() -> None:
    out = parse_query_text(_capture("21-titan-rtx-nvidia-smi-q-text-persistence-disabled.txt"))
    fragment, titan = out.gpus
    assert (fragment.app_graphics_mhz, fragment.default_app_graphics_mhz) == (1350, 1350)
    assert fragment.bdf == "" and fragment.processes == ()
    assert titan.name == "TITAN RTX" and titan.bdf == "0000:68:00.0" and titan.persistence is False


def test_h100_pod_table_rows_without_header() -> None:
    text = _capture("33-h100-k8s-pod-shm-64m-memlock-64k-shared-gpu.txt")
    record = recognise(text).record
    out = parse_table(record.commands[("nvidia-smi",)].stdout)
    (g,) = out.gpus
    assert g.name == "NVIDIA H100 80GB HBM3" and g.bdf == "0000:00:0b.0" and g.power_limit_w == 700.0
    assert g.processes is not None and g.processes[0].name == "VLLM::EngineCore"


@pytest.mark.parametrize("name,argv", [
    ("01-a100-sxm4-mig-persistence-off-nvsmi-xml.txt", ("nvidia-smi", "-q", "-x")),
    ("04-rtx-pro-6000-blackwell-maxq-gen4-host-nvsmi-xml.txt", ("nvidia-smi", "-q", "-x")),
    ("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt", ("nvidia-smi",)),
    ("21-titan-rtx-nvidia-smi-q-text-persistence-disabled.txt", ("nvidia-smi", "-q")),
])
def test_captures_are_recognised(name: str, argv: tuple[str, ...]) -> None:
    assert argv in recognise(_capture(name)).record.commands


# --- own fixtures ----------------------------------------------------------------------------------


def test_hgx_xml_eight_gpus_and_old_schema() -> None:
    new = parse_xml(xml_log([xml_gpu(b) for b in HGX_BUSES]))
    assert len(new.gpus) == 8 and new.gpus[7].bdf == "0000:db:00.0" and new.gpus[0].fabric_state == "Completed"
    assert new.gpus[0].ecc_aggregate_corrected == 3 and new.gpus[0].processes[0].name == "VLLM::Worker_TP0"  # type: ignore[index]
    old = parse_xml(xml_log([xml_gpu(HGX_BUSES[0], limit="500.00 W", old=True,
                                     reasons={"hw_slowdown": "Active", "sw_power_cap": "Active"})]))
    (g,) = old.gpus
    assert g.power_limit_w == 500.0 and g.power_enforced_w == 500.0 and g.power_default_w == 700.0
    assert g.clock_events == ("sw_power_cap", "hw_slowdown")


def test_query_text_fixture() -> None:
    out = parse_query_text(QUERY_TEXT)
    assert (out.driver_version, out.attached) == ("550.127.05", 2)
    g, second = out.gpus
    assert g.clock_events == ("sw_power_cap", "hw_slowdown", "hw_thermal_slowdown")
    assert g.compute_mode == "Exclusive_Process" and (g.ecc_current, g.ecc_pending) == (True, False)
    assert g.utilization_gpu == 97 and g.busy
    assert g.ecc_volatile_uncorrected == 2 and g.ecc_aggregate_corrected == 12 and g.remap_pending is True
    assert (g.power_limit_w, g.power_default_w) == (300.0, 350.0) and g.gsp_firmware == ""
    assert (g.app_graphics_mhz, g.default_app_graphics_mhz) == (2040, 2520) and g.pcie_gen_host_max == 5
    assert g.processes is not None and g.processes[0].pid == 30112 and g.processes[0].used_mib == 41210.0
    assert second.persistence is False and second.processes == ()


def test_table_old_header_with_processes() -> None:
    out = parse_table(TABLE_OLD)
    assert (out.driver_version, out.cuda_version) == ("550.127.05", "12.4")
    assert [g.power_limit_w for g in out.gpus] == [450.0, 350.0]
    assert [p.name for p in out.gpus[1].processes or ()] == ["/usr/lib/xorg/Xorg", "VLLM::Worker_TP1"]
    assert out.gpus[1].processes[0].kind == "G"  # type: ignore[index]


def test_xml_entities_are_refused() -> None:
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>\n'
            "<nvidia_smi_log><driver_version>&b;</driver_version></nvidia_smi_log>")
    with pytest.raises(ParseError, match="refused"):
        parse_xml(bomb)
    with pytest.raises(ParseError):
        parse_xml("<html>no</html>")


def test_xml_cut_short_is_read_up_to_its_last_whole_element() -> None:
    whole = parse_xml(xml_log([xml_gpu(HGX_BUSES[0])]))
    cut = parse_xml(xml_log([xml_gpu(HGX_BUSES[0])])[:-40])  # a paste that stops before </nvidia_smi_log>
    assert [g.bdf for g in cut.gpus] == [g.bdf for g in whole.gpus]
    assert (cut.gpus[0].name, cut.gpus[0].persistence) == (whole.gpus[0].name, whole.gpus[0].persistence)
    head = xml_log([xml_gpu(HGX_BUSES[0])])
    head = head[: head.index("</product_name>") + len("</product_name>") + 5]  # and inside the next line
    assert parse_xml(head).gpus[0].name == whole.gpus[0].name


def test_several_outputs_with_chatter_in_one_paste() -> None:
    text = ("Here is my setup, vLLM hangs at startup:\n\nuser@gpu-box:~$ nvidia-smi\n" + TABLE_OLD
            + "\nand the full query:\n$ nvidia-smi -q\n" + QUERY_TEXT + "\n```\n$ nvidia-smi -q -x\n"
            + xml_log([xml_gpu(HGX_BUSES[0])]) + "```\nthanks!\n")
    result = recognise(text)
    kinds = [k for k, _, _ in result.recognised]
    assert {"nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x"} <= set(kinds)
    cmds = result.record.commands
    assert len(parse_table(cmds[("nvidia-smi",)].stdout).gpus) == 2
    assert len(parse_query_text(cmds[("nvidia-smi", "-q")].stdout).gpus) == 2
    assert len(parse_xml(cmds[("nvidia-smi", "-q", "-x")].stdout).gpus) == 1


# --- fuzzing -------------------------------------------------------------------------------------

_PIECES = st.sampled_from([
    "<nvidia_smi_log>", "</nvidia_smi_log>", "<gpu id=\"00000000:01:00.0\">", "</gpu>", "<power_limit>x W</power_limit>",
    "GPU 00000000:01:00.0", "    Product Name : X", "        Current : Enabled", "|   0  NVIDIA X  On  |",
    "| NVIDIA-SMI 1 Driver Version: 2 CUDA Version: 3 |", "Processes", "    Processes : None", "\n", "  ", ":",
    "|    0   N/A  N/A   12   C   p   10MiB |", "<!DOCTYPE x>", "&amp;", "\t",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_PIECES, st.text(max_size=20)), max_size=40))
def test_parsers_never_crash(parts: list[str]) -> None:
    text = "".join(parts)
    for parser in (parse_xml, parse_query_text, parse_table):
        with contextlib.suppress(ParseError):
            parser(text)
    recognise(text)


# --- what the source says the GPU lacks vs what it does not show -----------------------------------


def test_na_fields_are_unsupported_and_permission_errors_are_not() -> None:
    """`N/A` = the GPU lacks the feature (not applicable); a missing or unreadable field is unknown."""
    (a100,) = parse_xml(_capture("01-a100-sxm4-mig-persistence-off-nvsmi-xml.txt")).gpus
    # <remapped_rows>N/A</remapped_rows> with MIG on, page retirement N/A (Ampere remaps rows); ECC and MIG readable
    assert a100.unsupported == ("remap", "retire")
    (maxq,) = parse_xml(_capture("04-rtx-pro-6000-blackwell-maxq-gen4-host-nvsmi-xml.txt")).gpus
    assert maxq.unsupported == ("mig", "retire")  # its row remapper reads; page retirement N/A (Blackwell remaps)
    table = parse_table(_capture("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt"))
    assert all(g.unsupported == ("ecc", "mig") for g in table.gpus)
    denied = QUERY_TEXT.replace("        Current                           : Enabled\n        Pending                  "
                                "         : Disabled", "        Current                           : Insufficient "
                                "Permissions\n        Pending                           : Insufficient Permissions")
    g = parse_query_text(denied).gpus[0]
    assert g.ecc_current is None and "ecc" not in g.unsupported
    assert parse_query_text(QUERY_TEXT).gpus[0].unsupported == ("mig",)  # MIG Mode Current: N/A on an L40S
    # An excerpt cut inside Retired Pages (corpus 1373) shows the pending flag without its parent: read all the same.
    cut = "        Double Bit ECC                    : N/A\n        Pending Page Blacklist            : N/A\n" \
          "    Remapped Rows                         : N/A\n"
    assert parse_query_text(cut).gpus[0].unsupported == ("remap", "retire")


def test_requested_and_current_power_limits_of_the_r530_schema() -> None:
    """R530+: requested_power_limit is what `-pl` set, current_power_limit the enforced one (all limiters)."""
    braked = xml_gpu(HGX_BUSES[0]).replace("<current_power_limit>700.00 W</current_power_limit>",
                                           "<current_power_limit>550.00 W</current_power_limit>")
    (g,) = parse_xml(xml_log([braked])).gpus
    assert (g.power_limit_w, g.power_enforced_w, g.power_default_w) == (700.0, 550.0, 700.0)
    text = QUERY_TEXT.replace("Current Power Limit               : 300.00 W",
                              "Current Power Limit               : 250.00 W")
    g = parse_query_text(text).gpus[0]
    assert (g.power_limit_w, g.power_enforced_w) == (300.0, 250.0)


def test_table_row_cut_in_its_last_column_still_gives_the_gpu() -> None:
    # Real: ollama/ollama#1561 (corpus 162), the table cut after `N/` of the ECC column.
    from corpus import body

    gpus = parse_table("\n".join(body("162").split("\n")[27:35])).gpus
    assert [(g.name, g.persistence, g.bdf) for g in gpus] == [("NVIDIA GeForce GTX 1660", False, "0000:26:00.0")]


# --- the declared fact -----------------------------------------------------------------------------


def test_nvidia_fact_declares_one_alternative_per_source_best_first() -> None:
    from stackaudit.facts.registry import load_all

    spec = load_all()["nvidia"]
    # A monitor's rows (gpustat, nvtop) come last: they hold less than any of nvidia-smi's outputs (corpus 2409).
    assert spec.titles == ("NVML", "`nvidia-smi -q -x`", "`nvidia-smi -q`", "`nvidia-smi`",
                           "pasted GPU monitor rows (nvtop, gpustat)")


def test_an_unreadable_xml_falls_back_to_the_text_and_provenance_names_it() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.nvidia import NvidiaGpus
    from stackaudit.host.memory import fake_host

    host = fake_host(commands={("nvidia-smi", "-q", "-x"): "<gpu>cut</gpu>", ("nvidia-smi", "-q"): QUERY_TEXT},
                     strict=True)
    collector = Collector(host)
    value = collector.results(["nvidia"])["nvidia"]
    assert isinstance(value, NvidiaGpus) and value.gpus and value.driver_version
    assert value.sources == tuple(p.source for p in collector.provenance("nvidia")) and value.sources
    assert all("-x" not in s for s in value.sources) and any("nvidia-smi -q" in s for s in value.sources)


def test_a_table_without_its_processes_box_gives_no_gpu_total() -> None:
    # Corpus 165 (a GeForce RTX 3080 host): the table stops at the border after GPU 0, before the Processes box.
    from corpus import body
    from stackaudit.checks.drv import gpu_total
    from stackaudit.facts.nvidia_smi import parse_table

    text = body("165")
    gpus = parse_table(text)
    assert gpu_total(gpus) is None and "before its Processes box" in gpus.unshown
    # Modelled: the same table closed by its Processes box lists every GPU of the host.
    whole = text.rstrip().rstrip("`").rstrip() + "\n" + "\n".join((
        "+---------------------------------------------------------------------------------------+",
        "| Processes:                                                                            |",
        "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
        "|=======================================================================================|",
        "|  No running processes found                                                           |",
        "+---------------------------------------------------------------------------------------+"))
    assert gpu_total(parse_table(whole)) == 1 and parse_table(whole).unshown == ""
    # The shape is marked: every GPU listed is whole, what follows the last is not shown (NvidiaGpus.cut_at_border).
    assert gpus.cut_at_border and not parse_table(whole).cut_at_border


def test_a_table_cut_inside_a_gpus_rows_is_not_cut_at_a_border() -> None:
    # Corpus 507: the table stops inside GPU 0's rows (no border closes them).
    from corpus import body
    from stackaudit.facts.nvidia_smi import parse_table

    gpus = parse_table(body("507"))
    assert "inside GPU 0's rows" in gpus.unshown and not gpus.cut_at_border


def test_a_gpu_row_whose_display_cell_reads_na_is_read() -> None:
    # Corpus 929 (a g5.48xlarge): GPU 0 the driver can no longer query reads `N/A` in Disp.A and ERR! in its second
    # row; it is a GPU the table shows, beside GPU 1.
    from corpus import body
    from stackaudit.facts.nvidia_smi import parse_table

    gpus = parse_table(body("929"))
    assert [(g.index, g.bdf, g.display_active) for g in gpus.gpus] == [
        (0, "0000:00:16.0", None), (1, "0000:00:17.0", False)]


# Windows' nvidia-smi prints `Driver-Model` (WDDM | TCC | MCDM) where Linux prints `Persistence-M`. Real rows:
# ollama/ollama#5821 (RTX 3090, tests/data/captures/304), hybridgroup/yzma's Windows benchmark notes (RTX 3070)
# and a RTX 4090 sample output kept in a public C++ header (found by code search).
_WINDOWS_ROWS = (
    ("|   0  NVIDIA GeForce RTX 3090      WDDM  |   00000000:06:00.0  On |                  N/A |\n"
     "| 56%   47C    P8             49W /  390W |   18505MiB /  24576MiB |      2%      Default |\n", 390.0),
    ("|   0  NVIDIA GeForce RTX 3070      WDDM  |   00000000:01:00.0 Off |                  N/A |\n"
     "|  0%   42C    P8              6W /  240W |      22MiB /   8192MiB |      0%      Default |\n", 240.0),
    ("|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0 Off |                  Off |\n"
     "|  0%   24C    P8             10W /  500W |     395MiB /  24564MiB |     19%      Default |\n", 500.0),
)


@pytest.mark.parametrize(("rows", "cap"), _WINDOWS_ROWS)
def test_windows_table_rows_name_the_driver_model_not_persistence(rows: str, cap: float) -> None:
    (g,) = parse_table(rows).gpus
    assert g.driver_model == "WDDM" and g.persistence is None and g.power_limit_w == cap


def test_linux_row_has_persistence_and_no_driver_model() -> None:
    """Modelled: the same RTX 3090 row as Linux prints it (Persistence-M `Off`)."""
    (g,) = parse_table("|   0  NVIDIA GeForce RTX 3090        Off |   00000000:06:00.0  On |                  N/A |\n"
                       "| 56%   47C    P8             49W /  390W |   18505MiB /  24576MiB |      2%      Default |\n"
                       ).gpus
    assert g.driver_model is None and g.persistence is False


def test_no_devices_were_found_under_a_prompt_is_nvidia_smis_output() -> None:
    """nvidia-smi's one line where NVML counts no GPU it could open, under the command with its shell prompt (corpus
    1366: `# nvidia-smi`; corpus 1148: `sh-5.1# nvidia-smi`), is its output and shows no GPU, as NVML's failure is."""
    from corpus import body

    for prefix, start in (("1366", 1), ("1148", 19)):
        result = recognise(body(prefix))
        spans = [(k, a) for k, a, _ in result.recognised]
        assert ("nvidia-smi", start) in spans, (prefix, spans)
        table = result.record.commands[("nvidia-smi",)].stdout
        assert table.strip() == "No devices were found"
        with pytest.raises(ParseError, match="found no GPU"):
            parse_table(table)
    # Modelled: the line alone, with no command above it, is anyone's words: not read as nvidia-smi's.
    assert "nvidia-smi" not in [k for k, _, _ in recognise("No devices were found\n").recognised]


def test_windows_gpu_rows_without_the_header_are_the_table() -> None:
    """Two GPU rows copied out of `nvidia-smi -l 1` on Windows (corpus 1348): the persistence cell reads the driver
    model (`WDDM`), as _ROW1 reads it; the rows are the table's, its GPU with its power cap and P-state."""
    from corpus import body

    result = recognise(body("1348"))
    assert [(k, a) for k, a, _ in result.recognised] == [("nvidia-smi", 4)]
    gpu = parse_table(result.record.commands[("nvidia-smi",)].stdout).gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 3060" and gpu.driver_model == "WDDM" and gpu.pstate == "P3"
