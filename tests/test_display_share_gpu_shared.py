"""A display on the only GPU a paste shows (h65e): MEM-GPU-SHARED reads it as the GPU any engine on the host uses.
A display there holding a tenth of the card or more, or one whose memory row is cut beside a named engine, is an
issue (low), not a desktop's note; under a tenth it stays a note; on native Windows (WDDM) it is not an issue,
serving or not. And a device plugin's time-slicing config whose own log ends before it reached the GPUs is reported,
not judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks

CHECK = "MEM-GPU-SHARED"

# Modelled on corpus 1377 (ollama/ollama#8647): one GTX 1660 driving the display; the memory cell is filled in.
ROW = """\
|   {i}  NVIDIA GeForce GTX 1660        Off |   00000000:0{b}:00.0 {d} |                  N/A |
|  0%   48C    P0             17W /  130W |    {used}MiB /   6144MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
HEAD = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.120                Driver Version: 550.120        CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""


def _table(*rows: tuple[str, int]) -> str:
    return HEAD + "".join(ROW.format(i=i, b=i + 1, d=d, used=used) for i, (d, used) in enumerate(rows)) + "\n"


@pytest.mark.parametrize("number", ["952", "1013", "1377"])
def test_display_holding_a_tenth_of_the_only_gpu_is_an_issue(number: str) -> None:
    """952 (1260 of 8192 MiB), 1013 (416 of 4096), 1377 (1602 of 6144): the desktop on a small card."""
    result = capture_checks(number, CHECK)[CHECK]
    assert result.status == "issue", result.message
    assert "a tenth of its memory or more" in result.message and result.severity == "low"
    assert result.coverage is not None and len(result.coverage.shown) == 1


def test_display_beside_a_named_engine_with_its_memory_cut_is_an_issue() -> None:
    """1378: ollama's journal line, and the table cut before GPU 0's memory row."""
    result = capture_checks("1378", CHECK)[CHECK]
    assert result.status == "issue", result.message
    assert "(ollama)" in result.message and "not in this source" in result.message


@pytest.mark.parametrize("number", ["318", "568", "1389", "1100"])
def test_display_under_a_tenth_stays_a_note(number: str) -> None:
    """318 (2881 of 32607 MiB beside ollama's ps), 568, 1389, 1100: a desktop's share."""
    assert capture_checks(number, CHECK)[CHECK].status == "not-an-issue"


def test_display_on_a_windows_serving_gpu_is_not_an_issue() -> None:
    """1348: llama-server's layers fill the WDDM GPU that drives the Windows desktop."""
    result = capture_checks("1348", CHECK)[CHECK]
    assert result.status == "not-an-issue", result.message
    assert "WDDM" in result.message


def test_modelled_one_gpu_share(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, _table(("On", 1602)), CHECK)[CHECK].status == "issue"
    assert paste_checks(tmp_path, _table(("On", 500)), CHECK)[CHECK].status == "not-an-issue"


def test_modelled_display_gpu_beside_another_gpu_is_a_note(tmp_path: Path) -> None:
    """The display's GPU is not the only one: an engine may serve on the other."""
    result = paste_checks(tmp_path, _table(("On", 1602), ("Off", 2)), CHECK)[CHECK]
    assert result.status == "not-an-issue", result.message


def test_modelled_cut_memory_row_needs_a_named_engine(tmp_path: Path) -> None:
    """Corpus 1378's table and journal line: without the journal line nothing names an engine."""
    text = body("1378")
    table = text[text.index("nvidia-smi \n"):]
    assert paste_checks(tmp_path, table, CHECK)[CHECK].status == "not-an-issue"
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "issue"


def test_time_slicing_of_a_plugin_that_never_reached_the_gpus_is_reported() -> None:
    """1387: the plugin's config dump (replicas 5), then `Retreiving plugins.` and a crash loop."""
    result = capture_checks("1387", CHECK)[CHECK]
    assert result.status == "unknown", result.message
    assert "x5" in result.message and "Retreiving plugins." in result.message


def test_time_slicing_helm_values_stay_an_issue() -> None:
    """1172: the operator's Helm values, no plugin log."""
    assert capture_checks("1172", CHECK)[CHECK].status == "issue"


def test_modelled_plugin_that_registered_shares_the_gpu(tmp_path: Path) -> None:
    """Corpus 1387's log, continued (modelled) to the plugin's registration with the kubelet."""
    text = body("1387") + ("2024/05/29 09:29:45 Starting GRPC server for 'nvidia.com/gpu'\n"
                           "2024/05/29 09:29:45 Registered device plugin for 'nvidia.com/gpu' with Kubelet\n")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "issue"


def test_modelled_larger_card_leaves_a_model_room(tmp_path: Path) -> None:
    """The same 1602 MiB on a 12 GB card is 13 %, but a model keeps over 10 GB: a note (corpus 165's 10 GB RTX 3080
    at 1092 MiB is the real case)."""
    text = _table(("On", 1602)).replace("6144MiB", "12288MiB")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "not-an-issue"


