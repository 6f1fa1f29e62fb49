"""Fragments of nvidia-smi's output (issue 28, step 2), each read for what it shows (importers/nvidia_smi.py,
facts/nvidia_smi.py `parse_table`): the table's header line alone (the driver and the CUDA it supports, no GPU), the
Processes box alone (no GPU; `No running processes found`), process rows alone (the GPUs they run on, never the only
ones), and the line for a GPU nvidia-smi cannot open under `nvidia-smi -a` (that GPU, as `-q` output).

Real pastes are verbatim under the thread they come from; modelled ones say so.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.checks.drv import gpu_total
from stackaudit.importers.recognition import recognise


def _kinds(text: str) -> list[tuple[str, int, int]]:
    return list(recognise(text, "paste.txt").recognised)


def test_the_header_line_alone_gives_the_driver_and_no_gpu() -> None:
    # Corpus 298 (https://github.com/doitsujin/dxvk/issues/1799): the header line alone.
    assert ("nvidia-smi", 9, 9) in _kinds(body("298"))
    nvidia = fact(pasted(body("298")), "nvidia")
    assert (nvidia.driver_version, nvidia.cuda_version, nvidia.gpus) == ("450.80.02", "11.0", ())
    assert nvidia.unshown and gpu_total(nvidia) is None  # a header shows no GPU: it counts none
    # Corpus 264 (NVIDIA/nvidia-container-toolkit#115): the header line in prose, over one GPU name line.
    assert ("nvidia-smi", 5, 5) in _kinds(body("264"))
    assert fact(pasted(body("264")), "nvidia_driver").version == "535.104.05"
    # Corpus 101's header line, its bars taken off, alone in prose: the table's line, no longer an evidence line.
    text = "Hello, on my box:\nNVIDIA-SMI 510.47.03    Driver Version: 510.47.03    CUDA Version: 11.6\nany idea?\n"
    assert _kinds(text) == [("nvidia-smi", 2, 2)]
    # A check over the GPUs says nothing of GPUs the header does not show.
    assert capture_checks("298", "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "unknown"


def test_a_header_inside_a_sentence_stays_an_evidence_line() -> None:
    # Modelled: the header's words inside a sentence are the user's, not nvidia-smi's output.
    text = "my box runs NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
    assert "nvidia-smi" not in [k for k, _, _ in _kinds(text)]


def test_a_row_a_poster_set_in_markdown_bold_is_the_tables() -> None:
    """A poster's Markdown bold around a whole row (`**| NVIDIA-SMI 430.64 ... |**`) keeps the table one table, as bold
    on a cell does (corpus 2095). Real: corpus 2230 (NVIDIA/k8s-device-plugin#352, an unfenced table cut after its
    heading); the counter-example is a real generated report's sentence (a Windows workstation's validation report on
    GitHub) that quotes the header in bold inside its words: an evidence line, not the table."""
    assert ("nvidia-smi", 14, 20) in _kinds(body("2230"))
    nvidia = fact(pasted(body("2230")), "nvidia")
    assert (nvidia.driver_version, nvidia.cuda_version, nvidia.gpus) == ("430.64", "10.1", ())
    sentence = ("âœ… GPU Compute is available: **| NVIDIA-SMI 610.47                 KMD Version: 610.47        "
                "CUDA UMD Version: 13.3     |**\n")
    assert "nvidia-smi" not in [k for k, _, _ in _kinds(sentence)]


def test_a_lone_process_row_shows_that_gpu_only() -> None:
    # Corpus 247 (huggingface/text-generation-inference#955): the header line, and one process row further down.
    assert [s for s in _kinds(body("247")) if s[0] == "nvidia-smi"] == [("nvidia-smi", 7, 7), ("nvidia-smi", 48, 48)]
    nvidia = fact(pasted(body("247")), "nvidia")
    assert nvidia.driver_version == "470.141.03"
    assert [(g.index, [(p.pid, p.name, p.used_mib) for p in g.processes or ()]) for g in nvidia.gpus] == [
        (4, [(93051, "/opt/conda/bin/python3.9", 39399.0)])]
    assert nvidia.unshown and gpu_total(nvidia) is None  # GPU 4 of a host whose other GPUs are not shown
    # https://github.com/wookayin/gpustat/issues/1 (the issue body by AndiH): rows of the old Processes box alone.
    text = ("```\n"
            "|  GPU       PID  Type  Process name                               Usage      |\n"
            "|=============================================================================|\n"
            "|    0     11812    C   ./juspic.x                                      96MiB |\n"
            "```\n")
    assert ("nvidia-smi", 2, 4) in _kinds(text)
    gpus = fact(pasted(text), "nvidia").gpus
    assert [(g.index, g.processes[0].name if g.processes else None) for g in gpus] == [(0, "./juspic.x")]


def test_the_processes_box_alone_shows_no_gpu() -> None:
    # Corpus 764 (sgl-project/sglang#4759): the box with `No running processes found`, above check_env.
    assert ("nvidia-smi", 1, 7) in _kinds(body("764"))
    nvidia = fact(pasted(body("764")), "nvidia")
    assert nvidia.gpus == () and "Processes box" in nvidia.cut and gpu_total(nvidia) is None
    assert capture_checks("764", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "ok"  # check_env's GPUs still count
    # https://github.com/NVIDIA/nvidia-docker/issues/1460 (comment by XuehaiPan): the old box alone.
    text = ("```\n"
            "+-----------------------------------------------------------------------------+\n"
            "| Processes:                                                       GPU Memory |\n"
            "|  GPU       PID   Type   Process name                             Usage      |\n"
            "|=============================================================================|\n"
            "|  No running processes found                                                 |\n"
            "+-----------------------------------------------------------------------------+\n"
            "```\n")
    assert _kinds(text) == [("nvidia-smi", 2, 7)]
    assert fact(pasted(text), "nvidia").gpus == ()
    # https://github.com/XuehaiPan/nvitop/issues/152 (comment by eyalroz): the box with its rows on three GPUs.
    text = ("```\n"
            "+---------------------------------------------------------------------------------------+\n"
            "| Processes:                                                                            |\n"
            "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
            "|        ID   ID                                                             Usage      |\n"
            "|=======================================================================================|\n"
            "|    0   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |\n"
            "|    0   N/A  N/A     58661      G   .../abcdefgh/123456/bin/abcde/bazbaz          3MiB |\n"
            "|    1   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |\n"
            "|    2   N/A  N/A     18243      G   /usr/bin/X                                   64MiB |\n"
            "|    2   N/A  N/A     22720      G   /usr/bin/gnome-shell                         34MiB |\n"
            "+---------------------------------------------------------------------------------------+\n"
            "```\n")
    nvidia = fact(pasted(text), "nvidia")
    assert [(g.index, len(g.processes or ())) for g in nvidia.gpus] == [(0, 2), (1, 1), (2, 2)]
    assert gpu_total(nvidia) is None


def test_the_line_for_a_gpu_it_cannot_open_under_nvidia_smi_a_is_q_output() -> None:
    # Corpus 697 (NVIDIA/k8s-device-plugin#231): `nvidia-smi -a` named in the sentence above, the line in inline code.
    assert _kinds(body("697")) == [("nvidia-smi -q", 3, 3)]
    assert capture_checks("697", "DRV-XID")["DRV-XID"].status == "issue"
    # https://github.com/NVIDIA/nvidia-docker/issues/1553 (the issue body by cswinter): the command, then a fence.
    text = "`nvidia-smi -a -i 0`\n```\nUnable to determine the device handle for GPU 0000:09:00.0: Unknown Error\n```\n"
    assert _kinds(text) == [("nvidia-smi -q", 3, 3)]
    gpus = fact(pasted(text), "nvidia").gpus
    assert [(g.bdf, g.error) for g in gpus] == [("0000:09:00.0", "unknown")]
    # https://github.com/xxd3vin/workspace/issues/19: under plain `nvidia-smi` it stays the table's line.
    text = "[root@bh174 chenyang]# nvidia-smi \nUnable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n"
    assert _kinds(text) == [("nvidia-smi", 2, 2)]


def _smi_whole(text: str) -> bool:
    provs = [p for p in recognise(text, "paste.txt").record.provenance.values() if p.source == "nvidia-smi"]
    assert provs, text
    return any(p.whole for p in provs)


def test_the_lines_for_gpus_it_cannot_open_are_its_whole_output_where_they_fill_the_block() -> None:
    # Corpus 2354 (stanford-cs336/assignment4-data#1): the one line alone in its code block; corpus 2301
    # (Justsenger/ExHyperV#67): eight lines under WSL's nvidia-smi path; corpus 1530: under `$ nvidia-smi`, a blank line
    # and the next prompt after it.
    for n in ("2354", "2301", "1530"):
        assert _smi_whole(body(n)), n
    # https://github.com/xxd3vin/workspace/issues/19: under the command, the paste's end after it.
    assert _smi_whole("[root@bh174 chenyang]# nvidia-smi \nUnable to determine the device handle for GPU 0000:0B:00.0: "
                      "Unknown Error\n")
    # Modelled: the line quoted in prose, or with the user's words right after it, is not the whole output.
    line = "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n"
    assert not _smi_whole("After the hang I get\n" + line)
    assert not _smi_whole("```\n" + line + "and then the node reboots\n")


def test_a_header_of_a_driver_before_r410_without_cuda_version_gives_the_driver() -> None:
    # Corpus 1535 (NVIDIA/nvidia-docker#523): driver 384.90's header has no CUDA Version cell.
    nvidia = fact(pasted(body("1535")), "nvidia")
    assert (nvidia.driver_version, nvidia.cuda_version) == ("384.90", None)
    r = capture_checks("1535", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "384.90" in r.message, r.message
    # Modelled: the same header cut inside the version, with no closing bar, names no driver.
    cut = ("+-----------------------------------------------------------------------------+\n"
           "| NVIDIA-SMI 384.90                 Driver Version: 384.9\n")
    assert fact(pasted(cut), "nvidia_driver").__class__.__name__ == "Missing"


def test_a_later_table_cut_at_its_header_keeps_the_earlier_tables_gpus() -> None:
    # Corpus 1527 (NVIDIA/nvidia-container-runtime#189): the host's table (GPU 0 and 1), then a container's run whose
    # output the paste cuts at its table header: that run shows no GPU, so the host's rows stay the GPUs read.
    gpus = fact(pasted(body("1527")), "nvidia").gpus
    assert [(g.index, g.persistence, g.display_active) for g in gpus] == [(0, False, True), (1, False, False)]
    result = capture_checks("1527", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "issue" and "GPU(s) 1;" in result.message  # GPU 0 drives the display
    # Modelled: the same cut header of another driver (a later run after an upgrade) is that driver's run: it replaces.
    text = body("1527").replace("525.85.12    Driver Version: 525.85.12", "535.54.03    Driver Version: 535.54.03")
    first, _, rest = text.partition("[xxx ~]$ docker run")
    later = first.replace("535.54.03    Driver Version: 535.54.03", "525.85.12    Driver Version: 525.85.12") + \
        "[xxx ~]$ docker run" + rest
    assert fact(pasted(later), "nvidia").gpus == ()
