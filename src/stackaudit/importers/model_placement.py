"""A serving framework's placement of a model on GPUs, in its own terms (facts/model_placement.py reads it):

    xinference launch -n qwen2.5-instruct ... --gpu-idx 0,1 --replica 2 ...
    ... xinference.core.worker 124341 INFO     You specify to launch the model: bge-reranker-v2-m3 on GPU index: [2] ...
    instance_group [
      {
        count: 1
        kind: KIND_GPU
        gpus: [ 6 ]
      }
    ]

The Xinference line, and a Triton `instance_group [ ... ]` block up to its closing bracket, are recorded verbatim as
the pasted document MODEL_PLACEMENT (facts/sources.py). A Triton block under a `backend:` whose instance runs its
own engine over several GPUs (TensorRT-LLM, vLLM, Python) is not taken: Triton's instance is then no one-GPU copy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.model_placement import (
    TRITON_GROUP,
    XINFERENCE_GPU_INDEX,
    XINFERENCE_LAUNCH,
    triton_group_end,
)
from stackaudit.facts.sources import MODEL_PLACEMENT
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, document_appended, importer

# The backends whose one instance may span GPUs: the TensorRT-LLM backend (MPI ranks), vLLM's (its engine's TP),
# the Python backend (whatever the model.py does). Looked for in the config lines above the group.
_MULTI_GPU_BACKEND = re.compile(r"""^\s*(?:backend|platform)\s*:\s*["']?(?:tensorrtllm|vllm|python)\b""", re.I)
_CONFIG_LOOKBACK = 40


@importer("model placement", "a serving framework's placement of a model on GPUs: `xinference launch --gpu-idx`, "
          "Xinference's `launch the model: M on GPU index: [N]`, a Triton config's KIND_GPU `instance_group`",
          needles=("xinference launch", "on gpu index:", "instance_group"), per_line=True)
def model_placement(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        if XINFERENCE_LAUNCH.search(line) or XINFERENCE_GPU_INDEX.search(line):
            yield Found("model placement", i, i + 1, document_appended(MODEL_PLACEMENT.name, line.strip() + "\n"))
            continue
        if not TRITON_GROUP.match(line):
            continue
        end = triton_group_end(lines, i)
        block = "\n".join(lines[i:end])
        if "KIND_GPU" not in block or any(_MULTI_GPU_BACKEND.match(x) for x in lines[max(0, i - _CONFIG_LOOKBACK):i]):
            continue
        yield Found("model placement", i, end, document_appended(MODEL_PLACEMENT.name, block + "\n"))
        scan.skip(end)
