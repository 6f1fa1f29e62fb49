"""The GPU device lists ML frameworks print where they start: JAX's and TensorFlow's.

JAX's, as a program prints `jax.devices()` (a Ray task's output, a notebook cell):

    [GpuDevice(id=0, process_index=0), GpuDevice(id=1, process_index=0), GpuDevice(id=2, process_index=0)]

Releases from 0.4.21 name the class `CudaDevice` (`[CudaDevice(id=0), CudaDevice(id=1)]`). Each line holding a
device of the list is recorded verbatim, with whatever prefix the log gives it (Ray's `(test_func pid=..., ip=...)`),
as the pasted document JAX_DEVICES (facts/sources.py); facts/gpus.py reads it.

TensorFlow's GPU device log (tensorflow/core/common_runtime/gpu/gpu_device.cc), as 1.x prints it:

    2018-05-25 00:58:36.702167: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1344] Found device 0 with properties:
    name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.683
    pciBusID: 0000:0b:00.0
    totalMemory: 10.92GiB freeMemory: 10.10GiB
    ... gpu_device.cc:911] Device interconnect StreamExecutor with strength 1 edge matrix:
    ... gpu_device.cc:917]      0
    ... gpu_device.cc:930] 0:   N
    ... gpu_device.cc:1041] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 9768 MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:0a:00.0, compute capability: 6.1)

Releases 2.0 to 2.3 print the properties as `pciBusID: 0000:10:00.0 name: Tesla P40 computeCapability: 6.1` over
`coreClock: ... deviceMemorySize: ...`; later ones `Created device /job:localhost/replica:0/task:0/device:GPU:0 with
14753 MB memory:  -> device: 0, name: ..., pci bus id: ..., compute capability: 8.6`. A device's short description
(`device: N, name: ..., pci bus id: ..., compute capability: X.Y`) also stands in its `Device mapping:` lines and
`device_lib.list_local_devices()`'s `physical_device_desc`. Every `gpu_device.cc` line, a property line and a line
holding a device's short description are recorded verbatim, with their prefix (mpirun's `[1,0]<stderr>:`), as the
pasted document TF_DEVICES; facts/gpus.py and facts/peer_access.py read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.gpus import JAX_DEVICE
from stackaudit.facts.sources import JAX_DEVICES, TF_DEVICES
from stackaudit.importers._scan import Candidates, Scan, candidate_lines, run_end
from stackaudit.importers.registry import Found, document_appended, importer
from stackaudit.pci_address import BDF


@importer("jax devices", "JAX's device list (`[GpuDevice(id=0, process_index=0), ...]`, `[CudaDevice(id=0)]`)",
          needles=("gpudevice(id=", "cudadevice(id="), per_line=True)
def jax_devices(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        if JAX_DEVICE.search(lines[i]):
            yield Found("jax devices", i, i + 1, document_appended(JAX_DEVICES.name, lines[i] + "\n"))


# A line TensorFlow's GPU device log starts from: a gpu_device.cc log line, a property line of `Found device` (1.x's
# name line, the bus line of every release) or a device's short description (GetShortDeviceDescription).
TF_DEVICE_LINE = re.compile(r"\bgpu_device\.cc:\d+\] |\bname: .{1,120}? major: \d+ minor: \d+ memoryClockRate\(GHz\)|"
                            rf"\bpciBusID: {BDF}|\bdevice: \d+, name: .{{1,120}}?, pci bus id: {BDF}")
# The property lines that continue a `Found device` block: the device's memory (1.4 on) or its clock and memory (2.x);
# before 1.4 a line each (`name: GeForce GTX 1080 Ti`, `major: 6 minor: 1 memoryClockRate (GHz) 1.62`, `pciBusID
# 0000:04:00.0`, `Total memory: 10.91GiB`, `Free memory: 10.75GiB`), behind mpirun's tag where it runs the job.
_TF_PROPERTY = re.compile(r"\btotalMemory: [\d.]+\w*B freeMemory: |\bcoreClock: [\d.]+GHz coreCount: \d+ deviceMemorySize:|"
                          r"^(?:\[\d+,\d+\]<std(?:err|out)>:)?\s*(?:name: .{1,120}|major: \d+ minor: \d+ memoryClockRate "
                          rf"\(GHz\) [\d.]+|pciBusID {BDF}|(?:Total|Free) memory: [\d.]+\w*B)\s*$")


def _tf_line(line: str) -> bool:
    return bool(TF_DEVICE_LINE.search(line) or _TF_PROPERTY.search(line))


@importer("tensorflow devices", "TensorFlow's GPU device log (`Found device 0 with properties:` and its property lines, "
          "the `Device interconnect StreamExecutor` edge matrix, `Created TensorFlow device (...) -> physical GPU "
          "(device: 0, name: ..., pci bus id: ...)`)",
          needles=("gpu_device.cc:", "memoryclockrate(ghz)", "pcibusid: ", "pci bus id: "), per_line=True)
def tensorflow_devices(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not TF_DEVICE_LINE.search(lines[i]):
            continue
        end = run_end(lines, i + 1, _tf_line)
        yield Found("tensorflow devices", i, end, document_appended(TF_DEVICES.name, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)
