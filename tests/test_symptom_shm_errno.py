"""CTR-SHM-SIZE: the errno of NCCL's shared-memory failure decides (facts/symptoms.py `nccl-shm-create`, `nccl-shm-missing`).

NCCL appends the errno to its failure from 2.19 on (`..., error: No space left on device (28)`). ENOSPC is a full
/dev/shm: an issue, quoted. ENOENT (`No such file or directory (2)`) is a segment another rank created that this rank
cannot find (an NCCL regression, a cuMem handle read as a path, ranks that see different /dev/shm): it rules the size
out where the check's own facts leave it unknown. Real lines are verbatim from the public thread beside each (or a
corpus capture); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

# hiyouga/EasyR1#505 (Vimos): two ranks of a Ray job; the segment path is a cuMem handle read as text (size 0).
EASYR1_505 = """\
(WorkerDict pid=30332) [2025-09-18 23:23:41] is-dbtgkffan5rbutzq-devmachine-0:30332:30423 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or directory
(WorkerDict pid=30332)
(WorkerDict pid=30332) [2025-09-18 23:23:41] is-dbtgkffan5rbutzq-devmachine-0:30332:30423 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-\u040c (size 0), error: No such file or directory (2)
"""
# vllm-project/vllm#18831 (ooooona): the line the title quotes, a 4-GPU A100 host.
VLLM_18831 = ("NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- (size 192814336), error: No such "
              "file or directory (2)\n")
# ai-dynamo/dynamo#1408 (yunzhuangshen): ENOSPC on creation, in a Kubernetes pod.
DYNAMO_1408 = """\
[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-YrFC5V to 33030532 bytes, error: No space left on device (28)

[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:129 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-YrFC5V (size 33030528), error: No space left on device (28)
"""
# Modelled: the creation line alone with ENOSPC (its `failed to extend` line cut from the excerpt).
CREATE_ENOSPC_ALONE = DYNAMO_1408.splitlines()[2] + "\n"


def _shm(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]


def test_enoent_on_attach_rules_out_a_size_limit(tmp_path: Path) -> None:
    # Three threads: NVIDIA/nccl#1589 (corpus 480), EasyR1#505, vllm#18831. None shows a container or a df.
    results = [capture_checks("480", "CTR-SHM-SIZE")["CTR-SHM-SIZE"], _shm(tmp_path, EASYR1_505),
               _shm(tmp_path, VLLM_18831)]
    for result in results:
        assert result.status == "not-an-issue", result.message
        assert "No such file or directory (2)" in result.message
        assert "ENOSPC" in result.message
        assert any("attaching to shared memory segment" in line for line in result.evidence)


def test_enospc_proves_the_size_whatever_the_verb(tmp_path: Path) -> None:
    # Real pastes of the other kind: corpus 194 (pytorch/ci-infra#490), corpus 223, dynamo#1408; the creation line
    # alone with its errno proves it too (modelled cut).
    for result in (capture_checks("194", "CTR-SHM-SIZE")["CTR-SHM-SIZE"],
                   capture_checks("223", "CTR-SHM-SIZE")["CTR-SHM-SIZE"],
                   _shm(tmp_path, DYNAMO_1408), _shm(tmp_path, CREATE_ENOSPC_ALONE)):
        assert result.status == "issue", result.message
        assert "No space left on device" in " ".join(result.evidence)


def test_the_errno_picks_the_row() -> None:
    assert [h.symptom.name for h in find_symptoms(CREATE_ENOSPC_ALONE.splitlines())] == ["nccl-shm-create"]
    assert [h.symptom.name for h in find_symptoms(VLLM_18831.splitlines())] == ["nccl-shm-missing"]
    # Modelled: a creation that fails with ENOENT (no /dev/shm at all) is no size either.
    create_enoent = VLLM_18831.replace("attaching to", "creating")
    assert [h.symptom.name for h in find_symptoms(create_enoent.splitlines())] == ["nccl-shm-missing"]


def test_a_full_dev_shm_on_another_rank_outweighs_a_missing_segment(tmp_path: Path) -> None:
    # Modelled: one rank finds its segment missing, another cannot grow its own: the worse line wins.
    result = _shm(tmp_path, VLLM_18831 + DYNAMO_1408)
    assert result.status == "issue", result.message
    assert any("No space left on device" in line for line in result.evidence)
