"""Issue 28 (versions shown in other forms): DRV-CUDA-COMPAT from NCCL's own init lines.

NCCL prints the CUDA it was built for (`NCCL version 2.21.5+cuda11.8`, with or without its log prefix) and the
CUDA the driver supports (`NCCL INFO cudaDriverVersion 12000`, cudaDriverGetVersion's 1000 * major + 10 * minor).
Where no driver version or torch is shown, the two settle the check: a runtime of the driver's CUDA or older is ok,
a newer one of the same major runs by minor-version compatibility, a newer major is the issue.

Real logs from three threads (corpus 391, 256, 58); the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks


def _compat(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    return r.status, r.message


def test_corpus_391_bare_banner_and_driver_version() -> None:
    status, message = _compat("391")  # NVIDIA/nccl#1320: NCCL 2.21.5+cuda11.8, cudaDriverVersion 12000
    assert status == "ok" and "CUDA 11.8" in message and "CUDA 12.0" in message


def test_corpus_256_older_runtime_is_ok() -> None:
    status, message = _compat("256")  # Azure NC A100: NCCL 2.18.6+cuda11.8, cudaDriverVersion 12020
    assert status == "ok" and "CUDA 12.2" in message


def test_corpus_58_prefixed_lines_are_read() -> None:
    status, message = _compat("58")  # eight L20 in k8s: NCCL 2.20.5+cuda12.4, cudaDriverVersion 12060
    assert status == "ok" and "CUDA 12.4" in message and "CUDA 12.6" in message


def test_modelled_newer_major_than_the_driver_is_the_issue(tmp_path: Path) -> None:
    # Modelled: 391's log on a driver that supports CUDA 11.4 only, with an NCCL built for CUDA 12.4.
    text = body("391").replace("cudaDriverVersion 12000", "cudaDriverVersion 11040").replace("+cuda11.8", "+cuda12.4")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "needs a driver for CUDA 12" in r.message


def test_corpus_967_bare_driver_version_above_the_banner() -> None:
    # NVIDIA/nccl-tests#289: `cudaDriverVersion 12080` without NCCL's prefix, over `NCCL version 2.25.1+cuda12.8`.
    status, message = _compat("967")
    assert status == "ok" and "CUDA 12.8" in message


def test_modelled_bare_driver_version_older_major(tmp_path: Path) -> None:
    # Modelled: 967's two lines on a driver for CUDA 11.8 (11080): the bare line is read, and the NCCL build is newer.
    text = "cudaDriverVersion 11080\nNCCL version 2.25.1+cuda12.8\n"
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "needs a driver for CUDA 12" in r.message


def test_corpus_1361_nccl_built_for_11_3_or_newer_under_an_11_0_driver() -> None:
    # NVIDIA/nccl#955: `cudaDriverVersion 11000` under `NCCL version 2.14.3+cuda11.7`: minor-version compatibility
    # starts the runtime, NCCL's driver-API loader (cudaGetDriverEntryPoint, CUDA 11.3) is refused.
    status, message = _compat("1361")
    assert status == "issue" and "cudaGetDriverEntryPoint" in message and "CUDA 11.0" in message


def test_modelled_nccl_driver_api_floor_is_11_3(tmp_path: Path) -> None:
    # Modelled: 1361's two version lines moved across the floor. A driver for 11.3 meets it (minor-version
    # compatibility then runs the 11.7 build); an NCCL built for 11.2 never loads the driver API that way.
    lines = "NCCL INFO cudaDriverVersion {d}\nNCCL version 2.14.3+cuda{c}\n"
    at_floor = paste_checks(tmp_path, lines.format(d=11030, c="11.7"), "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert at_floor.status == "not-an-issue"
    old_build = paste_checks(tmp_path, lines.format(d=11000, c="11.2"), "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert old_build.status == "not-an-issue"


def test_modelled_nccl_warn_of_a_call_newer_than_the_driver(tmp_path: Path) -> None:
    # Modelled on NVIDIA/nccl#955's title, in NCCL's WARN form: the refusal proves itself, versions shown or not.
    line = "host:1:1 [0] enqueue.cc:100 NCCL WARN Cuda failure 'API call is not supported in the installed CUDA driver'\n"
    r = paste_checks(tmp_path, line, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "cudaErrorCallRequiresNewerDriver" in r.message
    # On an NCCL pair that is otherwise ok (967's lines), the refusal still wins.
    r = paste_checks(tmp_path, "cudaDriverVersion 12080\nNCCL version 2.25.1+cuda12.8\n" + line,
                     "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue"


def test_corpus_2260_nccl_of_cuda_11_beside_a_blackwell_gpu_torch_names_is_the_issue() -> None:
    # pytorch/pytorch#152077: NCCL 2.14.3+cuda11.8 under cudaDriverVersion 12080, torch warning that the GeForce RTX 5090
    # (sm_120) is not compatible with it: a CUDA 11 build has no Blackwell code, whatever the driver runs.
    status, message = _compat("2260")
    assert status == "issue", message
    assert "CUDA 11.x build" in message and "NVIDIA GeForce RTX 5090" in message and "12.8" in message


def test_modelled_nccl_of_cuda_12_beside_a_blackwell_gpu_says_nothing_of_its_minor(tmp_path: Path) -> None:
    # Modelled: 2260's log with a CUDA 12 NCCL (torch's cu12x wheels ship `+cuda12.2` whichever minor torch has; corpus
    # 2265 runs one on RTX 5090s): the two versions decide, as without the GPU.
    text = body("2260").replace("+cuda11.8", "+cuda12.2")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "Blackwell" not in r.message, r.message


def test_modelled_blackwell_in_the_users_words_only_is_not_listed(tmp_path: Path) -> None:
    # Modelled: 2260's NCCL lines and the user's words naming the RTX 5090, without torch's warning: no program lists it.
    text = body("2260").split("### Versions")[0]
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "Blackwell" not in r.message, r.message
