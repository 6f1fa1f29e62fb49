"""CTR-SHM-SIZE on an NGC image's start-up note (`The SHMEM allocation limit is set to the default of 64MB`) and on a
Triton release before 20.10, which serves every model inside its one server process."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.docker import one_process_triton
from stackaudit.facts.shm import NGC_SHM_BYTES, shm_from_ngc_note

# https://github.com/triton-inference-server/server/issues/3504 (Triton 21.08 on EKS, the issue form cut after it).
NOTE_3504 = """\
**Description**
Deploying triton inference on AWS EKS. Pod crashes with error that the shm-size limit error

NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
   insufficient for the inference server.  NVIDIA recommends the use of the following flags:
   nvidia-docker run --shm-size=1g --ulimit memlock=-1 --ulimit stack=67108864 ...

**Triton Information**
What version of Triton are you using?
21.08
"""

# Modelled on corpus 1767 (triton-inference-server/server#1838): the same start-up output under a release whose
# Python and TensorRT-LLM backends may run processes beside the server.
OUTPUT_1767 = """\
**Triton Information**
nvcr.io/nvidia/tritonserver:{tag}

**Output of the container:**
ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but
       version 440.100 was detected and compatibility mode is UNAVAILABLE.

NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
   insufficient for the inference server.  NVIDIA recommends the use of the following flags:
   nvidia-docker run --shm-size=1g --ulimit memlock=-1 --ulimit stack=67108864 ...

I0728 15:07:31.671315 1 metrics.cc:184] found 2 GPUs supporting NVML
"""


def test_the_ngc_note_reads_as_a_64_mib_dev_shm() -> None:
    shm = shm_from_ngc_note(NOTE_3504)
    assert shm.size_bytes == NGC_SHM_BYTES == 64 * 1024 * 1024 and "SHMEM" in shm.evidence[0]


def test_a_later_triton_with_the_note_is_an_issue(tmp_path: Path) -> None:
    # 21.08 may run Python-backend stubs beside the server: 64 MiB stays a finding (the pod crashed on it).
    r = paste_checks(tmp_path, NOTE_3504, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "issue" and "64 MiB" in r.message
    r = paste_checks(tmp_path, OUTPUT_1767.format(tag="21.08-py3"), "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "issue"


def test_triton_before_20_10_serves_from_one_process(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, OUTPUT_1767.format(tag="20.09-py3"), "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "not-an-issue" and "Triton 20.09" in r.message and "64 MiB" in r.message
    # Modelled: a vLLM run at TP 2 beside the old Triton image is another engine: the Triton release says nothing of it.
    vllm = ("\n$ vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n"
            "INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n")
    r = paste_checks(tmp_path, OUTPUT_1767.format(tag="20.09-py3") + vllm, "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert r.status == "issue"


def test_one_process_triton_reads_the_release_of_triton_images_only() -> None:
    assert one_process_triton("nvcr.io/nvidia/tritonserver:20.06-py3") == "20.06"
    assert one_process_triton("nvcr.io/nvidia/tritonserver:20.10-py3") == ""
    assert one_process_triton("nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3") == ""
    assert one_process_triton("nvcr.io/nvidia/pytorch:20.06-py3") == ""


def test_corpus_1767_triton_20_06_at_64_mib_is_not_an_issue() -> None:
    assert capture_checks("1767", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-an-issue"
