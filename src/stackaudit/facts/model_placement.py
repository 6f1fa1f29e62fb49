"""The GPUs a serving framework says it puts each copy of a model on (importers/model_placement.py).

Some frameworks place models on GPUs by index rather than run one engine over a GPU group, and say so in their own
terms:

- Xinference's client (`xinference launch ... --gpu-idx 0,1 --replica 2`): the supervisor hands each replica an equal
  share of the listed GPUs (xinference/core/utils.py assign_replica_gpu: `gpu_idx[rep_id::replica]`, later contiguous
  chunks of `len(gpu_idx) // replica`), so two GPUs over two replicas are one GPU each; `--n-gpu 1` without a list
  asks one GPU for the model.
- Xinference's worker, per replica it starts (xinference/core/worker.py launch_builtin_model): `You specify to launch
  the model: bge-reranker-v2-m3 on GPU index: [2] of the worker: ...`.
- A Triton model config's `instance_group` of `kind: KIND_GPU`: Triton makes `count` instances on each GPU the group's
  `gpus` lists (every GPU where it lists none), each instance on that one GPU (the model configuration guide,
  https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_configuration.md#instance-groups).
  A backend that runs its own multi-GPU engine inside an instance (TensorRT-LLM, vLLM, Python) is left out by the
  importer.

What this does not show: whether the framework kept to the placement (corpus 1498 is a user saying it did not), and
what other programs hold the GPUs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, argv_value
from stackaudit.facts.engine_command import INSTANCE_GPUS
from stackaudit.facts.registry import Sourced, fact, parser
from stackaudit.facts.sources import MODEL_PLACEMENT

XINFERENCE_LAUNCH = re.compile(r"\bxinference\s+launch\s")
XINFERENCE_GPU_INDEX = re.compile(r"\blaunch the model: (?P<model>\S+) on GPU index: \[(?P<idx>[\d,\s]*)\]")
TRITON_GROUP = re.compile(r"^\s*instance_group\s*:?\s*\[")
_TRITON_ENTRY = re.compile(r"\{(?P<body>[^{}]*)\}")
_TRITON_KIND = re.compile(r"\bkind\s*:\s*(KIND_\w+)")


@dataclass(frozen=True)
class Placement:
    """One statement of a framework's placement: the GPUs each copy of the model gets (None where the statement does
    not settle how many), what says so in words, and the line."""

    framework: str  # xinference | triton
    gpus_each: int | None
    what: str
    line: str


@dataclass(frozen=True)
class ModelPlacements(Sourced):
    placements: tuple[Placement, ...] = ()

    def one_gpu_each(self) -> str:
        """Why every copy of every model placed runs on one GPU, in words; "" where a statement does not show that."""
        if not self.placements or any(p.gpus_each != 1 for p in self.placements):
            return ""
        return "; ".join(dict.fromkeys(p.what for p in self.placements))


fact("model_placements", ModelPlacements, hint=MODEL_PLACEMENT.hint)


def listed_indices(text: str) -> list[str]:
    """The GPU indices of a bracketed list as a launcher writes it (`2`, `0,1`, `3, 4`)."""
    return [i.strip() for i in re.split(r"[,\s]+", text) if i.strip()]


def _xinference_launch(line: str) -> Placement:
    words = line.split()
    listed = argv_value(tuple(words), ("--gpu-idx", "--gpu_idx"))
    replica = argv_value(tuple(words), ("--replica", "-r"))
    n_gpu = argv_value(tuple(words), ("--n-gpu", "--n_gpu"))
    copies = int(replica) if replica is not None and replica.isdecimal() and int(replica) > 0 else 1
    if listed is not None:
        idx = listed_indices(listed)
        ok = idx and all(i.isdecimal() for i in idx) and len(idx) % copies == 0
        each = len(idx) // copies if ok else None
        return Placement("xinference", each, f"xinference launch gives each of its {copies} replica(s) "
                         f"{each if each is not None else 'an unread share'} of the GPUs --gpu-idx {listed} lists",
                         line.strip())
    if n_gpu is not None and n_gpu.isdecimal():
        return Placement("xinference", int(n_gpu), f"xinference launch asks --n-gpu {n_gpu} for the model", line.strip())
    return Placement("xinference", None, "xinference launch leaves the GPUs to Xinference (no --gpu-idx)", line.strip())


def triton_group_end(lines: list[str], start: int) -> int:
    """The line after the `]` that closes the instance_group opened on lines[start] (its brackets counted); the end of
    the lines where the paste cuts it."""
    depth = 0
    for i in range(start, len(lines)):
        depth += lines[i].count("[") - lines[i].count("]")
        if depth <= 0:
            return i + 1
    return len(lines)


def _triton_groups(block: str) -> list[Placement]:
    placed = []
    for entry in _TRITON_ENTRY.finditer(block):
        kind = _TRITON_KIND.search(entry["body"])
        if kind is None or kind.group(1) != "KIND_GPU":
            continue
        gpus = INSTANCE_GPUS.search(entry["body"])
        listed = ", ".join(listed_indices(gpus[1])) if gpus else "every GPU"
        placed.append(Placement("triton", 1, f"Triton's instance_group puts each KIND_GPU instance on one GPU "
                                f"(gpus: [{listed}])", " ".join(entry.group(0).split())))
    return placed


@parser(MODEL_PLACEMENT, feeds="model_placements", kind=ModelPlacements, rank=10)
def model_placements(text: str) -> ModelPlacements:
    """The placements a pasted framework command, log line or model config states.

    Input (tests/data/captures/1495, xorbitsai/inference#2988)::

        xinference launch -n qwen2.5-instruct -u qwen2.5-32B-instruct -s 32 -f awq --gpu-idx 0,1 --replica 2 --max_model_len 32000
    """
    placed: list[Placement] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if XINFERENCE_LAUNCH.search(line):
            placed.append(_xinference_launch(line))
        elif (m := XINFERENCE_GPU_INDEX.search(line)) is not None:
            idx = listed_indices(m["idx"])
            placed.append(Placement("xinference", len(idx) or None,
                                    f"Xinference's worker launches {m['model']} on GPU index [{m['idx']}]",
                                    line.strip()))
        elif TRITON_GROUP.match(line):
            placed.extend(_triton_groups("\n".join(lines[i:triton_group_end(lines, i)])))
    if not placed:
        raise ParseError("no Xinference launch or GPU index line and no Triton KIND_GPU instance group")
    return ModelPlacements(placements=tuple(placed))
