"""llama.cpp's CUDA device list, from its start-up log (llama-server, ik_llama.cpp, a container's log).

    ggml_cuda_init: found 1 CUDA devices:
      Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes

Builds before March 2024 name the function `ggml_init_cublas` (the same lines, without `VMM`).
A paste may cut the `found` line and keep the device lines: a run of them with their `VMM:` field (the field that
sets them apart from other programs' device lines) is the same list, from its `Device 0:` line (corpus 927) or from
whichever device the paste starts at (corpus 1166 keeps only `Device 4: NVIDIA GeForce RTX 4090 D, ...`).
The build flags above the `found` line (`ggml_init_cublas: CUDA_USE_TENSOR_CORES: yes`), the `found` line and the
device lines under it, each with whatever prefix the log gives its lines (a Compose
service's `llama-cpp    | `), are recorded verbatim as the pasted document GGML_CUDA_DEVICES
(facts/sources.py); facts/gpus.py reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import GGML_CUDA_DEVICES
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

# Recent builds add the devices' total memory before the colon: `found 1 CUDA devices (Total VRAM: 11172 MiB):`
# (corpus 961).
# llama.cpp built for HIP prints the same list for its AMD GPUs: `found 2 ROCm devices:`, its device lines with HIP's
# `compute capability 11.0`, or, since 2024, the gfx target (`Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM:
# no, Wave Size: 32`); facts/gpus.parse_ggml_cuda_gpus reads them as AMD GPUs.
# Builds of June to August 2023 print the device's name alone (`  Device 0: NVIDIA A10G`, llama.cpp#1899, corpus 1525):
# under a `found` line any `Device N: <name>` line continues the list. A user who flattens the log onto one line
# (LocalAI#772, corpus 2167; jan#7324) keeps the device lines after the `found` line's colon on the same line.
_FOUND = re.compile(r"ggml_(?:cuda_init|init_cublas): found \d+ (?:CUDA|ROCm) devices?(?: \(Total VRAM: [^)]*\))?:"
                    r"\s*(?:$|(?=Device \d+: \S))")
_DEVICE = re.compile(r"^.*?\bDevice \d+: \S")
_FIRST_DEVICE_VMM = re.compile(r"^.*?\bDevice \d+: .+?, (?:compute capability \d+\.\d+|gfx\w+ \(0x[0-9a-fA-F]+\)), "
                               r"VMM: (?:yes|no)\b")
# The build flags printed above the `found` line (`ggml_init_cublas: GGML_CUDA_FORCE_MMQ:   no`,
# `ggml_cuda_init: CUDA_USE_TENSOR_CORES: yes`): the list's header, read with it (facts/gpus.GGML_TENSOR_CORES).
_BUILD_FLAG = re.compile(r"\bggml_(?:cuda_init|init_cublas): (?:GGML_CUDA_FORCE_\w+|CUDA_USE_TENSOR_CORES):\s+(?:yes|no)\s*$")
_MAX_FLAGS = 4


@importer("ggml_cuda_init devices", "llama.cpp's `ggml_cuda_init: found N CUDA devices` (or ROCm devices, a HIP build) and its "
          "device lines",
          needles=("ggml_cuda_init: found", "ggml_init_cublas: found", ", vmm: "), per_line=True)
def ggml_cuda_devices(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not (_FOUND.search(lines[i]) or _FIRST_DEVICE_VMM.match(lines[i])):
            continue
        end = run_end(lines, i + 1, _DEVICE.match)
        start = i
        while start > 0 and i - start < _MAX_FLAGS and _BUILD_FLAG.search(lines[start - 1]):
            start -= 1
        yield Found("ggml_cuda_init devices", start, end,
                    document_appended(GGML_CUDA_DEVICES.name, "\n".join(lines[start:end]) + "\n"))
        scan.skip(end)
