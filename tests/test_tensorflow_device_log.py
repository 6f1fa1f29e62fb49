"""Issue 28 (h76c): TensorFlow's GPU device log is read (importers/jax_devices.py, the kind `tensorflow devices`).

Corpus 1706 (two Horovod processes' TensorFlow 1.x lines, a GTX 1080 Ti each) was refused as nothing recognisable.
Its GPUs now feed the `gpus` fact (facts/gpus.parse_tf_gpus: PCI address, product name, CUDA ordinal), and a whole
edge matrix's `N` between two GPUs feeds `peer_refusals` (facts/peer_access.tf_matrix_refusals). The pastes below are
verbatim lines of other public threads of the class; the modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.gpus import parse_tf_gpus
from stackaudit.facts.peer_access import tf_matrix_refusals
from stackaudit.importers.pasted import load_pasted

# https://github.com/horovod/horovod/issues/893: two Horovod processes, a GeForce RTX 2080 Ti each (TensorFlow 1.13).
HOROVOD_893 = """\
2019-03-07 14:06:11.643736: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10233 MB memory) -> physical GPU (device: 2, name: GeForce RTX 2080 Ti, pci bus id: 0000:1d:00.0, compute capability: 7.5)
2019-03-07 14:06:11.651778: I tensorflow/core/common_runtime/gpu/gpu_device.cc:984] Device interconnect StreamExecutor with strength 1 edge matrix:
2019-03-07 14:06:11.651825: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990]      0
2019-03-07 14:06:11.651853: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1003] 0:   N
2019-03-07 14:06:11.652081: I tensorflow/core/common_runtime/gpu/gpu_device.cc:984] Device interconnect StreamExecutor with strength 1 edge matrix:
2019-03-07 14:06:11.652123: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990]      1
2019-03-07 14:06:11.652130: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1003] 1:   N
2019-03-07 14:06:11.652199: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10233 MB memory) -> physical GPU (device: 0, name: GeForce RTX 2080 Ti, pci bus id: 0000:1b:00.0, compute capability: 7.5)
"""

# https://github.com/tensorflow/tensorflow/issues/24677 ("GPU peer-to-peer access"): four RTX 2080 Ti, every pair N.
TF_24677 = """\
2019-01-03 07:07:29.683339: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1490] Adding visible gpu devices: 0, 1, 2, 3
2019-01-03 07:07:31.374026: I tensorflow/core/common_runtime/gpu/gpu_device.cc:971] Device interconnect StreamExecutor with strength 1 edge matrix:
2019-01-03 07:07:31.374063: I tensorflow/core/common_runtime/gpu/gpu_device.cc:977]      0 1 2 3
2019-01-03 07:07:31.374070: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990] 0:   N N N N
2019-01-03 07:07:31.374075: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990] 1:   N N N N
2019-01-03 07:07:31.374079: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990] 2:   N N N N
2019-01-03 07:07:31.374084: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990] 3:   N N N N
2019-01-03 07:07:31.374707: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1103] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 9854 MB memory) -> physical GPU (device: 0, name: GeForce RTX 2080 Ti, pci bus id: 0000:05:00.0, compute capability: 7.5)
2019-01-03 07:07:31.468037: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1103] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:1 with 10165 MB memory) -> physical GPU (device: 1, name: GeForce RTX 2080 Ti, pci bus id: 0000:06:00.0, compute capability: 7.5)
"""

# https://github.com/deepmodeling/deepmd-kit/pull/905: eight A100-SXM4-40GB, every pair Y (TensorFlow 2.x).
DEEPMD_905 = """\
2021-07-31 11:14:04.131423: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1261] Device interconnect StreamExecutor with strength 1 edge matrix:
2021-07-31 11:14:04.131521: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1267]      0 1 2 3 4 5 6 7
2021-07-31 11:14:04.131532: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 0:   N Y Y Y Y Y Y Y
2021-07-31 11:14:04.131539: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 1:   Y N Y Y Y Y Y Y
2021-07-31 11:14:04.131545: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 2:   Y Y N Y Y Y Y Y
2021-07-31 11:14:04.131553: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 3:   Y Y Y N Y Y Y Y
2021-07-31 11:14:04.131560: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 4:   Y Y Y Y N Y Y Y
2021-07-31 11:14:04.131567: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 5:   Y Y Y Y Y N Y Y
2021-07-31 11:14:04.131574: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 6:   Y Y Y Y Y Y N Y
2021-07-31 11:14:04.131581: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1280] 7:   Y Y Y Y Y Y Y N
2021-07-31 11:14:04.157448: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1406] Created TensorFlow device (/device:GPU:0 with 37571 MB memory) -> physical GPU (device: 0, name: A100-SXM4-40GB, pci bus id: 0000:0e:00.0, compute capability: 8.0)
"""

# https://github.com/NVIDIA/nccl/issues/224 ("horovod with nccl hang all the time"): mpirun's rank tags, TensorFlow 1.13.
NCCL_224 = """\
[1,1]<stderr>:2019-05-15 06:47:09.890434: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1433] Found device 0 with properties:
[1,1]<stderr>:name: Tesla V100-SXM2-32GB major: 7 minor: 0 memoryClockRate(GHz): 1.53
[1,1]<stderr>:pciBusID: 0000:62:00.0
[1,1]<stderr>:totalMemory: 31.72GiB freeMemory: 30.51GiB
[1,1]<stderr>:2019-05-15 06:47:09.890490: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1512] Adding visible gpu devices: 1
[1,3]<stderr>:2019-05-15 06:47:10.015581: I tensorflow/core/common_runtime/gpu/gpu_device.cc:984] Device interconnect StreamExecutor with strength 1 edge matrix:
[1,3]<stderr>:2019-05-15 06:47:10.015636: I tensorflow/core/common_runtime/gpu/gpu_device.cc:990]      3
[1,3]<stderr>:2019-05-15 06:47:10.015645: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1003] 3:   N
[1,3]<stderr>:2019-05-15 06:47:10.016899: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 29665 MB memory) -> physical GPU (device: 3, name: Tesla V100-SXM2-32GB, pci bus id: 0000:8a:00.0, compute capability: 7.0)
"""

# https://github.com/google/automl/issues/729: TensorFlow 2.3's property lines under mpirun's tag.
AUTOML_729 = """\
[1,0]<stderr>:2020-09-03 13:23:48.792738: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1716] Found device 0 with properties:
[1,0]<stderr>:pciBusID: 0000:10:00.0 name: Tesla P40 computeCapability: 6.1
[1,0]<stderr>:coreClock: 1.531GHz coreCount: 30 deviceMemorySize: 22.38GiB deviceMemoryBandwidth: 323.21GiB/s
"""

# https://github.com/tensorflow/tensorflow/issues/14759 ("Version 1.4.0 Can't enable peer access between some devices").
TF_14759 = """\
2017-11-21 13:58:12.914211: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1030] Found device 0 with properties:
name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582
pciBusID: 0000:04:00.0
totalMemory: 10.91GiB freeMemory: 10.72GiB
2017-11-21 13:58:13.249428: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1030] Found device 1 with properties:
name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582
pciBusID: 0000:05:00.0
totalMemory: 10.91GiB freeMemory: 10.74GiB
"""

# https://github.com/tensorflow/tensor2tensor/issues/339: TensorFlow 1.3's property lines, a line each, and its
# refusal lines (gpu_device.cc:847) among them.
T2T_339 = """\
2017-10-06 10:22:22.430552: I tensorflow/core/common_runtime/gpu/gpu_device.cc:955] Found device 7 with properties:
name: Tesla P100-SXM2-16GB
major: 6 minor: 0 memoryClockRate (GHz) 1.4805
pciBusID 0000:8a:00.0
Total memory: 15.89GiB
Free memory: 15.61GiB
2017-10-06 10:22:22.441548: I tensorflow/core/common_runtime/gpu/gpu_device.cc:847] Peer access not supported between device ordinals 0 and 5
2017-10-06 10:22:22.441577: I tensorflow/core/common_runtime/gpu/gpu_device.cc:847] Peer access not supported between device ordinals 0 and 6
"""


def _checks(text: str, *ids: str) -> dict[str, Any]:
    return run_checks(pasted(text), list(ids))


def _kinds(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    return list(load_pasted([str(path)]).record.meta["recognised"])


def test_corpus_1706_is_read_as_tensorflow_devices(tmp_path: Path) -> None:
    kinds = _kinds(tmp_path, body("1706"))
    assert kinds and all(k.startswith("tensorflow devices") for k in kinds), kinds
    gpus = parse_tf_gpus(body("1706"))
    assert gpus.bdfs == ("0000:0a:00.0", "0000:0b:00.0")
    assert {g.model for g in gpus.gpus} == {"GeForce GTX 1080 Ti"}
    assert gpus.by_bdf("0000:0a:00.0").index == 0  # `physical GPU (device: 0, ... 0000:0a:00.0`
    assert gpus.by_bdf("0000:0b:00.0").index is None  # its `Found device N` line is cut off the paste
    assert gpus.count == 2 and gpus.count_unshown  # CUDA's list: a lower bound


def test_corpus_1706_one_gpu_matrices_refuse_nothing() -> None:
    """Each process's matrix is 1x1: its only `N` is the diagonal, no pair; the four shared expectations hold."""
    assert tf_matrix_refusals(body("1706").splitlines()) == ()
    results = capture_checks("1706", "IC-P2P-FUNCTIONAL", "MEM-MIG", "FW-ACS-P2P", "FW-IOMMU-MODE")
    assert {k: r.status for k, r in results.items()} == {
        "IC-P2P-FUNCTIONAL": "unknown", "MEM-MIG": "not-applicable", "FW-ACS-P2P": "unknown", "FW-IOMMU-MODE": "unknown"}
    assert "no data test" in results["IC-P2P-FUNCTIONAL"].message


