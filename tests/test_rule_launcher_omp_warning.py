"""RT-OMP read from the torch.distributed launcher's own warning, where no process environment is in the paste
(issue 28, blind run H: capture 341)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "RT-OMP"

# https://github.com/hailanyi/CasA/issues/26 (issue body): the warning of torch.distributed.run, verbatim.
CASA_26 = """\
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
"""

# https://github.com/open-mmlab/mmselfsup/issues/731 (issue body): torch.distributed.launch's deprecation, then the
# same warning and mmengine's MKL one, verbatim.
MMSELFSUP_731 = """\
  FutureWarning,
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
/opt/conda/lib/python3.7/site-packages/mmengine/utils/dl_utils/setup_env.py:57: UserWarning: Setting MKL_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
"""


def test_launcher_warning_with_nccl_log_is_not_an_issue() -> None:
    """Real (pytorch#72835, capture 341): the banner above an NCCL INFO log."""
    r = capture_checks("341", CHECK)[CHECK]
    assert r.status == "not-an-issue" and "torch.distributed launcher" in r.message
    assert any("Setting OMP_NUM_THREADS" in e for e in r.evidence)


def test_launcher_warning_alone_is_not_an_issue(tmp_path: Path) -> None:
    """Real (CasA#26): the banner is the whole paste."""
    assert paste_checks(tmp_path, CASA_26, CHECK)[CHECK].status == "not-an-issue"


def test_launcher_warning_among_other_warnings_is_not_an_issue(tmp_path: Path) -> None:
    """Real (mmselfsup#731): the MKL line of mmengine is not the launcher's."""
    assert paste_checks(tmp_path, MMSELFSUP_731, CHECK)[CHECK].status == "not-an-issue"


def test_a_launcher_value_above_one_stays_unknown(tmp_path: Path) -> None:
    """Modelled: a value above 1 needs the CPUs and the ranks per host, which the warning does not give."""
    text = CASA_26.replace("to be 1 in default", "to be 8 in default")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"


# llama.cpp's `system_info:` line of an OpenMP build (issue 28, blind CS: corpus 2478): the team of --threads and the
# CPUs llama.cpp counts.
GGML_SYSTEM_INFO = ("system_info: n_threads = 64 (n_threads_batch = 64) / 24 | CUDA : ARCHS = 890 | USE_GRAPHS = 1 | "
                    "CPU : SSE3 = 1 | AVX2 = 1 | LLAMAFILE = 1 | OPENMP = 1 | AARCH64_REPACK = 1 | \n")


def test_ggml_openmp_team_above_the_cpus_is_an_issue() -> None:
    """Real (ggml-org/llama.cpp#11635, corpus 2478): --threads 64 on the 24 CPUs llama.cpp counts, OPENMP = 1."""
    r = capture_checks("2478", CHECK)[CHECK]
    assert r.status == "issue" and "64 threads on the 24 CPUs" in r.message
    assert any("OPENMP = 1" in e for e in r.evidence)
    # The fix is llama.cpp's own flag, not the variable a Python engine's workers read.
    assert r.fix is not None and "--threads" in r.fix.steps[0].does and "OMP_NUM_THREADS" not in r.fix.steps[0].does


def test_ggml_openmp_team_within_the_cpus_is_ok() -> None:
    """Real (corpus 1825, another thread): 16 threads of an OpenMP build on 32 CPUs."""
    r = capture_checks("1825", CHECK)[CHECK]
    assert r.status == "ok" and "16 threads on the 32 CPUs" in r.message


def test_ggml_build_without_openmp_stays_unknown(tmp_path: Path) -> None:
    """Modelled: the same line of a build without OpenMP (its own thread pool) runs no OpenMP team."""
    assert paste_checks(tmp_path, GGML_SYSTEM_INFO, CHECK)[CHECK].status == "issue"
    text = GGML_SYSTEM_INFO.replace("OPENMP = 1", "OPENMP = 0")
    assert paste_checks(tmp_path, text, CHECK)[CHECK].status == "unknown"
    assert paste_checks(tmp_path, text.replace("OPENMP = 0 | ", ""), CHECK)[CHECK].status == "unknown"


def test_ggml_threads_pattern_is_bounded() -> None:
    """A 200 000-character line holds no match and returns at once."""
    import time

    from stackaudit.facts.serving_logs import GGML_OPENMP, GGML_THREADS

    line = "system_info: n_threads = " + "1" * 100_000 + " (n_threads_batch = " + "| OPENMP = " * 9_000
    start = time.perf_counter()
    assert GGML_THREADS.search(line) is None and GGML_OPENMP.search(line) is None
    assert time.perf_counter() - start < 0.5
