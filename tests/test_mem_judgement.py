"""Issue 28: MEM-MIG and MEM-GPU-SHARED judge what the paste shows, never assume intent or serving work.

MIG enabled on purpose is read from the paste's own lines: a device plugin's MIG strategy, the MIG manager's
layout label and MIG resources are written by whoever set MIG up (facts/mig_setup.py); with one shown and no
engine running TP > 1, MEM-MIG is not an issue. A display is an issue only on a GPU that shows serving work.
Lines are verbatim from the public threads named beside each; the counter-examples are modelled or real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.mig_setup import parse_mig_setup
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"


@pytest.mark.parametrize("line", [
    "with migstrategy=single",  # NVIDIA/k8s-device-plugin#257 (anaconda2196)
    'turn mig on a device and deploy https://github.com/NVIDIA/k8s-device-plugin/blob/master/nvidia-device-plugin.yml '
    'with  "--mig-strategy=single" in its args section',  # NVIDIA/k8s-device-plugin#229 (Omoong)
    "      migStrategy: mixed",  # NVIDIA/gpu-operator#704 (lengrongfu)
    "  nvidia.com/mig-1g.10gb:  6",  # NVIDIA/gpu-operator#637 (xhejtman), the node's allocatable
    '        nvidia.com/mig-1g.10gb: "1"',  # NVIDIA/k8s-device-plugin#728 (lengrongfu), a pod's limits
])
def test_lines_that_set_mig_up(line: str) -> None:
    assert parse_mig_setup(line).lines == (line.strip(),)


@pytest.mark.parametrize("line", [
    "      migStrategy: none",  # modelled: the strategy that turns MIG handling off
    "nvidia.com/mig.config=all-disabled",  # modelled: the MIG manager's layout with MIG off
    # NVIDIA/k8s-device-plugin's help text (Project-HAMi/HAMi#1014): names the flag, sets nothing.
    '[none | single | mixed] (default: "none") [$MIG_STRATEGY] --fail-on-init-error',
])
def test_lines_that_do_not(line: str) -> None:
    with pytest.raises(ParseError):
        parse_mig_setup(line)


def _mig(tmp_path: Path, text: str) -> tuple[str, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    r = run_checks(load_pasted([str(path)]), ["MEM-MIG"])["MEM-MIG"]
    return r.status, r.message


def _body_284() -> str:
    text = next(CAPTURES.glob("284-*.txt")).read_text()
    return text.split("# ----- end of header; everything below this line is the capture, verbatim -----\n", 1)[1]


def test_corpus_284_mig_with_the_device_plugins_strategy_is_deliberate(tmp_path: Path) -> None:
    status, message = _mig(tmp_path, _body_284())
    assert status == "not-an-issue", message
    assert "migstrategy=single" in message


def test_the_same_table_without_the_strategy_is_deliberate_by_its_instances(tmp_path: Path) -> None:
    # The strategy line taken out: MIG switched on by hand, a MIG devices table, and no engine shown.
    status, message = _mig(tmp_path, _body_284().replace("with migstrategy=single\n", ""))
    assert status == "not-an-issue", message


# --- MEM-GPU-SHARED: a display matters only on a GPU that serves --------------------------------------


@pytest.mark.parametrize("prefix", ["112", "165", "201", "251"])
def test_a_display_on_a_gpu_without_serving_work_is_a_note(prefix: str) -> None:
    # A laptop RTX A2000 at 172 MiB, a desktop RTX 3080 at 1092 MiB, a GTX 1080 Ti at 53 MiB and a 6 GB desktop
    # card at 202 MiB, each driving the display with no engine, GPU container or compute process shown.
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{prefix}-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "not-an-issue", r.message
    assert "only where that GPU serves" in r.message


@pytest.mark.parametrize("prefix", ["15", "155", "162"])
def test_a_display_on_a_serving_gpu_stays_an_issue(prefix: str) -> None:
    # Counter-examples from real pastes: 21.8 GB held beside the display (vLLM, corpus 15), 22.6 GB (llama.cpp,
    # corpus 155), and an Ollama container given the only GPU (corpus 162).
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{prefix}-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "issue" and "display" in r.message


# --- MEM-GPU-SHARED: a row's used memory where the process box is not shown ---------------------------------------


def test_an_idle_rows_driver_reserve_is_no_process(tmp_path: Path) -> None:
    # Corpus 1227: two A100 80GB PCIe (R535) at 4MiB and 0 %, the table ending before its Processes box: the driver's
    # own reserve, no process. Modelled from it: 96 MiB on each is a CUDA context (74 MiB on a K40m, corpus 1465, the
    # smallest shown), more than a reserve: never ok, and (h69f) no more than a desktop's share, under a tenth of the
    # GPU, so not an issue whoever holds it; 8 GiB on each stays unknown, over the GPUs whose memory the rows show.
    from corpus import body, paste_checks

    r = run_checks(load_pasted([str(next(CAPTURES.glob("1227-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "ok" and "GPU 0 4 MiB used" in r.message, r.message
    more = body("1227").replace("      4MiB / 81920MiB", "     96MiB / 81920MiB")
    assert "96MiB / 81920MiB" in more
    r = paste_checks(tmp_path, more, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert r.status == "not-an-issue" and "memory is held (GPU 0 96 of 81920 MiB" in r.message, r.message
    assert r.coverage is not None and r.coverage.text() == "2 of 2 GPUs shown", r.coverage
    most = body("1227").replace("      4MiB / 81920MiB", "   8192MiB / 81920MiB")
    r = paste_checks(tmp_path, most, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert r.status == "unknown" and "memory is held (GPU 0 8192 MiB used" in r.message, r.message
    assert r.coverage is not None and r.coverage.text() == "2 of 2 GPUs shown", r.coverage


@pytest.mark.parametrize(("prefix", "used"), [("1419", "GPU 0 10 MiB used"), ("1443", "GPU 0 9 MiB used"),
                                              ("1265", "GPU 0 33 MiB used")])
def test_a_reserve_of_tens_of_mib_is_no_process(prefix: str, used: str) -> None:
    # Corpus 1419 (RTX 3070, R535: 10MiB), 1443 (Tesla T4, R530: 9MiB), 1265 (a laptop GeForce under WSL 2, R527:
    # 33MiB): Disp.A Off, 0 %, the table cut before its Processes box. Some drivers keep tens of MiB for themselves
    # on a headless GPU; no CUDA context is that small.
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{prefix}-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "ok" and used in r.message, r.message


def test_no_ok_over_an_idle_gpu_beside_one_holding_memory() -> None:
    # Corpus 347: GPU 2 at 10MiB (a reserve) beside GPUs 0-1 holding 966MiB each at 100 %, the process box cut: whose
    # memory that is is not shown, and the idle GPU does not make the verdict ok; 966 of 32502 MiB is no more than a
    # context's share, so (h69f) not an issue, judged over the GPUs holding it.
    r = run_checks(load_pasted([str(next(CAPTURES.glob("347-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "not-an-issue" and "GPU 0 966 of 32502 MiB, GPU 1 966 of 32502 MiB" in r.message, r.message
    assert set(r.subjects) == {"0000:1b:00.0", "0000:1e:00.0"}, r.subjects


@pytest.mark.parametrize(("prefix", "gpus", "coverage"), [("1465", "GPU(s) 0 ", "1 of 2 GPUs shown"),
                                                          ("1466", "GPU(s) 0,1,2 ", "3 GPUs shown")])
def test_an_exclusive_gpu_holding_a_context_is_taken(prefix: str, gpus: str, coverage: str) -> None:
    # Corpus 1465 (Tesla K40m, `E. Process`, 74MiB at 0 %; GPU 1's row cut before its mode) and 1466 (three V100s,
    # `E. Process`, 9000-13968MiB at 98-100 %), the process boxes cut and no engine shown: in Exclusive_Process the
    # context held keeps every other process off the GPU.
    r = run_checks(load_pasted([str(next(CAPTURES.glob(f"{prefix}-*.txt")))]), ["MEM-GPU-SHARED"])["MEM-GPU-SHARED"]
    assert r.status == "issue" and gpus + "run in Exclusive_Process" in r.message, r.message
    assert r.coverage is not None and r.coverage.text() == coverage, r.coverage


def test_an_exclusive_gpu_beside_a_named_engine_stays_open(tmp_path: Path) -> None:
    # Modelled from corpus 1465: the same table under a vLLM command line. The context held may be that engine's own:
    # the table (its process box cut) does not say, so no issue is read from the compute mode.
    from corpus import body, paste_checks

    text = "$ vllm serve facebook/opt-125m --gpu-memory-utilization 0.9\n" + body("1465")
    r = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert r.status == "unknown" and "memory is held (GPU 0 74 MiB used" in r.message, r.message


def test_an_exclusive_gpu_at_its_reserve_is_free(tmp_path: Path) -> None:
    # Modelled from corpus 1465: the same K40m at 0MiB in `E. Process` holds no context: nothing keeps a process off.
    from corpus import body, paste_checks

    free = body("1465").replace("     74MiB / 11439MiB", "      0MiB / 11439MiB")
    assert "  0MiB / 11439MiB" in free
    r = paste_checks(tmp_path, free, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert r.status == "ok", r.message
