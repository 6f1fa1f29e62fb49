"""vLLM / SGLang / Triton server logs (and the consoles of facts/serving_logs.ENGINE_CONSOLES: KoboldCpp,
Xinference, TGI, LocalAI, LM Studio, lmdeploy), TensorRT-LLM's runtime lines, NCCL INFO logs and the lines HAMi-core
writes into the program's output (facts/serving_logs.HAMI_CORE_LINE) pasted into a report; vLLM's P2P cache JSON.

Log lines may be scattered between other outputs (a report quotes a few lines here and there):
each run of consecutive log lines is one span, and every span appends its lines, in order, to the
pasted document ENGINE_LOG (facts/sources.py): a log has no fixed place on a host. A pasted `gpu_p2p_access_cache_for_*.json`
(an object of `"i->j": true|false`) is recorded where vLLM keeps it for root
(`/root/.cache/vllm/<name>`; the name from a `cat` line above it, else from the GPU count).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from functools import partial

from stackaudit.facts._parse import ParseError
from stackaudit.facts.ray_log import is_ray_line
from stackaudit.facts.serving_logs import (
    CONSOLE_NEEDLES,
    GGML_BUILT_WITH,
    GGML_VERSION,
    HAMI_CORE_NEEDLES,
    KEY_NEEDLES,
    OLLAMA_LINE,
    args_block_end,
    is_log_line,
    parse_p2p_cache,
)
from stackaudit.facts.sources import ENGINE_LOG
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import Candidates, Scan, run_end, strip_prompt
from stackaudit.importers.registry import Found, document_appended, importer

VLLM_CACHE_DIR = "/root/.cache/vllm"


def _server_line(line: str) -> bool:
    """A line of a server or NCCL log (is_log_line), but Ray's own (the ray log's: a collector's `[DATE TIME] ` before
    Ray's `DATE TIME,ms LEVEL services.py:N -- ` has SGLang's form, corpus 903)."""
    return is_log_line(line) and not is_ray_line(line)


# The rest of an ollama line that a paste broke over several lines: each continuation holds only its `key=value`
# fields, the first key dotted (`layers.model=37 layers.offload=37 ... memory.available="[6.8 GiB]"`, corpus 1518).
_OLLAMA_WRAPPED = re.compile(r'^\s+[a-z]+\.[\w.]+=(?:"[^"]*"|\S+)(?:\s+[\w.]+=(?:"[^"]*"|\S+))*\s*$')


def _unwrapped(lines: list[str], start: int, end: int) -> tuple[list[str], int]:
    """The run's lines with each broken ollama line joined back into one (its continuations after it), and the
    run's end past the continuations of its last line."""
    kept: list[str] = []
    at = start
    while at < end or (at < len(lines) and kept and _OLLAMA_WRAPPED.match(lines[at])
                       and OLLAMA_LINE.search(kept[-1])):
        line = lines[at].rstrip()
        if kept and _OLLAMA_WRAPPED.match(line) and OLLAMA_LINE.search(kept[-1]):
            kept[-1] += " " + line.strip()
        else:
            kept.append(line)
        at += 1
    return kept, at


@importer("server log", "vLLM / SGLang / llama.cpp / ollama / Triton / KoboldCpp / Xinference / TGI / LocalAI / "
          "LM Studio / lmdeploy server log lines, TensorRT-LLM runtime lines, NCCL INFO/WARN lines and HAMi-core's lines",
          needles=("NCCL", " WARN ", "cudaDriverVersion", ".py:", "] ", " level=", "msg=", ".go:", "(APIServer", " pid=", "libfabric:", *KEY_NEEDLES, *CONSOLE_NEEDLES,
                   *HAMI_CORE_NEEDLES),
          per_line=True)
def server_log(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _server_line(lines[i]):
            continue
        end = run_end(lines, i + 1, _server_line)
        # TGI's pretty-printed Args block (facts/serving_logs.TGI_ARGS_OPEN) and TurboMind's config block
        # (TURBOMIND_CONFIG_OPEN): their lines belong to their log line.
        while (block := args_block_end(lines, end - 1)) > end:
            end = run_end(lines, block, _server_line)
        # llama.cpp's `version: 7018 (ece0f5c17)` above its `built with ... for ...` line is that banner's first line.
        start = i - 1 if i and GGML_BUILT_WITH.match(lines[i]) and GGML_VERSION.match(lines[i - 1]) else i
        kept, end = _unwrapped(lines, start, end)
        # The run without the indent every line of it shares: a Markdown list item's code block (corpus 705).
        body = textwrap.dedent("\n".join(kept)) + "\n"
        yield Found("server log", start, end, document_appended(ENGINE_LOG.name, body))
        scan.skip(end)


_CACHE_FILE = re.compile(r"(gpu_p2p_access_cache_for_[\w,.-]*\.json)")
_CACHE_ENTRY = re.compile(r'^\s*"\d+->\d+"\s*:\s*(true|false)\s*,?\s*$')


def _record_cache(name: str, text: str, rec: HostRecord) -> None:
    rec.files[f"{VLLM_CACHE_DIR}/{name}"] = text.encode()
    rec.dirs[VLLM_CACHE_DIR] = sorted(set(rec.dirs.get(VLLM_CACHE_DIR, [])) | {name})


@importer("vllm p2p cache", "vLLM's gpu_p2p_access_cache_for_*.json (the real P2P probe results)",
          needles=("{",), per_line=True)
def p2p_cache(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        stripped = lines[i].strip()
        one_line = stripped.startswith("{") and '"0->' in stripped and stripped.endswith("}")
        if not one_line and not (stripped == "{" and i + 1 < len(lines) and _CACHE_ENTRY.match(lines[i + 1])):
            continue
        end = i + 1
        if not one_line:
            end = run_end(lines, end, _CACHE_ENTRY.match)
            if end < len(lines) and lines[end].strip() == "}":
                end += 1
        text = "\n".join(lines[i:end])
        try:
            entries = parse_p2p_cache(text)
        except ParseError:
            continue
        name = ""
        for back in range(1, 3):
            if i - back >= 0:
                m = _CACHE_FILE.search(strip_prompt(lines[i - back]))
                if m:
                    name = m.group(1)
                    break
        if not name:
            count = 1 + max(int(k.split("->")[0]) for k in entries)
            name = f"gpu_p2p_access_cache_for_{','.join(str(n) for n in range(count))}.json"
        yield Found("vllm p2p cache", i, end, partial(_record_cache, name, text + "\n"))
        scan.skip(end)
