"""Issue 28 (h78d): interconnect and engine-runtime verdicts where both experts of the second reading agree.

- IC-CUSTOM-ALLREDUCE: "lacks GPU P2P capability." without "or P2P test failed" is the wording of the releases whose
  only P2P gate was the driver's report (vLLM before vllm-project/vllm#2760, Aphrodite 0.5): the driver's refusal,
  off by design (corpus 1640). A command at TP 1 with `--disable-custom-all-reduce` is not applicable (corpus 1646).
- RT-OMP: vLLM's "Reducing Torch parallelism from N threads to 1" shows OMP_NUM_THREADS unset and 1 in each worker.
- IC-TOPOLOGY-PLACEMENT: one GPU at work and the rest idle in a whole nvidia-smi table is a job on one GPU (corpus
  1699); an nccl-tests header's device list is not the host's GPU count (corpus 1764).

Real lines are quoted verbatim from the threads named beside each; modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.system import stated_iommu_off

AR = "IC-CUSTOM-ALLREDUCE"
OMP = "RT-OMP"
PLACE = "IC-TOPOLOGY-PLACEMENT"

# A user's deployment notes (vLLM 0.3.0 on V100-PCIE-16GB over Ray, 2024), two workers' lines of the old wording as
# posted, each wrapped after "warning,".
VLLM_030_NOTES = """\
(RayWorkerVllm pid=100969) WARNING 09-10 05:13:58 custom_all_reduce.py:44] Custom allreduce is disabled because your platform lacks GPU P2P capability. To slience this warning,
specifydisable_custom_all_reduce=True explicitly.
(RayWorkerVllm pid=100129) WARNING 09-10 05:09:56 custom_all_reduce.py:44] Custom allreduce is disabled because your platform lacks GPU P2P capability.
To slience this warning, specifydisable_custom_all_reduce=True explicitly.
"""

# https://github.com/vllm-project/vllm/issues/23921 (corpus 1032's thread): the wording of a release with the real test.
VLLM_REAL_TEST = """\
(Worker pid=1592) WARNING 05-11 03:01:18 [custom_all_reduce.py:165] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.
"""

# https://github.com/LMCache/LMCache/issues/1966 (issue body, vLLM V1): the engine core's reduction line.
LMCACHE_1966 = """\
(EngineCore_DP0 pid=8614) WARNING 11-07 11:03:22 [multiproc_worker_utils.py:273] Reducing Torch parallelism from 58 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.
"""

# https://github.com/vllm-project/vllm/issues/14452 (comment by akkoaya): the same line of vLLM 0.8.
VLLM_14452 = """\
WARNING 04-07 16:51:52 [multiproc_worker_utils.py:306] Reducing Torch parallelism from 20 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS in the external environment to tune this value as needed.
"""

# Modelled on corpus 1699's table: two GPUs hold a program's memory.
TWO_BUSY = """\
|   0  TITAN Xp            Off  | 00000000:19:00.0 Off |                  N/A |
| 55%   84C    P2   231W / 250W |  11747MiB / 12196MiB |    100%      Default |
+-------------------------------+----------------------+----------------------+
|   1  TITAN Xp            Off  | 00000000:1A:00.0 Off |                  N/A |
| 50%   80C    P2   200W / 250W |   9747MiB / 12196MiB |     90%      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_driver_only_wording_is_the_drivers_refusal() -> None:
    log = fact(pasted(VLLM_030_NOTES), "serving_log")
    assert "custom_all_reduce.py:44] Custom allreduce is disabled" in log.driver_p2p_refusal
    assert fact(pasted(VLLM_REAL_TEST), "serving_log").driver_p2p_refusal == ""


def test_aphrodite_without_p2p_is_not_an_issue() -> None:
    """Real (dphnAI/sonar#336, corpus 1640): Aphrodite 0.5.0 at TP 2 under WSL."""
    r = capture_checks("1640", AR)[AR]
    assert r.status == "not-an-issue" and "driver reports no P2P" in r.message


def test_old_vllm_wording_is_not_an_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, VLLM_030_NOTES, AR)[AR]
    assert r.status == "not-an-issue", r.message


