"""Issue 28: NCCL before 2.3 printed its warnings without its name, the source file and line before ` WARN `
(`host:pid:tid [0] include/socket.h:311 WARN ...`, NCCL 2.2; `host [0] ... WARN`, 2.0; or the message alone). Such
lines are NCCL's log lines and warnings: the paste is recognised, its host and process are read, a failed call is the
failure the verdict quotes, and the verbs library it could not open means no InfiniBand.

The lines are real, verbatim from the public thread named beside each, except where a test says it models one.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts import serving_logs
from stackaudit.facts.serving_logs import ServingLog, is_nccl_line, is_nccl_warning, nccl_warning_at
from stackaudit.facts.trouble import FAILURE

# https://github.com/NVIDIA/nccl-tests/issues/14 (ysdeal, 2018-08-13), corpus 1555: NCCL 2.2 in an NGC container.
NCCL_TESTS_14 = body("1555").splitlines()
# https://github.com/NVIDIA/nccl/issues/111 (pakio, 2017-09-15): NCCL 2.0, the host's name redacted by the user.
NCCL_111 = "*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused"
# https://github.com/NVIDIA/nccl/issues/210 (guru4elephant, 2019-04-20): the warning quoted without its prefix.
NCCL_210 = "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol"


def test_every_old_form_is_an_nccl_warning() -> None:
    for line in (*NCCL_TESTS_14, NCCL_111, NCCL_210):
        assert serving_logs.is_log_line(line), line
        assert is_nccl_line(line) and is_nccl_warning(line), line
        assert line[nccl_warning_at(line):].startswith(("misc/", "include/")), line


def test_a_failed_call_is_the_failure_and_a_missing_verbs_library_is_not() -> None:
    ibverbs, socket = NCCL_TESTS_14
    assert FAILURE.search(socket) and FAILURE.search(NCCL_111) and FAILURE.search(NCCL_210)
    assert not FAILURE.search(ibverbs)


def test_other_lines_with_warn_are_not_nccl_s() -> None:
    # Modelled: other programs' warnings that hold ` WARN `.
    for line in ("2024-01-01 12:00:00 WARN Socket creation failed", "[W socket.cpp:601] [c10d] WARN x",
                 "main.py:12 WARN something", "kubelet WARN include/socket.h is missing"):
        assert not is_nccl_warning(line), line


def test_the_paste_is_read_as_one_process_of_a_container() -> None:
    log = fact(pasted(body("1555")), "serving_log")
    assert isinstance(log, ServingLog)
    assert log.nccl_hosts == ("e66aa18dc444",) and log.nccl_pids == (3171,) and log.nccl_devices == (0,)
    assert len(log.nccl_warnings) == 2
    assert fact(pasted(body("1555")), "container").in_container  # the host is a container's default hostname
    results = capture_checks("1555", "IC-NIC-GPU-AFFINITY", "CTR-SHM-SIZE", "CTR-IPC-ISOLATION")
    # `Failed to open libibverbs.so[.1]`: no InfiniBand, so no NIC to place.
    assert results["IC-NIC-GPU-AFFINITY"].status == "not-applicable"
    assert results["CTR-SHM-SIZE"].status == "unknown"
    # The container its host names runs no serving engine the paste shows: no ranks split across containers.
    assert results["CTR-IPC-ISOLATION"].status == "not-applicable"
