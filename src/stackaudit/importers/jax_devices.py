"""JAX's device list, as a program prints `jax.devices()` (a Ray task's output, a notebook cell):

    [GpuDevice(id=0, process_index=0), GpuDevice(id=1, process_index=0), GpuDevice(id=2, process_index=0)]

Releases from 0.4.21 name the class `CudaDevice` (`[CudaDevice(id=0), CudaDevice(id=1)]`). Each line holding a
device of the list is recorded verbatim, with whatever prefix the log gives it (Ray's `(test_func pid=..., ip=...)`),
as the pasted document JAX_DEVICES (facts/sources.py); facts/gpus.py reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import JAX_DEVICES
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer

JAX_DEVICE = re.compile(r"\b(?:Gpu|Cuda)Device\(id=(?P<id>\d+)(?:, process_index=(?P<process>\d+))?")


@importer("jax devices", "JAX's device list (`[GpuDevice(id=0, process_index=0), ...]`, `[CudaDevice(id=0)]`)",
          needles=("gpudevice(id=", "cudadevice(id="), per_line=True)
def jax_devices(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        if JAX_DEVICE.search(lines[i]):
            yield Found("jax devices", i, i + 1, document_appended(JAX_DEVICES.name, lines[i] + "\n"))