def test_real_test_wording_without_the_gpus_is_open() -> None:
    """Real (vllm-project/vllm#4770, corpus 241): the real test failed on a pair whose GPUs are not shown; the host may
    be at fault or give no P2P by design (h86b: tests/test_rule_h86b_engines.py)."""
    assert capture_checks("241", AR)[AR].status == "unknown"


def test_flag_at_tp_one_is_not_applicable() -> None:
    """Real (corpus 1646): `--disable-custom-all-reduce` on a command that names no TP size."""
    r = capture_checks("1646", AR)[AR]
    assert r.status == "not-applicable" and "TP=1" in r.message


def test_flag_at_tp_two_is_still_judged(tmp_path: Path) -> None:
    """Modelled: the same flag at TP 2 with nothing of the GPUs shown stays open."""
    text = "vllm serve m --tensor-parallel-size 2 --disable-custom-all-reduce\n"
    assert paste_checks(tmp_path, text, AR)[AR].status == "unknown"


def test_vllm_reduction_line_reads_as_unset(tmp_path: Path) -> None:
    for text in (LMCACHE_1966, VLLM_14452):
        r = paste_checks(tmp_path, text, OMP)[OMP]
        assert r.status == "ok" and "not set" in r.message, r.message
    for prefix in ("1653", "1077"):
        assert capture_checks(prefix, OMP)[OMP].status == "ok"


def test_vllm_reduction_to_more_threads_stays_unknown(tmp_path: Path) -> None:
    """Modelled: a value above 1 needs the CPUs and the workers, which the line does not give."""
    text = VLLM_14452.replace("threads to 1 to", "threads to 4 to")
    assert paste_checks(tmp_path, text, OMP)[OMP].status == "unknown"


def test_one_busy_gpu_of_four_is_not_applicable() -> None:
    """Real (corpus 1699): GPU 0 at 100 % and 11747 MiB, GPUs 1-3 at 0 % and 10 MiB."""
    r = capture_checks("1699", PLACE)[PLACE]
    assert r.status == "not-applicable" and "one GPU of the 4" in r.message


def test_two_busy_gpus_are_not_one(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, TWO_BUSY, PLACE)[PLACE].status != "not-applicable"


def test_test_header_count_is_not_the_hosts() -> None:
    """Real (corpus 1764): `-g 2` without CUDA_VISIBLE_DEVICES on a host of unshown size."""
    assert capture_checks("1764", PLACE)[PLACE].status == "unknown"


def test_test_run_named_by_visible_devices_keeps_every_gpu() -> None:
    """Real (corpus 758): CUDA_VISIBLE_DEVICES=0,...,7 with -g 8 is every GPU of the run's host."""
    assert capture_checks("758", PLACE)[PLACE].status == "not-an-issue"


IOMMU = "FW-IOMMU-MODE"


def test_firmware_menu_setting_states_the_iommu_off() -> None:
    """Real (NVIDIA/nccl#841, corpus 1729): `AMD CBS->NBIO Common option ->IOMMU=Disable`, no device list."""
    r = capture_checks("1729", IOMMU)[IOMMU]
    assert r.status == "ok" and "IOMMU=Disable" in r.message


def test_user_words_iommu_off_is_ok(tmp_path: Path) -> None:
    """Real (NVIDIA/nccl#1160, corpus 421): `I disabled both ACS and IOMMU` in the user's words."""
    assert capture_checks("421", IOMMU)[IOMMU].status == "ok"


def test_rccl_warning_beside_iommu_off_looks_wrong_and_is_not() -> None:
    """Real (ROCm/vllm#390, corpus 974): RCCL's `Missing "iommu=pt"` reads only the command line."""
    assert capture_checks("974", IOMMU)[IOMMU].status == "not-an-issue"


def test_iommu_enabled_in_the_menu_states_nothing() -> None:
    """Modelled: the same menu line set to Enable or Auto, and a question, state no IOMMU off."""
    assert stated_iommu_off("AMD CBS->NBIO Common option ->IOMMU=Disable")
    assert stated_iommu_off("IOMMU: Disabled")
    for line in ("AMD CBS->NBIO Common option ->IOMMU=Enable", "IOMMU = Auto", "Should I set IOMMU=Disabled?"):
        assert not stated_iommu_off(line), line