def test_horovod_processes_each_with_one_gpu() -> None:
    gpus = parse_tf_gpus(HOROVOD_893)
    assert [(g.index, g.bdf) for g in sorted(gpus.gpus, key=lambda g: g.bdf)] == [(0, "0000:1b:00.0"), (2, "0000:1d:00.0")]
    assert tf_matrix_refusals(HOROVOD_893.splitlines()) == ()
    assert _checks(HOROVOD_893, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_geforce_matrix_of_n_is_the_drivers_refusal() -> None:
    # The thread's lines end in a space (TensorFlow's own `"N "` cells), stripped here and put back: either reads.
    assert tf_matrix_refusals([line + " " for line in TF_24677.splitlines()]) == tf_matrix_refusals(TF_24677.splitlines())
    refusals = tf_matrix_refusals(TF_24677.splitlines())
    assert {tuple(sorted(r.pair)) for r in refusals} == {(a, b) for a in range(4) for b in range(a + 1, 4)}
    assert refusals[0].line.endswith("0:   N N N N")
    result = _checks(TF_24677, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "not-an-issue" and "GeForce" in result.message
    gpus = parse_tf_gpus(TF_24677)
    assert gpus.count == 4  # `Adding visible gpu devices: 0, 1, 2, 3` beside two devices shown


def test_matrix_of_y_grants_and_proves_nothing_more() -> None:
    """Y is the driver's yes (cuDeviceCanAccessPeer), no data test: no refusal, and P2P stays unproven."""
    assert tf_matrix_refusals(DEEPMD_905.splitlines()) == ()
    result = _checks(DEEPMD_905, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "unknown"
    assert parse_tf_gpus(DEEPMD_905).gpus[0].model == "A100-SXM4-40GB"


def test_mpirun_tags_and_tf1_properties(tmp_path: Path) -> None:
    gpus = parse_tf_gpus(NCCL_224)
    assert [(g.index, g.bdf, g.model) for g in gpus.gpus] == [
        (0, "0000:62:00.0", "Tesla V100-SXM2-32GB"), (3, "0000:8a:00.0", "Tesla V100-SXM2-32GB")]
    assert tf_matrix_refusals(NCCL_224.splitlines()) == ()
    assert _kinds(tmp_path, NCCL_224) == ["tensorflow devices (lines 1-9)"]


def test_tf2_properties_line() -> None:
    gpus = parse_tf_gpus(AUTOML_729)
    assert [(g.index, g.bdf, g.model) for g in gpus.gpus] == [(0, "0000:10:00.0", "Tesla P40")]
    assert fact(pasted(AUTOML_729), "gpus").bdfs == ("0000:10:00.0",)


def test_a_cut_matrix_proves_nothing() -> None:
    """Modelled: TF_24677's matrix cut after its first row; a row out of order; a run that registered no GPU."""
    lines = TF_24677.splitlines()
    assert tf_matrix_refusals(lines[:4]) == ()
    assert tf_matrix_refusals([*lines[:3], lines[4], lines[3], *lines[5:]]) == ()
    skipped = "2021-06-15 17:58:51.972600: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1757] Cannot dlopen some " \
              "GPU libraries. Skipping registering GPU devices..."
    assert tf_matrix_refusals([skipped, *lines]) == ()


def test_two_processes_calling_their_own_gpu_device_0() -> None:
    """Modelled: CUDA_VISIBLE_DEVICES per process, each GPU `device: 0`: the ordinal names two GPUs and is dropped."""
    text = "".join(
        f"2023-10-05 16:57:00.30377{i}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1639] Created device "
        f"/job:localhost/replica:0/task:0/device:GPU:0 with 38341 MB memory:  -> device: 0, name: NVIDIA A100-SXM4-40GB, "
        f"pci bus id: 0000:{bus}:00.0, compute capability: 8.0\n" for i, bus in enumerate(("07", "46")))
    gpus = parse_tf_gpus(text)
    assert [(g.index, g.bdf) for g in gpus.gpus] == [(None, "0000:07:00.0"), (None, "0000:46:00.0")]


def test_a_rocm_build_names_amd_gpus() -> None:
    """Modelled on TensorFlow-ROCm's line (no compute capability): another vendor's GPU, never counted as NVIDIA's."""
    text = ("2025-10-12 14:59:16.842549: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
            "/device:GPU:0 with 94875 MB memory:  -> device: 0, name: AMD Instinct MI300A, pci bus id: 0000:01:00.0\n")
    gpus = parse_tf_gpus(text)
    assert not gpus.gpus and gpus.others and "AMD Instinct MI300A" in gpus.others[0]


@pytest.mark.parametrize("line", [
    "Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0",  # p2pBandwidthLatencyTest's own
    "pciBusID: 0x3b",
])
def test_other_programs_bus_lines_are_not_tensorflows(line: str) -> None:
    from stackaudit.importers.jax_devices import TF_DEVICE_LINE

    assert TF_DEVICE_LINE.search(line) is None


def test_tf14_found_device_blocks(tmp_path: Path) -> None:
    assert _kinds(tmp_path, TF_14759) == ["tensorflow devices (lines 1-8)"]
    gpus = fact(pasted(TF_14759), "gpus")
    assert [(g.index, g.bdf, g.model) for g in gpus.gpus] == [
        (0, "0000:04:00.0", "GeForce GTX 1080 Ti"), (1, "0000:05:00.0", "GeForce GTX 1080 Ti")]


def test_tf13_property_lines_and_refusal_lines(tmp_path: Path) -> None:
    assert _kinds(tmp_path, T2T_339) == ["tensorflow devices (lines 1-8)"]
    host = pasted(T2T_339)
    assert [(g.index, g.bdf, g.model) for g in fact(host, "gpus").gpus] == [(7, "0000:8a:00.0", "Tesla P100-SXM2-16GB")]
    assert fact(host, "peer_refusals").pairs == (frozenset((0, 5)), frozenset((0, 6)))


def test_tf13_creating_device_line() -> None:
    """Modelled on TensorFlow 1.3's `Creating TensorFlow device` line, with no compute capability."""
    line = ("2017-09-05 16:04:26.350504: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1045] Creating TensorFlow "
            "device (/gpu:0) -> (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:04:00.0)")
    assert [(g.index, g.bdf) for g in parse_tf_gpus(line).gpus] == [(0, "0000:04:00.0")]
