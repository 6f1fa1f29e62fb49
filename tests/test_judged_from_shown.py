"""Verdicts from what a paste shows, and absence only from a whole source (issue 28, blind pastes 176-186).

Each rule has a test on its real paste from the corpus (tests/data/captures) and a modelled counter-example,
written under the test's own tmp_path and marked as modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import load_corpus
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted


def corpus_result(prefix: str, check_id: str) -> Result:
    entry = next(e for e in load_corpus() if e.path.name.startswith(prefix))
    return run_checks(load_pasted([str(entry.path)]), [check_id])[check_id]


def pasted_result(tmp_path: Path, text: str, check_id: str) -> Result:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    return run_checks(load_pasted([str(path)]), [check_id])[check_id]


# --- IC-TOPO-READ from a `topo -p2p` matrix alone ----------------------------------------------------------


def test_topo_p2p_gns_alone_is_the_drivers_policy_on_the_real_paste() -> None:
    # Corpus 176: `nvidia-smi topo -p2p rw` of two GeForce RTX 5090, GNS both ways, no `topo -m`.
    r = corpus_result("176-", "IC-TOPO-READ")
    assert r.status == "not-an-issue" and "GNS" in r.message
    assert r.coverage is not None and r.coverage.shown == ("GPU0-GPU1",) and r.coverage.complete


# Modelled: a `topo -p2p r` cut after GPU1's second cell (GPU1-GPU2 not shown), every cell shown OK.
P2P_CUT = """$ nvidia-smi topo -p2p r
        GPU0    GPU1    GPU2
 GPU0   X       OK      OK
 GPU1   OK      X
"""
# Modelled: a 4-GPU `topo -p2p rw` with NS between GPU0 and GPU1, models unknown (not GeForce policy).
P2P_NS = """$ nvidia-smi topo -p2p rw
        GPU0    GPU1    GPU2    GPU3
 GPU0   X       NS      OK      OK
 GPU1   NS      X       OK      OK
 GPU2   OK      OK      X       OK
 GPU3   OK      OK      OK      X
"""


def test_topo_p2p_all_ok_names_the_pairs_not_shown_and_asks_for_topo_m(tmp_path: Path) -> None:
    r = pasted_result(tmp_path, P2P_CUT, "IC-TOPO-READ")
    assert r.status == "unknown" and "GPU1-GPU2" in r.message and "topo -m" in r.hint
    assert r.coverage is not None and r.coverage.count == 2 and r.coverage.total == 3


def test_topo_p2p_ns_without_a_model_stays_conditional_on_the_pairs_shown(tmp_path: Path) -> None:
    # NS is NVIDIA's policy on GeForce and a platform fault elsewhere: without the model it is a key negative
    # that names the condition (issue 28's conditional findings), judged on the pairs shown.
    r = pasted_result(tmp_path, P2P_NS, "IC-TOPO-READ")
    assert r.status == "not-an-issue" and "GPU0->GPU1 NS" in r.message
    assert "matters only if the GPUs are data-center or workstation cards" in r.message
    assert r.coverage is not None and r.coverage.count == 6 and r.coverage.complete


# --- CTR-MEMLOCK: no RDMA NIC only from a whole source of devices ------------------------------------------


def test_memlock_from_ulimit_alone_is_unknown_on_the_real_paste() -> None:
    # Corpus 185: only `ulimit -a` (max locked memory 64 kB); nothing lists the host's devices.
    r = corpus_result("185-", "CTR-MEMLOCK")
    assert r.status == "unknown" and "64 KiB" in r.message and "RDMA NICs" in r.message


def test_memlock_with_an_rdma_nic_shown_in_an_excerpt_is_still_an_issue(tmp_path: Path) -> None:
    # Modelled: the same ulimit lines beside an NCCL INFO line naming two IB HCAs: presence needs no whole source.
    text = ("$ ulimit -a\nmax locked memory       (kbytes, -l) 64\nopen files                      (-n) 1048576\n"
            "stack size              (kbytes, -s) 8192\n\n"
            "node1:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n")
    r = pasted_result(tmp_path, text, "CTR-MEMLOCK")
    assert r.status == "issue" and "mlx5_0" in r.message


# --- RT-ULIMIT-NOFILE: a soft limit bounds the hard one from below -----------------------------------------


def test_soft_nofile_above_the_target_settles_the_hard_limit_on_the_real_paste() -> None:
    # Corpus 185: open files (-n) 4194304, a soft limit; setrlimit(2) keeps hard >= soft.
    r = corpus_result("185-", "RT-ULIMIT-NOFILE")
    assert r.status == "ok" and "soft 4194304" in r.message


def test_soft_nofile_below_the_target_leaves_the_hard_limit_unknown(tmp_path: Path) -> None:
    # Modelled: `ulimit -a` with open files 1024: the hard limit may be higher (engines raise the soft one).
    text = ("$ ulimit -a\nmax locked memory       (kbytes, -l) 64\nopen files                      (-n) 1024\n"
            "stack size              (kbytes, -s) 8192\n")
    r = pasted_result(tmp_path, text, "RT-ULIMIT-NOFILE")
    assert r.status == "unknown" and "hard not shown" in r.message


# --- `nvidia-smi --version`: the loaded driver's version --------------------------------------------------


def test_nvidia_smi_version_gives_the_driver_and_595_without_gpu_models_stays_unknown() -> None:
    # Corpus 180: `uname -a` (6.19.10) and `nvidia-smi --version` (DRIVER version : 595.58.03); the GPUs' model is
    # only in the thread's prose, and the 595 HMM deadlock is Blackwell-only: no ok from what the paste cannot show.
    r = corpus_result("180-", "KVER-NVIDIA-KERNEL-COMBOS")
    assert r.status == "unknown" and "nvidia 595.58.03" in r.message and "Blackwell" in r.message


# Modelled on 180's lines: `uname -a` (kernel 6.8) and the first two lines of `nvidia-smi --version`.
UNAME_AND_VERSION = ("$ uname -a\nLinux gpu1 6.8.0-52-generic #53-Ubuntu SMP PREEMPT_DYNAMIC Sat Jan 11 00:06:25 UTC "
                     "2025 x86_64 x86_64 x86_64 GNU/Linux\n\n$ nvidia-smi --version\nNVIDIA-SMI version  : 570.86.15\n"
                     "NVML version        : 570.86\n")


def test_nvidia_smi_version_with_a_kernel_and_no_known_bad_pair_is_ok(tmp_path: Path) -> None:
    # Modelled: driver 570.86.15 on kernel 6.8, no known-bad pair whatever the GPUs.
    text = UNAME_AND_VERSION + "DRIVER version      : 570.86.15\nCUDA Version        : 12.8\n"
    r = pasted_result(tmp_path, text, "KVER-NVIDIA-KERNEL-COMBOS")
    assert r.status == "ok" and "nvidia 570.86.15" in r.message


def test_nvidia_smi_version_without_its_driver_line_is_no_driver_evidence(tmp_path: Path) -> None:
    # Modelled: only the nvidia-smi and NVML lines (the driver line cut): no driver version is taken from them.
    r = pasted_result(tmp_path, UNAME_AND_VERSION, "KVER-NVIDIA-KERNEL-COMBOS")
    assert r.status == "unknown" and "570" not in r.message
