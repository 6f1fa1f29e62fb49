"""The GPU bullets of club-3090's rig report (`scripts/report.sh`), handed on as the `nvidia-smi -q` they summarise.

report.sh queries nvidia-smi per GPU and prints two or three bullets for each::

    - **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 595.71.05 | VBIOS 94.02.42.00.A7 | persistence=Enabled
      - **Power:** limit=280.00 W (default=350.00 W, max=365.00 W) | current_draw=27.19 W ⚠ user-capped below default
      - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 3) | bus 00000000:09:00.0

Each GPU becomes a GPU section of `nvidia-smi -q` text with its name, persistence mode, VBIOS, power limits (set,
default, max) and link (width current and max, generation max): the values the report read from nvidia-smi, under
the keys `-q` prints them with. A GPU whose bus bullet the paste cuts gets a section without an address, so that it
is counted under its index; so is each GPU numbered before the first bullet a paste starts with (`GPU 1:` first, GPU
0's bullets cut above it, corpus 525), as a section with neither name nor address. Always an excerpt: the report has no count of the GPUs to say that its list is whole.

The CPU bullet (`- **CPU:** AMD Ryzen 7 5800X 8-Core Processor (12 threads)`), or a summary table's CPU row
(`| **CPU** | AMD Ryzen Threadripper PRO 9985WX 64-Core (128 threads) |`), is lscpu's `Model name`, handed on as
such: checks/pcie.py reads the model for the lanes a desktop CPU gives its graphics slots.

A hardware list in the same spirit, written as plain `Key: value` lines (fwupd/fwupd#10896, corpus 751), names a GPU
with the memory NVML reports (`GPU: NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition, 97,887 MiB`) and,
below it, its power limit (`GPU power limit: 250 W`, or `Power limit is already at 480W (default 600W)` with the
default): handed on as a GPU section of `nvidia-smi -q` with its name, memory and power limit. A list line that states
a count of one model with the limit of each (`- 2× RTX 3090 24 GB, ..., 250 W per GPU.`), or a sentence with the
count and the cap the user set (`i powercap at 230 watt, 2x rtx3090s`), is handed on as that many GPU sections with
the model and the limit.

The System section's `- **Environment:** ...` line, below the report's `# club-3090 rig report` heading, is recorded
as the document RIG_REPORT_ENVIRONMENT (facts/platform.py virtualization_from_rig_report reads it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from stackaudit.facts._parse import stated_line
from stackaudit.facts.gpus import stated_gpus
from stackaudit.facts.sources import LSCPU, NVSMI_QUERY, RIG_REPORT_ENVIRONMENT
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, command_output_appended, document_appended, importer
from stackaudit.pci_address import BDF

_GPU = re.compile(r"^\s*- \*\*GPU (\d+):\*\* (.+?) \| (\d+) MiB \| driver (\S+) \| VBIOS (\S+) \| "
                  r"persistence=(\w+)\s*$")
# A paste cut inside the default after its decimal point (`limit=270.00 W (default=350.`, corpus 2498) still shows the
# default's whole watts (group 5): the default is at least that, so a limit below it is below the default.
_POWER = re.compile(r"^\s+- \*\*Power:\*\* limit=([\d.]+) W \(default=(?:([\d.]+) W, max=([\d.]+) W\)"
                    r"(?: \| current_draw=([\d.]+) W)?|(\d+)\.\d*\s*$)")
_BUS = re.compile(rf"^\s+- \*\*PCIe:\*\* .*\| bus ({BDF})\b")
# report.sh's link bullet: the negotiated width (pcie.link.width.current), the GPU's (pcie.link.width.max) and
# the highest generation (pcie.link.gen.max); the current generation is not printed.
_LINK = re.compile(r"^\s+- \*\*PCIe:\*\* x(\d+) lanes negotiated \(GPU max x(\d+), Gen up to (\d)\)")
# A plain hardware list's GPU line: the memory as NVML reports it, thousands separated or not (`GPU: NVIDIA RTX PRO
# 6000 Blackwell Max-Q Workstation Edition, 97,887 MiB`, corpus 751), or the nominal size in brackets (`- **GPU**:
# NVIDIA RTX PRO 6000 Blackwell Workstation Edition (96GB)`, corpus 803).
_LIST_GPU = re.compile(r"^\W*GPU\**:\s*(NVIDIA [^,(]+?)(?:,\s*(\d{1,3}(?:,\d{3})+|\d+)\s*MiB|\s*\((\d+)\s*GB\))\s*$")
# Its power limit line, with the default where the list gives it (`GPU power limit: 250 W`, corpus 751; `- Power limit
# is already at 480W (default 600W)`, corpus 803).
_LIST_POWER = re.compile(r"^\W*(?:GPU\s+)?power limit\b(?::|(?: is)?(?: already)?(?: set)?(?: at| to)?)\s*"
                         r"(\d+(?:\.\d+)?)\s*W\b(?:\s*\(default:?\s*(\d+(?:\.\d+)?)\s*W\))?", re.IGNORECASE)
_LIST_LOOK = 16  # lines below the GPU line where its power limit may stand
# A list line stating a count of one GPU model (facts/gpus.stated_gpus) and the limit of each (`- 2× RTX 3090 24 GB,
# NVLink (NV4), 250 W per GPU.`, corpus 805), or a power cap the user set beside the count (`i powercap at 230 watt,
# 2x rtx3090s`, corpus 1058): a power limit is a setting of each GPU (`nvidia-smi -i N -pl W`), so a cap stated for a
# set of one model is each card's.
_PER_GPU_POWER = re.compile(r"\b(\d+(?:\.\d+)?)\s*W\s+(?:per|each)\s+GPU\b|"
                            r"\bpower[- ]?(?:cap(?:ped)?|limit(?:ed)?)\s+(?:(?:it|them|both|all|each)\s+)?(?:at|to)\s+"
                            r"(\d+(?:\.\d+)?)\s*(?:W|watts?)\b", re.IGNORECASE)
# report.sh's CPU bullet: lscpu's `Model name`, then the thread count (`nproc`) in brackets. A hardware summary's
# two-column Markdown table row (`| **CPU** | AMD Ryzen Threadripper PRO 9985WX 64-Core (128 threads) |`, corpus 860)
# is the same statement, read in its `Key: value` form (facts/_parse.stated_line).
_CPU = re.compile(r"^\s*- \*\*CPU:\*\* (.+?)(?: \(\d+ threads\))?\s*$")
_ROW_CPU = re.compile(r"^CPU: (.+?)(?: \(\d+ threads\))?$")


def per_gpu_limit(line: str, above: Sequence[str] = ()) -> tuple[int, str, str] | None:
    """(count, model, watts) of a list line that states a count of one GPU model and the power limit of each
    (_PER_GPU_POWER); None for any other line. A line that states the limit alone (`**250 W per GPU**, unchanged
    throughout.` under an issue form's `### Power limit during the run`, corpus 2899) takes its GPUs from the lines
    `above` it, where they state one count of one model and nothing else (the machine's line of the same form)."""
    per_gpu = _PER_GPU_POWER.search(line)
    said = stated_gpus(line) if per_gpu else []
    if per_gpu and not said and above:
        said = list(dict.fromkeys(pair for x in above for pair in stated_gpus(x)))
    return (said[0][0], said[0][1], per_gpu.group(1) or per_gpu.group(2)) if per_gpu and len(said) == 1 else None


def listed_gpu(line: str) -> bool:
    """Whether a line is a plain hardware list's GPU line with its memory (_LIST_GPU), which this importer reads."""
    return _LIST_GPU.match(line) is not None


def _query_section(name: str, *, bus: str = "", persistence: str | None = None, vbios: str | None = None,
                   mib: str | None = None, link: tuple[str, ...] | None = None, link_gen: str | None = None,
                   draw: str | None = None,
                   limit: str | None = None, default: str | None = None, max_limit: str | None = None,
                   pstate: str | None = None, temp: str | None = None, sm_clock: str | None = None,
                   reasons: dict[str, bool] | None = None, busy_pct: int | None = None) -> str:
    """One GPU's section of `nvidia-smi -q` text, with the fields a report or list gives (None: not given; a name "":
    not given either); `link` is the width current and max and the generation max, `link_gen` the generation current."""
    lines = [f"GPU {bus}".rstrip()] + ([f"    Product Name                          : {name}"] if name else [])
    if busy_pct is not None:
        lines += ["    Utilization", f"        Gpu                               : {busy_pct} %"]
    if pstate is not None:
        lines.append(f"    Performance State                     : {pstate}")
    if reasons is not None:
        lines.append("    Clocks Event Reasons")
        lines += [f"        {label:<34}: {'Active' if on else 'Not Active'}" for label, on in reasons.items()]
    if temp is not None:
        lines += ["    Temperature", f"        GPU Current Temp                  : {temp} C"]
    if sm_clock is not None:
        lines += ["    Clocks", f"        SM                                : {sm_clock} MHz"]
    if persistence is not None:
        lines.append(f"    Persistence Mode                      : {persistence}")
    if vbios is not None:
        lines.append(f"    VBIOS Version                         : {vbios}")
    if mib is not None:
        lines += ["    FB Memory Usage", f"        Total                             : {mib} MiB"]
    if link is not None:
        lines += ["    PCI",
                  "        GPU Link Info",
                  "            PCIe Generation",
                  f"                Max                       : {link[2]}",
                  *([f"                Current                   : {link_gen}"] if link_gen else []),
                  "            Link Width",
                  f"                Max                       : {link[1]}x",
                  f"                Current                   : {link[0]}x"]
    if limit is not None:
        lines.append("    GPU Power Readings")
        if draw:
            lines.append(f"        Power Draw                        : {draw} W")
        lines.append(f"        Power Limit                       : {limit} W")
        if default is not None:
            lines.append(f"        Default Power Limit               : {default} W")
        if max_limit is not None:
            lines.append(f"        Max Power Limit                   : {max_limit} W")
    return "\n".join(lines) + "\n"


def _section(m: re.Match[str], power: re.Match[str] | None, bus: str, link: re.Match[str] | None = None) -> str:
    """One GPU's section of `nvidia-smi -q` text from report.sh's GPU bullet and the bullets below it."""
    widths = link.groups() if link is not None else None
    if power is None:
        return _query_section(m.group(2), bus=bus, persistence=m.group(6), vbios=m.group(5), mib=m.group(3), link=widths)
    return _query_section(m.group(2), bus=bus, persistence=m.group(6), vbios=m.group(5), mib=m.group(3), link=widths,
                          draw=power.group(4), limit=power.group(1), default=power.group(2) or power.group(5),
                          max_limit=power.group(3))


@importer("rig report", "club-3090's rig report (`scripts/report.sh`): its GPU bullets (name, power limits, link, "
          "bus) and its CPU bullet (the model name); a plain hardware list's GPU line with its power limit, or a count "
          "of one model with the limit of each",
          needles=("**GPU ", "**CPU:**", "cpu** |", "| cpu |", "GPU:", "GPU**:", "power limit", " per GPU", " each GPU", "powercap", "power cap", "power-cap", "power-limit"),
          per_line=True)
def rig_report(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if listed := _LIST_GPU.match(lines[i]):
            yield from _listed_gpu(lines, i, listed)
            continue
        if per_gpu := per_gpu_limit(lines[i], lines[max(0, i - _LIST_LOOK):i]):
            count, model, watts = per_gpu
            text = "".join(_query_section(model, limit=watts) for _ in range(count))
            yield Found("rig report", i, i + 1, command_output_appended(NVSMI_QUERY.argv, text))
            continue
        if cpu := _CPU.match(lines[i]) or (_ROW_CPU.match(row) if (row := stated_line(lines[i])) is not lines[i] else None):
            yield Found("rig report", i, i + 1, command_output_appended(LSCPU.argv, f"Model name: {cpu.group(1)}\n"))
            continue
        m = _GPU.match(lines[i])
        if m is None:
            continue
        end, power, bus, link = i + 1, None, "", None
        while end < len(lines) and end < i + 4 and lines[end].startswith((" ", "\t")):
            power = power or _POWER.match(lines[end])
            link = link or _LINK.match(lines[end])
            if b := _BUS.match(lines[end]):
                bus = b.group(1)
            end += 1
        head = f"Driver Version                            : {m.group(4)}\n\n" if m.group(1) == "0" else ""
        if m.group(1) != "0" and not any(_GPU.match(line) for line in lines[:i]):
            # The paste starts inside the report's list (corpus 525: GPU 0's bullets cut above GPU 1's): the GPUs
            # numbered before the first one shown are a section each without name or address, shown and not read.
            head = "".join("GPU\n" for _ in range(int(m.group(1))))
        yield Found("rig report", i, end, command_output_appended(NVSMI_QUERY.argv, head + _section(m, power, bus, link)))
        scan.skip(end)


# club-3090's power-cap sweep (`scripts/power-cap-sweep.sh`): per cap, a `=== Cap: 510W (GPUs 0) @ … ===` banner and a
# result line of what nvidia-smi read in the samples taken under load (utilisation above 50 %): the median draw, the
# peak temperature, the median SM and memory clocks, the dominant P-state, and the share of samples in which
# clocks_throttle_reasons.sw_power_cap and .hw_thermal_slowdown were Active (`throttle_pwr=0 throttle_thermal=0`). The
# clocks and reasons are OR'd and the temperature the highest over the GPUs the banner names; every sample read was
# above 50 % busy (SWEEP_BUSY_PCT, the least the readings show).
_SWEEP_CAP = re.compile(r"^=== Cap: \d+W \(GPUs (\d+(?:,\d+){0,15})\)")
_SWEEP_RESULT = re.compile(r"^\[result\] cap=\d+W actual_W=[\d.]+ temp=(\d+) sm_clk=(\d+) mem_clk=\d+ pstate=(P\d+) "
                           r"throttle_pwr=(\d+) throttle_thermal=(\d+)\b")
SWEEP_BUSY_PCT = 51
_SWEEP_LINE = re.compile(r"^(?:\[(?:result|time|verify|bench|summary|warn|plateau detected)\] |=+(?: Cap: .*)?$|\s*$)")


@importer("power-cap sweep", "club-3090's power-cap sweep (`scripts/power-cap-sweep.sh`): its per-cap result lines "
          "(temperature, SM clock, P-state and the share of under-load samples with the power cap or thermal slowdown "
          "active)", needles=("[result] cap=",))
def power_cap_sweep(lines: list[str]) -> Iterator[Found]:
    """The sweep's result lines, from the first to the last of a run of sweep lines, as one `nvidia-smi -q` section per
    GPU its banner names: a reason Active where any cap's share is above 0, the highest temperature, the lowest SM
    clock and the deepest P-state of the caps shown (the worse reading decides)."""
    i = 0
    while i < len(lines):
        if not _SWEEP_RESULT.match(lines[i]):
            i += 1
            continue
        end, results = i, []
        while end < len(lines) and end - i < 2000 and _SWEEP_LINE.match(lines[end]):
            if r := _SWEEP_RESULT.match(lines[end]):
                results.append(r)
            end += 1
        banner = next((b for j in range(i, max(-1, i - 12), -1) if (b := _SWEEP_CAP.match(lines[j]))), None)
        gpus = banner.group(1).split(",") if banner else ["0"]
        section = _query_section(
            "", pstate=max((r.group(3) for r in results), key=lambda p: int(p[1:])),
            temp=str(max(int(r.group(1)) for r in results)), sm_clock=str(min(int(r.group(2)) for r in results)),
            reasons={"SW Power Cap": any(int(r.group(4)) for r in results),
                     "HW Thermal Slowdown": any(int(r.group(5)) for r in results)}, busy_pct=SWEEP_BUSY_PCT)
        yield Found("power-cap sweep", i, end, command_output_appended(NVSMI_QUERY.argv, section * len(gpus)))
        i = end


# club-3090's PCIe capture under load: per GPU, the best link it saw while sampled under load, as current/max of the
# generation and the width (`GPU0 gen=4/4 width=8/16  ⚠ WARN: never reached gen4 x16 under load`, corpus 2900), the
# values of nvidia-smi's pcie.link.gen.current/max and pcie.link.width.current/max. A GPU line read as `-q`'s link:
# the generation (current and max) and the width (current and max), named by index only. A line whose current is
# above its max, or whose max is no PCIe width, is not read (a line cut inside the max: `width=8/1`); nor is a paste's
# last line that ends on the max's digits, which may be cut there (`width=1/1` of `width=1/16`).
_CAPTURE_LINK = re.compile(r"^\s*GPU(\d{1,2}) gen=(\d)/(\d) width=(\d{1,2})/(\d{1,2})(?=\s|$)")
_PCIE_WIDTHS = frozenset({1, 2, 4, 8, 12, 16, 32})


def _capture_link(lines: list[str], i: int) -> re.Match[str] | None:
    m = _CAPTURE_LINK.match(lines[i])
    if m is None or int(m.group(2)) > int(m.group(3)) or int(m.group(4)) > int(m.group(5)):
        return None
    if int(m.group(5)) not in _PCIE_WIDTHS or (i == len(lines) - 1 and m.end() == len(lines[i])):
        return None
    return m


@importer("pcie capture links", "club-3090's PCIe capture: each GPU's best link under load (`GPU0 gen=4/4 width=8/16`)",
          needles=(" gen=",))
def pcie_capture_links(lines: list[str]) -> Iterator[Found]:
    """Each run of the capture's link lines as one `nvidia-smi -q` section per GPU: the link generation and width,
    current and max; the GPUs numbered below the first line shown (cut above it) as sections without a link."""
    i = 0
    while i < len(lines):
        if not _capture_link(lines, i):
            i += 1
            continue
        end = i
        shown: dict[int, re.Match[str]] = {}
        while end < len(lines) and (m := _capture_link(lines, end)):
            shown.setdefault(int(m.group(1)), m)
            end += 1
        text = ""
        for index in range(max(shown) + 1):
            if (m := shown.get(index)) is None:
                text += "GPU\n"
                continue
            text += _query_section("", link=(m.group(4), m.group(5), m.group(3)), link_gen=m.group(2))
        yield Found("pcie capture links", i, end, command_output_appended(NVSMI_QUERY.argv, text))
        i = end


_HEADING = "# club-3090 rig report"
# club-3090's issue form heads the pasted report with its own heading, which names the script
# (`### Rig + bench report — paste contents of \`bash scripts/report.sh --full\``); a user who pastes the report from
# its `## System` section on leaves the report's own heading out (corpus 2325).
_FORM_HEADING = re.compile(r"^#{1,6} [^\n]{0,120}\bscripts/report\.sh\b")
_ENVIRONMENT = re.compile(r"^- \*\*Environment:\*\* \S.*$")


@importer("rig report environment", "club-3090's rig report (`scripts/report.sh`): its System section's Environment line",
          needles=("**Environment:**",))
def rig_report_environment(lines: list[str]) -> Iterator[Found]:
    """The `Environment:` bullet of each report's System section (between `## System` and the next heading, under the
    report's heading or the issue form's that names the script, _FORM_HEADING): a bullet of that name elsewhere in a
    paste is the user's Markdown, not the script's."""
    i = 0
    while i < len(lines):
        if lines[i].strip() != _HEADING and not _FORM_HEADING.match(lines[i]):
            i += 1
            continue
        system = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("#")), None)
        if system is None or lines[system].strip() != "## System":
            i += 1
            continue
        end = next((j for j in range(system + 1, len(lines)) if lines[j].startswith("#")), len(lines))
        env = next((j for j in range(system + 1, end) if _ENVIRONMENT.match(lines[j].rstrip())), None)
        if env is not None:
            yield Found("rig report environment", env, env + 1,
                        document_appended(RIG_REPORT_ENVIRONMENT.name, lines[env].rstrip() + "\n"))
        i = end


def _listed_gpu(lines: list[str], i: int, m: re.Match[str]) -> Iterator[Found]:
    """A plain hardware list's GPU line as an `nvidia-smi -q` GPU section, with the power limit a line below it
    states (up to the next GPU line); that power line is taken too."""
    below = range(i + 1, min(len(lines), i + 1 + _LIST_LOOK))
    stop = next((j for j in below if _LIST_GPU.match(lines[j])), below.stop)
    power = next(((j, p) for j in range(i + 1, stop) if (p := _LIST_POWER.match(lines[j]))), None)
    mib = m.group(2).replace(",", "") if m.group(2) else str(int(m.group(3)) * 1024)
    limit, default = (power[1].group(1), power[1].group(2) or None) if power is not None else (None, None)
    text = _query_section(m.group(1).strip(), mib=mib, limit=limit, default=default)
    yield Found("rig report", i, i + 1, command_output_appended(NVSMI_QUERY.argv, text))
    if power is not None:
        yield Found("rig report", power[0], power[0] + 1, lambda record: None)
