"""Issue 28 (h57f): DRV-CUDA-COMPAT where the runtime's CUDA is not shown but the run's log is dated.

A run dated before a CUDA major came out (its log's timestamps with a year: facts/serving_logs.LogDate) could load no
runtime of that major: every runtime the program shipped was of the newest major released by then or older. A driver
of that major (NCCL's `cudaDriverVersion 12080`, or a driver at the major's floor) runs them all, an older major
directly and a newer minor of its own by minor-version compatibility (drv._MAJOR_SINCE, drv.newest_major_on).

Corpus 1237 is real; the counter-examples are modelled on it and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.checks.drv import newest_major_on


def test_newest_major_by_day() -> None:
    assert newest_major_on("2022-11-30") == 11
    assert newest_major_on("2022-12-08") == 12
    assert newest_major_on("2025-02-24") == 12
    assert newest_major_on("2025-08-01") == 13
    assert newest_major_on("2019-01-01") is None


def test_corpus_1237_nccl_driver_cuda_before_cuda_13() -> None:
    # sgl-project/sglang: `[2025-02-24 14:09:34 TP12] sglang is using nccl==2.21.5`, `NCCL INFO cudaDriverVersion 12080`
    r = capture_checks("1237", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok", r.message
    assert "dates the run 2025-02-24" in r.message and "CUDA 12.8" in r.message and "before CUDA 13.0" in r.message


def test_modelled_run_after_cuda_13_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 1237's log dated after CUDA 13.0 came out: a CUDA 13 runtime needs a newer driver than CUDA 12.8's.
    text = body("1237").replace("[2025-02-24 14:09:34 TP12]", "[2025-09-24 14:09:34 TP12]")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message


def test_modelled_undated_log_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 1237's log without its dated line: nothing bounds the runtime NCCL's program shipped.
    text = "\n".join(line for line in body("1237").splitlines() if "2025-02-24" not in line) + "\n"
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message


def test_corpus_1159_nvidia_smi_date_under_a_tgi_container(tmp_path: Path) -> None:
    # TGI 0.8.2 under `docker run --gpus all`: its tag's release ships CUDA 11.8 (docker.TGI_CUDA), which driver
    # 525.105.17 (CUDA 12.0) runs. Modelled with a tag that names no release (`latest`): the nvidia-smi its launcher
    # prints is dated `Mon Jun  5 16:09:59 2023`, before CUDA 13.0 came out, which settles it as well.
    r = capture_checks("1159", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok", r.message
    assert "text-generation-inference:0.8.2 (CUDA 11.8)" in r.message
    latest = body("1159").replace("text-generation-inference:0.8.2", "text-generation-inference:latest")
    r = paste_checks(tmp_path, latest, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok", r.message
    assert "2023-06-05" in r.message and "driver 525.105.17" in r.message


def test_modelled_driver_below_the_floor_of_its_day_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 1159 with a tag that names no release, on a driver of CUDA 11.8 (520.61.05) in June 2023, when CUDA 12
    # runtimes were out.
    text = (body("1159").replace("525.105.17", "520.61.05 ").replace("CUDA Version: 12.0", "CUDA Version: 11.8")
            .replace("text-generation-inference:0.8.2", "text-generation-inference:latest"))
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status != "ok", r.message


def test_corpus_924_lm_studio_under_a_dated_windows_table() -> None:
    # lmstudio-ai/configs: 'I am running the latest LM Studio' (llama.cpp's runtime) above nvidia-smi dated
    # `Sun Jan 21 17:21:12 2024` on driver 546.33 (CUDA 12.3).
    r = capture_checks("924", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok", r.message
    assert "2024-01-21" in r.message and "llama.cpp" in r.message


def test_modelled_table_without_an_engine_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 924's table without the user's sentence naming LM Studio: no program's runtime to judge.
    text = "\n".join(line for line in body("924").splitlines() if "LM Studio" not in line) + "\n"
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown", r.message


def test_nvidia_smi_date_line_is_read() -> None:
    from stackaudit.facts.serving_logs import log_date_from_nvidia_smi

    date = log_date_from_nvidia_smi("Mon Jun  5 16:09:59 2023       \n+----\n| NVIDIA-SMI 525.105.17 ...\n")
    assert date.day == "2023-06-05"  # corpus 1159's line


def test_ollama_client_at_a_prompt_names_ollama() -> None:
    import pytest

    from stackaudit.facts._parse import ParseError
    from stackaudit.facts.engine_command import stated_engines_from_prompts

    assert stated_engines_from_prompts("\t./ollama ps\n\tnvidia-smi\n").engines == ("ollama",)  # corpus 659
    with pytest.raises(ParseError):
        stated_engines_from_prompts("\tnvidia-smi\n\tdocker ps\n")

