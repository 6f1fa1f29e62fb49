"""IC-NCCL-ENV from NCCL variables in the user's own words: a line that is only `NCCL_X=value` (the list a run was
given) or `export NCCL_X=value` in a sentence (importers/prose_nccl_env.py, facts/serving_logs.py stated_nccl).

Real lines are quoted from the threads named beside each; the counter-examples say whether they are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import stated_nccl
from stackaudit.importers.recognition import recognise

# https://github.com/ROCm/rccl/issues/1129 (visionscaper, 2024-04-01): the variable, then the test it fixed.
RCCL_1129 = """```
export NCCL_P2P_DISABLE=1
```
After setting this environment variable the test works!
```
$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
rccl-tests: Version develop:3f7f785
# Using devices
#   Rank  0 Pid  36660 on deep-visionscaper3 device  0 [0000:2f:00.0] AMD Instinct MI100
#   Rank  1 Pid  36660 on deep-visionscaper3 device  1 [0000:03:00.0] AMD Instinct MI100
```
"""
# https://github.com/NVIDIA/nccl/issues/631 (hw-protein, 2022-02-04): a claim about a setting, not an assignment.
NCCL_631 = ("So, while trying various things, I confirmed that the model works by setting the variable "
            "NCCL_P2P_DISABLE =1 .")


def test_the_lines_a_user_sets() -> None:
    assert stated_nccl("NCCL_MAX_NCHANNELS=1") == ("NCCL_MAX_NCHANNELS", "1")
    assert stated_nccl("export NCCL_P2P_DISABLE=1") == ("NCCL_P2P_DISABLE", "1")
    assert stated_nccl("I adhoc patched with export NCCL_SOCKET_IFNAME=lo)") == ("NCCL_SOCKET_IFNAME", "lo")
    # Real (NVIDIA/nccl#1609, corpus 971): `set NCCL_X=value` in a sentence, its full stop not the value's.
    assert stated_nccl("I have tried so many ways such as increasing 'timeout' of init_process_group, set "
                       "NCCL_P2P_LEVEL=NVL. But all of them didn't work.") == ("NCCL_P2P_LEVEL", "NVL")
    # Modelled: another word that ends in `set` is no assignment.
    assert stated_nccl("Should I reset NCCL_P2P_LEVEL=NVL first?") is None
    # Real (NVIDIA/nccl#631): words about a setting set nothing.
    assert stated_nccl(NCCL_631) is None
    # Modelled: a continued command line is the engine command's; a log line is NCCL's own.
    assert stated_nccl("NCCL_P2P_DISABLE=1 \\") is None
    assert stated_nccl("host:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC") is None


def test_a_listed_forced_algorithm_is_an_issue() -> None:
    # Corpus 417 (NVIDIA/nccl#340): NCCL_MAX_NCHANNELS=1, NCCL_ALGO=Ring ... listed before the run.
    r = capture_checks("417", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_ALGO=Ring" in r.message and "the user's own words" in r.message


def test_an_exported_socket_interface_disables_nothing() -> None:
    # Corpus 267 (NVIDIA/nccl#1608): "I adhoc patched with export NCCL_SOCKET_IFNAME=lo".
    r = capture_checks("267", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "NCCL_SOCKET_IFNAME=lo" in r.message


def test_an_exported_p2p_disable_is_read(tmp_path: Path) -> None:
    cfg = fact(pasted(RCCL_1129), "nccl_config")
    assert ("NCCL_P2P_DISABLE", "1", "the user's own words") in [(s.name, s.value, s.source) for s in cfg.settings]
    # GPUs whose P2P is not shown: the cost stays conditional (never ok, never a plain issue).
    r = paste_checks(tmp_path, RCCL_1129, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "matters only if" in r.message


def test_corpus_971_nvlink_only_p2p_on_an_nvswitch_host() -> None:
    # Corpus 971 (NVIDIA/nccl#1609): NCCL_P2P_LEVEL=NVL tried on four H800 whose NCCL log builds NVLS communicators.
    r = capture_checks("971", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "NCCL_P2P_LEVEL=NVL" in r.message and "NVLink-connected" in r.message


def test_ray_runtime_env_vars_set_nccl() -> None:
    # corpus 1011 (hiyouga/EasyR1#228): runtime_env.yaml's env_vars turn SHM and P2P off on one host of 4 A100s.
    r = capture_checks("1011", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_SHM_DISABLE" in r.message, r.message
    # Modelled: a sentence with a colon after the name states no value.
    assert stated_nccl("NCCL_DEBUG: INFO is what I use") is None
    assert stated_nccl('  NCCL_DEBUG: "WARN"') == ("NCCL_DEBUG", "WARN")


def test_a_transport_the_run_turned_off_with_a_variable_1058() -> None:
    # corpus 1058 (noonghunna/club-3090#803): two GeForce 3090s without NVLink, whose stock driver gives no P2P.
    line = "Topology note: dual 3090 system, P2P disabled for serving with NCCL_P2P_DISABLE=1"
    assert stated_nccl(line) == ("NCCL_P2P_DISABLE", "1")
    r = capture_checks("1058", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "NCCL_P2P_DISABLE=1" in r.message
    # Real (torch's NCCL error, corpus 221): `run with NCCL_DEBUG=INFO` is advice, not the run's setting.
    assert stated_nccl("unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5") is None


def test_variables_set_before_an_nccl_tests_program_are_the_runs() -> None:
    """Corpus 1149 (NVIDIA/nccl#1773): `NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=SYS NCCL_DEBUG=info ./build/all_reduce_perf
    -g 8 | tail -n 30` at a root prompt, with the tail of NCCL's log and no result table."""
    r = capture_checks("1149", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-an-issue" and "NCCL_P2P_LEVEL=SYS" in r.message


def test_an_assignment_after_the_program_is_an_argument_not_the_runs() -> None:
    """Modelled: `NCCL_ALGO=Ring` after the program is an argument it gets, not a variable its shell sets."""
    spans = recognise("$ ./build/all_reduce_perf -b 8 -e 1G -g 8 NCCL_ALGO=Ring\n", "paste.txt").recognised
    assert not [s for s in spans if s[0] == "prose nccl env"]


def test_variables_named_as_tries_that_did_not_help() -> None:
    from stackaudit.facts.serving_logs import tried_nccl

    # Real (ray-project/ray_lightning#24, corpus 916): a command's leading assignment that did not help.
    assert tried_nccl("Starting the Python training script using `NCCL_IB_DISABLE=1 python tune.py` does not "
                      "help.") == (("NCCL_IB_DISABLE", "1"),)
    # Real (NVIDIA/nccl-tests#216, corpus 895): tries named after `We've tried`, the question still open.
    assert tried_nccl("We've tried increasing shmem size with `--shm-size=1g --ulimit memlock=-1` and various env "
                      "settings like `NCCL_SHM_DISABLE=1` or `NCCL_ALGO=Tree`.") == (
        ("NCCL_SHM_DISABLE", "1"), ("NCCL_ALGO", "Tree"))
    # Real (corpus 895): debug variables a log was taken with are not tries.
    assert tried_nccl("When trying to run any NCCL application, it seems that it always hangs when running on more "
                      "than 2 GPUs (see attached logs with `NCCL_DEBUG=TRACE NCCL_DEBUG_SUBSYS=ALL`.") == ()
    # Modelled: a try the user reports working is a fix the user keeps, not a try.
    assert tried_nccl("I tried `NCCL_P2P_DISABLE=1` and now it works.") == ()
    # Real (corpus 971): `set NCCL_X=value` stays a stated setting, judged as one.
    assert tried_nccl("I have tried so many ways such as increasing 'timeout' of init_process_group, set "
                      "NCCL_P2P_LEVEL=NVL. But all of them didn't work.") == ()


def test_tries_alone_are_not_the_standing_setup() -> None:
    # Corpus 916 and 895: the only NCCL variables shown are tries the user says did not help; the failure stays
    # without them, so they neither cause nor cure it (blind: not-an-issue for both).
    for n, named in (("916", "NCCL_IB_DISABLE=1"), ("895", "NCCL_ALGO=Tree")):
        r = capture_checks(n, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "not-an-issue" and named in r.message and "tries that did not help" in r.message, r.message


def test_tries_stay_out_of_the_settings(tmp_path: Path) -> None:
    # Modelled: a try beside a listed setting; the listed one is judged, the try is not a setting.
    text = "NCCL_ALGO=Ring\nI also tried `NCCL_P2P_DISABLE=1` but it did not help.\n"
    cfg = fact(pasted(text), "nccl_config")
    assert [(s.name, s.value) for s in cfg.settings] == [("NCCL_ALGO", "Ring")]
    assert [(s.name, s.value) for s in cfg.tried] == [("NCCL_P2P_DISABLE", "1")]
    r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_ALGO=Ring" in r.message and "NCCL_P2P_DISABLE" not in r.message, r.message


def test_launcher_option_line_as_the_shell_joins_it() -> None:
    # https://github.com/vllm-project/vllm/issues/12983 (corpus 2118), verbatim: the `/` after the quote joins the value.
    assert stated_nccl('    -e "NCCL_SOCKET_IFNAME=ens121f0"/ \\') == ("NCCL_SOCKET_IFNAME", "ens121f0/")
    # Modelled: `--env=`, an unclosed quote (no word the shell would pass), a variable that is not NCCL's.
    assert stated_nccl("--env=NCCL_DEBUG=INFO") == ("NCCL_DEBUG", "INFO")
    assert stated_nccl('-e "NCCL_IB_HCA=mlx5_0 \\') is None
    assert stated_nccl('\t-e "GLOO_SOCKET_IFNAME=ens121f0"/ \\') is None