# Windows nvidia-smi tables (TCC/WDDM column, Disp.A N/A as laptop GeForces read it) from public pastes, cut before
# their process box: a GeForce GT 735M under R425 (a TensorFlow script's notes, 37 of 1024 MiB), a GeForce at 165 of
# 3072 MiB under R474 (a WSL set-up guide's PowerShell step), and a two-GPU GeForce R474 table whose GPU 1 holds 524 of
# 1024 MiB. Corpus 2096 is the GT 740M's (LostRuins/koboldcpp#1272, 38 of 2048 MiB).
WDDM_HEAD = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI {v}       Driver Version: {v}       CUDA Version: {c}     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
"""
WDDM_ROW = """\
|   {i}  {name:<19}WDDM  | 00000000:0{b}:00.0 N/A |                  N/A |
| N/A   58C    P0    N/A /  N/A |   {used:>4}MiB / {total:>5}MiB |     N/A      Default |
+-------------------------------+----------------------+----------------------+
"""


def _wddm(version: str, cuda: str, *rows: tuple[str, int, int]) -> str:
    return WDDM_HEAD.format(v=version, c=cuda) + "".join(
        WDDM_ROW.format(i=i, b=i + 1, name=name, used=used, total=total)
        for i, (name, used, total) in enumerate(rows)) + "\n"


def test_a_laptops_wddm_gpu_holding_a_contexts_share_is_not_an_issue() -> None:
    """Corpus 2096: a GT 740M under WDDM, Disp.A N/A, 38 of 2048 MiB, its process box cut."""
    result = capture_checks("2096", CHECK)[CHECK]
    assert result.status == "not-an-issue" and "38 of 2048 MiB" in result.message


@pytest.mark.parametrize(("version", "cuda", "name", "used", "total"), [
    ("425.31", "10.1", "GeForce GT 735M", 37, 1024),
    ("474.82", "11.4", "NVIDIA GeForce ...", 165, 3072),
])
def test_wddm_tables_cut_before_their_process_box(tmp_path: Path, version: str, cuda: str, name: str, used: int,
                                                 total: int) -> None:
    got = paste_checks(tmp_path, _wddm(version, cuda, (name, used, total)), CHECK)[CHECK]
    assert got.status == "not-an-issue"


def test_a_wddm_gpu_holding_half_its_memory_stays_unknown(tmp_path: Path) -> None:
    """The two-GPU R474 table: GPU 1 holds 524 of 1024 MiB, a model's share whose holder the cut box hides."""
    text = _wddm("474.14", "11.4", ("NVIDIA GeForce ...", 39, 1024), ("NVIDIA GeForce ...", 524, 1024))
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"


def test_modelled_linux_table_with_disp_a_na_stays_unknown(tmp_path: Path) -> None:
    """Modelled: the GT 740M's row under Linux's Persistence-M column: a display N/A there may be a desktop on a
    serving GPU, so the WDDM rule does not apply."""
    text = body("2096").replace("TCC/WDDM", "Persistence-M").replace("GeForce GT 740M    WDDM", "GeForce GT 740M    Off ")
    assert "WDDM" not in text
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"


# --- half the memory in use, the process box cut, no engine named (h103c) --------------------------------------------

_BOX = """\
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A            2104      G   /usr/lib/xorg/Xorg                      412MiB |
|    0   N/A  N/A           88412      C   python3                               20260MiB |
+-----------------------------------------------------------------------------------------+
"""


def test_display_gpu_half_full_with_its_process_box_cut_is_reported() -> None:
    # Corpus 2326 (its header names the thread): an RTX 5090 driving the display holds 20703 of 32607 MiB, the box cut
    # at its header: a model's or the desktop's programs' memory, the source does not say.
    r = capture_checks("2326", CHECK)[CHECK]
    assert r.status == "unknown" and "process box is not in this source" in r.message


def test_modelled_2326_with_its_process_box_is_a_display_on_a_serving_gpu(tmp_path: Path) -> None:
    # Modelled: corpus 2326 with the box whole: a python process holds the model beside Xorg on the display GPU.
    text = body("2326")
    text = text[:text.index("| Processes:")] + _BOX
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and "display is active" in r.message


def test_modelled_2326_beside_a_named_engine_is_a_display_on_a_serving_gpu(tmp_path: Path) -> None:
    # Modelled: corpus 2326 with the user's vLLM command above the table: the memory is the engine's model.
    text = "vllm serve Qwen/Qwen2.5-14B-Instruct --gpu-memory-utilization 0.6\n\n" + body("2326")
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and "display is active" in r.message


@pytest.mark.parametrize("number", ["470", "15", "1977"])
def test_display_gpu_half_full_busy_or_beside_another_stays_an_issue(number: str) -> None:
    # Corpus 470: one RTX 4090 at 99 % holding 16727 MiB; 15 and 1977: two GPUs each holding most of their memory (a
    # model over both), the display on one of them.
    r = capture_checks(number, CHECK)[CHECK]
    assert r.status == "issue" and "display is active" in r.message


def test_modelled_2326_busy_is_a_display_on_a_serving_gpu(tmp_path: Path) -> None:
    # Modelled: corpus 2326's GPU at 97 %: it computes, so its memory is work, not the desktop's.
    text = body("2326").replace("32607MiB |      1%      Default", "32607MiB |     97%      Default")
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue"
