"""The verdict answers the question the user came with (report/header.py `verdict`), read from every source that
shows it: a hang in the user's words beside the GPU workload the paste names (importers/prose_trouble.py), the
rate the user asks about with the GPU they name filled into the ceiling command, and "Run next" asking each
question's checks first (report/next_steps.QUESTIONS). Real pastes of the corpus, through `audit --from`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import body
from stackaudit.cli.main import main
from stackaudit.facts.gpus import owned_model
from stackaudit.facts.question import TOPICS, asked_checks, asked_clause
from stackaudit.facts.serving_rate import parse_engine_rate
from stackaudit.importers.prose_trouble import says_hang


@pytest.fixture(autouse=True)
def own_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A HOME of this test's own: no `bench` history left by other runs gives a measured rate."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> dict[str, object]:
    paste = tmp_path / "paste.txt"
    paste.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_the_rate_asked_about_and_the_gpu_named_fill_the_ceiling_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 1117: `Is it normal that i get this speeds?`, vLLM's `Avg generation throughput: 72.8 tokens/s, Running:
    # 1 reqs, Waiting: 1 reqs` at a prompt throughput of 0, and `i have 3090`.
    verdict = str(_report(tmp_path, capsys, body("1117"))["verdict"])
    assert "`stackaudit ceiling --model MODEL --gpu 'RTX 3090' --measured 72.8`" in verdict
    assert "TOK/S" not in verdict and "--gpu GPU" not in verdict


@pytest.mark.parametrize(("prefix", "said"), [
    ("1136", "“However, it hangs in 0.15.0.”"),  # beside a vLLM compose, no engine log
    ("844", "gets stuck (and eventually times out)"),  # beside nccl-tests output
    ("915", "I tried to run a DDP code on A40 GPUS and get stuck at the first iteration"),  # beside collect_env
])
def test_a_hang_in_the_users_words_beside_a_gpu_workload_names_the_verdict(
        prefix: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = str(_report(tmp_path, capsys, body(prefix))["verdict"])
    assert verdict.startswith("nothing found below the engine that explains the hang (“")
    assert said.strip("“”") in verdict
    assert "throughput" not in verdict


def test_a_hang_that_a_finding_explains_names_the_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 266: `The rest will result in hanging.` beside topo -m, `all_reduce_perf` named, is still read as the
    # user's hang; the next sentence, `Setting NCCL_P2P_DISABLE=1 did workaround`, is IC-P2P-FUNCTIONAL's issue, which
    # explains it, so the verdict names that finding rather than "nothing found below the engine".
    report = _report(tmp_path, capsys, body("266"))
    assert "trouble" in report["host"]  # type: ignore[operator]
    verdict = str(report["verdict"])
    assert verdict.startswith("fix first: ") and "[IC-P2P-FUNCTIONAL" in verdict


def test_a_freeze_beside_no_gpu_workload_is_not_the_stacks_hang(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 80: `System repeatedly freezes for a short period of time` beside uname and a journal: any program's.
    report = _report(tmp_path, capsys, body("80"))
    assert "trouble" not in report["host"]  # type: ignore[operator]


def test_a_hang_said_not_to_happen_is_none() -> None:
    assert not says_hang("logs for proto=LL. does not stuck but failes.")  # corpus 1102
    assert not says_hang("With NCCL_P2P_DISABLE=1 it doesn't hang any more")  # modelled
    assert says_hang("Without the flag it hangs.")  # modelled: the negation is of another word
    assert says_hang("It worked in 0.14.1 but no longer works: it hangs in 0.15.0")  # modelled


def test_a_window_with_a_request_waiting_and_no_prefill_is_one_streams_rate() -> None:
    line = ("(APIServer pid=1) INFO 04-26 19:07:51 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
            "Avg generation throughput: 72.8 tokens/s, Running: 1 reqs, Waiting: 1 reqs, GPU KV cache usage: 37.1%, "
            "Prefix cache hit rate: 0.0%")  # corpus 1117, line 7
    assert parse_engine_rate(line).tokens_per_s == 72.8
    two = line.replace("Running: 1 reqs", "Running: 2 reqs")  # modelled: two streams decode
    with pytest.raises(Exception, match="no engine throughput line"):
        parse_engine_rate(two)


@pytest.mark.parametrize(("line", "model"), [
    ("i have 3090, and ran it on coolify with this dockercompose:", "RTX 3090"),  # corpus 1117
    ("I have an RTX 4090 and 64 GB of RAM", "RTX 4090"),  # modelled
    ("I am running Docker on my Windows 10 machine and I have a Titan-V GPU", "TITAN V"),  # corpus 1171
    ("I have a Titan RTX", "TITAN RTX"),  # modelled: a TITAN the GPU table has no row for, by its own name
    ("I have 2 3090s", ""),  # a count: _COUNT_PLURAL's
    ("I have a question about NCCL", ""),
])
def test_a_gpu_the_user_says_they_own(line: str, model: str) -> None:
    assert owned_model(line) == model


def test_run_next_asks_a_hangs_checks_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 844: `all_reduce_perf ... gets stuck`: the topology first (IC-), then ACS on the switches (FW-ACS-P2P),
    # before the commands that settle the most checks.
    steps = _report(tmp_path, capsys, body("844"))["run_next"]
    assert isinstance(steps, list)
    assert [s["step"] for s in steps[:2]] == ["nvidia-smi topo -m", "sudo lspci -vvv"]
    assert "FW-ACS-P2P" in steps[1]["settles"]


def test_run_next_asks_a_rates_checks_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 1117: a measured rate on one GPU: its clocks and power limit (PWR-) come first.
    steps = _report(tmp_path, capsys, body("1117"))["run_next"]
    assert isinstance(steps, list)
    assert steps[0]["step"].split()[0] == "nvidia-smi"  # `nvidia-smi -q` where it settles more of them
    assert any(c.startswith("PWR-") for c in steps[0]["settles"])


@pytest.mark.parametrize(("line", "clause", "checks"), [
    # Corpus 626: the clause with the `?`, not the NCCL_DEBUG before it.
    ("I turned on the nccl log using `NCCL_DEBUG=INFO` when I use 2 x 2080Ti GPUs, but how could I know which "
     "NCCL_P2P_LEVEL it uses?", "but how could I know which NCCL_P2P_LEVEL it uses?", ("IC-NCCL-ENV", "IC-TOPO-READ")),
    ("I've been pulling my hair for days to get p2p to work, still nothing... is it the PHB topology? I'm starting to "
     "think that i need a different motherboard", "is it the PHB topology?", ("IC-TOPO-READ",)),  # corpus 913
    # Corpus 1153: `nccl_tests` is no NCCL variable, and the URL's `?` none of its own.
    ("Are there any published benchmarks on what the expected bandwidth will be when moving from single node to "
     "multiple nodes for the nccl_tests https://github.com/NVIDIA/nccl-tests ?", "", ()),
    ("see https://example.com/a?NCCL_P2P_LEVEL=PIX for the guide", "", ()),  # modelled: a query string asks nothing
])
def test_the_question_asked_and_the_checks_that_answer_it(line: str, clause: str, checks: tuple[str, ...]) -> None:
    assert asked_clause(line) == clause
    assert asked_checks(line) == checks


def test_every_topic_names_checks_the_catalogue_holds() -> None:
    from stackaudit.checks.registry import load_all

    ids = set(load_all())
    assert {c for _, checks in TOPICS for c in checks} <= ids


def test_a_question_about_a_setting_gets_its_checks_answer_not_the_throughput_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Corpus 626: two RTX 2080 Ti, NCCL's log, `how could I know which NCCL_P2P_LEVEL it uses?`.
    verdict = str(_report(tmp_path, capsys, body("626"))["verdict"])
    assert verdict.startswith("the question asked (“but how could I know which NCCL_P2P_LEVEL it uses?”) is for "
                              "IC-NCCL-ENV, which this source cannot settle")
    assert "throughput" not in verdict


def test_a_question_a_check_judged_is_answered_with_its_finding(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # Modelled on corpus 1143: its topology matrix (8 GPUs behind two PCIe switches), with the question the thread
    # asks written beside it.
    text = "Is it the PIX topology that makes NCCL slow here?\n" + body("1143")
    verdict = str(_report(tmp_path, capsys, text)["verdict"])
    assert verdict.startswith("to the question asked (“Is it the PIX topology that makes NCCL slow here?”), "
                              "IC-TOPO-READ answers: ")


def test_a_question_about_memory_running_out_is_answered_by_mem_gpu_shared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Corpus 1573's journal (ollama finds 39320 MB of VRAM free on its four GPUs) under a question modelled on its
    issue's title: MEM-GPU-SHARED ok answers it (nothing else holds the memory), with the engine's own budget next."""
    text = ("I have 39GB of VRAM available across 4 GPUs, why does it run out of memory?\n\n" + body("1573"))
    verdict = str(_report(tmp_path, capsys, text)["verdict"])
    assert verdict.startswith("to the question asked (“why does it run out of memory?”), MEM-GPU-SHARED answers: "
                              "fine here, the engine found 39320 MiB free summed over its 4 GPUs")
    assert verdict.endswith("its own budget runs out")
    assert asked_checks("Why does ollama say CUDA error 2: out of memory?") == ("MEM-GPU-SHARED",)
