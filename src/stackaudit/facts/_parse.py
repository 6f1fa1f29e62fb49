"""Small parsing helpers shared by the fact modules."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import TypeVar

_T = TypeVar("_T")


class ParseError(ValueError):
    """The documented error of every parser: the text is not the output it should be."""


def only_one(found: Collection[_T], error: str) -> _T:
    """The one thing a reader found (a set's member, a dict's one item). Where it found none or several, a
    ParseError with `error`: two different values name no one."""
    if len(found) != 1:
        raise ParseError(error)
    return next(iter(found))


def parse_cpulist(text: str) -> tuple[int, ...]:
    """Parse a kernel CPU list such as `0-3,8,10-11` (also `0-15 (16)` from numactl --cpu-compress)."""
    text = re.sub(r"\(\d+\)", "", text).strip()
    cpus: list[int] = []
    if not text:
        return ()
    for part in re.split(r"[,\s]+", text):
        if not part:
            continue
        if "-" in part:
            lo_s, _, hi_s = part.partition("-")
            if not (lo_s.isdecimal() and hi_s.isdecimal()):
                raise ParseError(f"bad CPU range {part!r}")
            lo, hi = int(lo_s), int(hi_s)
            if hi < lo or hi - lo > 65536:
                raise ParseError(f"bad CPU range {part!r}")
            cpus.extend(range(lo, hi + 1))
        elif part.isdecimal():
            cpus.append(int(part))
        else:
            raise ParseError(f"bad CPU number {part!r}")
    return tuple(sorted(set(cpus)))


MAX_CPUMASK_DIGITS = 16384  # 65536 CPUs, the bound parse_cpulist puts on a range


def parse_cpumask(text: str) -> tuple[int, ...]:
    """Parse a kernel CPU mask such as `0f,c0000fc0` (hex words, the most significant first, as NCCL's `Setting
    affinity for GPU N to` and /proc's Cpus_allowed print it) into its CPU numbers."""
    if not re.fullmatch(r"[0-9a-fA-F]+(?:,[0-9a-fA-F]+)*", text):
        raise ParseError(f"bad CPU mask {text[:40]!r}")
    digits = text.replace(",", "")
    if len(digits) > MAX_CPUMASK_DIGITS:
        raise ParseError(f"CPU mask of {len(digits)} hex digits")
    mask = int(digits, 16)
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def format_cpulist(cpus: Iterable[int]) -> str:
    """The compact form of a CPU list: (0,1,2,3,8) -> `0-3,8`."""
    out: list[str] = []
    ordered = sorted(set(cpus))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


# A CUDA_VISIBLE_DEVICES entry: an index, a GPU or MIG UUID (cuda-c-programming-guide, "CUDA Environment Variables").
CUDA_DEVICE = re.compile(r"\d+|(?:GPU|MIG)-[\w/-]+")


def cuda_visible_entries(value: str | None) -> list[str]:
    """CUDA_VISIBLE_DEVICES split into its entries, the quotes a shell or spec leaves around it and blank entries
    dropped (`'0, 1'` -> ["0", "1"]); [] where it is unset or empty.
    The entries are as written; CUDA_DEVICE tells whether each names a device."""
    value = (value or "").strip().strip("'\"")
    return [v.strip() for v in value.split(",") if v.strip()]


def cuda_visible_devices(value: str | None) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES's entries where every one names a device (CUDA_DEVICE); None where it is unset, empty or
    holds anything else (`all`, `$GPUS`, `-1`)."""
    entries = cuda_visible_entries(value)
    return entries if entries and all(CUDA_DEVICE.fullmatch(v) for v in entries) else None


def whole_int(text: str | None) -> int | None:
    """`text`, white space stripped, as an integer when it is one whole (a sysfs value: `-1`, `16`); else None."""
    t = (text or "").strip()
    return int(t) if re.fullmatch(r"-?[0-9]+", t) else None


_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgtpe]?)(i?b?)\s*", re.IGNORECASE)


def parse_size_bytes(text: str, decimal_si: bool = False) -> int | None:
    """`10.24g`, `1gb`, `64m`, `67108864` (Docker), `32GB`, `16M` (lspci) in bytes, binary units; `64Gi` /
    `64G` Kubernetes quantities (`decimal_si`: `G` is 10^9, `Gi` 2^30). None when the text is not a size."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        return None
    number, unit, suffix = float(m.group(1)), m.group(2).lower(), m.group(3).lower()
    base = 1000 if decimal_si and unit and not suffix.startswith("i") else 1024
    return int(number * base ** " kmgtpe".index(unit))


def parse_size_kib(text: str) -> int | None:
    """Sizes like `65536k`, `64M`, `1.5G`, `64 MiB` in KiB; a bare number (`65536`) is KiB already."""
    m = _SIZE.fullmatch(text)
    if m is not None and not m.group(2):
        return int(float(m.group(1)))
    size = parse_size_bytes(text)
    return None if size is None else size // 1024


def key_value_lines(text: str, sep: str = ":") -> dict[str, str]:
    """`Key: value` lines into a dict (first occurrence wins)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, found, value = line.partition(sep)
        if found and key.strip() and key.strip() not in out:
            out[key.strip()] = value.strip()
    return out


# A two-column Markdown table row of a hardware summary (`| **Driver** | 595.71.05 (open kernel module) |`, corpus 860;
# `| Driver | 580.142 |`): the key, bold or not, and its value, the statement a list's `Key: value` line makes. Not a
# header's rule (`|---|---|`) nor a row with an empty cell. Split on its bars, not matched by a pattern: one pass over
# a line of any length.
_BOLD = ("**", "__")
# Bold text inside a line (`- Driver: **595.71.05** (open kernel modules)`, corpus 1164): the words, unmarked.
_BOLD_SPAN = re.compile(r"\*\*([^*\n]+?)\*\*")


# One item of a table row's key that pairs several (`torch / driver`): a word or a few, no unit or figure first.
_PAIRED_KEY = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_.+ -]{0,30}$")


# A line's key before a full-width colon: ASCII words, as a list's keys are (`sgl_kernel：0.3.3`, corpus 2448).
_FULL_WIDTH_KEY = re.compile(r"^(\W*[A-Za-z][\w .+/-]{0,40}?)\s*：\s*")


def stated_line(line: str) -> str:
    """A hardware summary's line in its `Key: value` form: a two-column Markdown table row as `Key: value`, bold text
    without its marks, any other line as it is.

    >>> stated_line("| **PyTorch** | 2.11.0+cu130 |"), stated_line("|---|---|")
    ('PyTorch: 2.11.0+cu130', '|---|---|')
    >>> stated_line("- Driver: **595.71.05** (open kernel modules)")
    '- Driver: 595.71.05 (open kernel modules)'

    A key before a full-width colon (`torch：2.8.0+cu129`, as Chinese input methods type it) is the same statement.

    >>> stated_line("torch：2.8.0+cu129")
    'torch: 2.8.0+cu129'

    A row whose key pairs several items (`| torch / driver | 2.13.0+cu130 / 580.159.04 |`, corpus 2762) states each,
    one a line, where its value has as many parts.

    >>> stated_line("| torch / driver | 2.13.0+cu130 / 580.159.04 |")
    'torch: 2.13.0+cu130\ndriver: 580.159.04'
    """
    if "：" in line:
        line = _FULL_WIDTH_KEY.sub(r"\1: ", line, count=1)
    if "**" in line:
        line = _BOLD_SPAN.sub(r"\1", line)
    cells = line.strip().split("|") if "|" in line else []
    if len(cells) != 4 or cells[0] or cells[3].strip():
        return line
    key, value = cells[1].strip(), cells[2].strip()
    for mark in _BOLD:
        key = key.removeprefix(mark).removesuffix(mark).strip()
    if any(c in key for c in "*_`") or not any(c.isascii() and c.isalpha() for c in key) or not value.strip("-: "):
        return line
    keys, values = key.split(" / "), value.split(" / ")
    if 1 < len(keys) == len(values) <= 4 and all(_PAIRED_KEY.match(k) for k in keys) and all(v.strip() for v in values):
        return "\n".join(f"{k.strip()}: {v.strip()}" for k, v in zip(keys, values, strict=True))
    return f"{key}: {value}"


def stated_lines(text: str) -> str:
    """A text whose two-column Markdown table rows are in their `Key: value` form (stated_line)."""
    return "\n".join(stated_line(line) for line in text.splitlines()) \
        if "|" in text or "**" in text or "：" in text else text


# A line where someone cut a paste: `[...]`, `...`, `…`, grep's `--`, `<snip>`, `(snip)`, `[truncated]`,
# `-- snip --`, `✂ ...`, `(42 lines omitted)`, an HTML/XML comment saying so. The one definition: the paste
# view leaves such lines out (a span across one is an excerpt), and a kernel log holding one is not whole.
_GAP = re.compile(
    r"^\s*(?:"
    r"[<\[(][\s.…]*(?:\.{2,}|…|snip|snipped|cut|truncated|omitted|trimmed|elided)[^>\])\w]*[\s.…]*[>\])]"
    r"|\.{3,}|…+|--"
    r"|[<\[(]\s*(?:snip|snipped|cut|truncated|omitted|trimmed|elided)\b[^>\])]*[>\])]"
    r"|-{2,}\s*(?:snip|cut)\s*-{2,}|✂.*"
    r"|[<\[(]?[\s.…]*\(?\s*\d+\s+(?:more\s+)?lines?\s+(?:omitted|removed|truncated|cut|hidden|skipped)\s*\)?[\s.…]*[>\])]?"
    r"|<!--.*(?:cut|snip|omitted|truncated).*-->"
    r")\s*$",
    re.I,
)
# The last characters a gap line can end with: a cheap test before the pattern (long logs).
_GAP_LAST = frozenset("])>.…-")


def is_gap_line(line: str) -> bool:
    """Whether a line marks a cut in a paste (trailing whitespace ignored; lines of 120 characters or
    more are output, not a marker)."""
    line = line.rstrip()
    return line[-1:] in _GAP_LAST and len(line) < 120 and bool(_GAP.match(line))


def has_gap_line(lines: Iterable[str]) -> bool:
    """Whether any of `lines` marks a cut (is_gap_line), its cheap test done inline: a 4 500-line log
    makes as many calls otherwise."""
    return any(line.rstrip()[-1:] in _GAP_LAST and is_gap_line(line) for line in lines)


def lines_holding(text: str, lines: Sequence[str], needles: Sequence[str]) -> list[int]:
    """Indices of the `lines` (the lines of `text`, split at "\\n") holding any of `needles`, case
    ignored: a `str.find` scan of the lowercased text per needle, which C does fast, instead of a
    regular-expression search per line (a pasted kernel log runs to 300 000 lines) or one search for the
    needles' alternation (sre tries every position: 6 ms for twelve needles in a 360 KB log, 0.1 ms each
    by find)."""
    if not needles:
        return []
    low = _lowered(text)  # lowercasing keeps every "\n", so line numbers agree with `lines`
    starts: set[int] = set()  # where each holding line starts in `low`
    for needle in dict.fromkeys(n.lower() for n in needles):
        pos = low.find(needle)
        while pos >= 0:
            starts.add(low.rfind("\n", 0, pos) + 1)
            end = low.find("\n", pos)
            if end < 0:
                break
            pos = low.find(needle, end + 1)
    out: list[int] = []
    line = prev = 0
    for start in sorted(starts):
        line += low.count("\n", prev, start)
        prev = start
        out.append(line)
    return [i for i in out if i < len(lines)]


# The most characters of one line that the line tests read (importers/recognition.py's needle scan,
# serving_logs.is_log_line): a hostile 10 MB line costs them a few ms, not 20 s. The longest line of the
# corpus's real pastes is about 1 KB.
LINE_LOOK_CHARS = 64 << 10


# The last text lowercased, with its lowercase: a kernel log is grepped a dozen times per audit. Kept only
# for texts up to this size, so that a 50 MB paste is not held twice for the rest of the audit.
_LOWERED_CACHE_CHARS = 4 << 20
_last_lowered: tuple[str, str] = ("", "")


def _lowered(text: str) -> str:
    global _last_lowered
    cached = _last_lowered  # one read: another thread may replace it meanwhile
    if cached[0] is text:
        return cached[1]
    low = text.lower()
    if len(text) <= _LOWERED_CACHE_CHARS:
        _last_lowered = (text, low)
    return low


# --- engine command lines (facts/parallelism.py, facts/docker.py) ---------------------------

# A shell's control operators (the command ends before them: `vllm serve M ... 2>&1 | tee log &`, corpus 852) and its
# redirections (`2>&1`, `> log`, `&>>log`), which change where the output goes and nothing about the flags.
_SHELL_CONTROL = frozenset(("|", "|&", ";", "&", "&&", "||"))
# A word that opens with a name held in angle brackets (`<image>`, `<container_name>`, a volume's
# `<my_local_model_path>:/mnt/model/`, corpus 2607) is a user's placeholder, not a `<` redirection.
_REDIRECTION = re.compile(r"^(?!<[^<>\s]+>)(?:\d*|&)(?:>>?|<)(?:&(?:\d+|-)|(?P<target>\S*))$")


def first_command(words: list[str]) -> list[str]:
    """The words of the first command of a shell line, its redirections left out: a pipe into `tee`, a `;`/`&&`/`||`
    or a trailing `&` ends an engine's command or a `docker run`, and their flags are all before it."""
    kept: list[str] = []
    takes_target = False
    for word in words:
        if takes_target:
            takes_target = False
            continue
        if word in _SHELL_CONTROL:
            break
        m = _REDIRECTION.match(word)
        if m is not None:
            takes_target = m.group("target") == ""  # `> log`: the file is the next word; `2>&1` names none
            continue
        kept.append(word)
    return kept


def sequenced_commands(words: list[str]) -> list[list[str]]:
    """The words of each command a shell line runs one after another, split at `&&` and `;` (`conda activate env &&
    lmdeploy serve api_server ...`, corpus 1251; `cd dir; vllm serve ...`): the first is the line's own words up to
    there; a `;` glued to a word's end (`cd dir;`) ends that command too."""
    out: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";"):
            out.append([])
        elif word.endswith(";") and len(word) > 1 and not word.endswith("\\;"):
            out[-1].append(word[:-1])
            out.append([])
        else:
            out[-1].append(word)
    return [c for c in out if c]


# The tensor, pipeline and data parallel flags of vLLM and SGLang (every spelling either accepts), and
# TGI's `--num-shard` (text-generation-launcher: one shard per GPU, one tensor-parallel rank each), and MLC LLM
# gen_config's `--tensor-parallel-shards`.
TP_FLAGS = ("--tensor-parallel-size", "--tp-size", "--tp", "-tp", "--num-shard", "--tensor-parallel-shards")
# The environment variables that set the TP size of a container's engine: TGI's launcher reads
# `--num-shard` from NUM_SHARD (text-generation-launcher --help: `[env: NUM_SHARD=]`).
TP_ENV = ("NUM_SHARD",)
PP_FLAGS = ("--pipeline-parallel-size", "--pp-size", "--pp", "-pp")
DP_FLAGS = ("--data-parallel-size", "--dp-size", "--dp", "-dp")


def parallel_size(text: str | None) -> int | None:
    """A TP/PP/DP size as a command line or config gives it; None for anything but a plausible count."""
    t = (text or "").strip()
    return int(t) if t.isdecimal() and 0 < int(t) < 100_000 else None


def argv_value(argv: tuple[str, ...] | list[str], names: tuple[str, ...]) -> str | None:
    """The last `--name value` / `--name=value` of any spelling in `names` (`_` matches `-`)."""
    wanted = set(names)
    value: str | None = None
    for i, arg in enumerate(argv):
        key, eq, rest = arg.partition("=")
        if key.startswith("--"):
            key = "--" + key[2:].replace("_", "-")
        if key not in wanted:
            continue
        if eq:
            value = rest
        else:
            nxt = argv[i + 1] if i + 1 < len(argv) else ""
            value = "" if nxt.startswith("-") else nxt
    return value


# MLC LLM's `--overrides "key=value;key=value"` (compile and serve, https://llm.mlc.ai/docs/deploy/cli.html) and its
# gen_config's flag: the keys that give its tensor-parallel shards and pipeline stages.
MLC_OVERRIDES = ("--overrides",)
MLC_SIZE_KEYS = ("tensor_parallel_shards", "pipeline_parallel_stages")


def _overridden(argv: tuple[str, ...] | list[str], key: str) -> str | None:
    """The value MLC LLM's `--overrides` list gives `key` (`tensor_parallel_shards=2`), or None."""
    for item in (argv_value(argv, MLC_OVERRIDES) or "").split(";"):
        name, eq, value = item.partition("=")
        if eq and name.strip() == key:
            return value.strip()
    return None


def sizes_from_argv(argv: tuple[str, ...] | list[str]) -> tuple[int | None, int | None, int | None]:
    """(TP, PP, DP) from a command line; None for each it does not set. MLC LLM's `--overrides` (MLC_SIZE_KEYS) gives
    TP and PP where no flag does."""
    tp, pp, dp = (argv_value(argv, flags) for flags in (TP_FLAGS, PP_FLAGS, DP_FLAGS))
    tp = tp if tp is not None else _overridden(argv, MLC_SIZE_KEYS[0])
    pp = pp if pp is not None else _overridden(argv, MLC_SIZE_KEYS[1])
    return parallel_size(tp), parallel_size(pp), parallel_size(dp)


def sizes_unread(argv: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The TP/PP/DP flags and `--nnodes` a command line gives with a value that is no count (`--tensor-parallel-size=
    $tensor_parallel`, a shell variable the paste does not set, corpus 852), as written: present, so the engine does
    not run its default, with a size the source does not show."""
    return tuple(f"{flags[0]} {value}" for flags in (TP_FLAGS, PP_FLAGS, DP_FLAGS, ("--nnodes",))
                 if (value := argv_value(argv, flags)) is not None and parallel_size(value) is None)


def on_ray(argv: tuple[str, ...] | list[str]) -> bool:
    """Whether a vLLM command line runs its workers as Ray actors: `--distributed-executor-backend ray`, or
    `--worker-use-ray` / `--engine-use-ray` of releases before 0.6 (vLLM's engine arguments)."""
    return argv_value(argv, ("--distributed-executor-backend",)) == "ray" \
        or any(a in ("--worker-use-ray", "--engine-use-ray") for a in argv)


# The world sizes vLLM's custom all-reduce runs at (vllm/distributed/device_communicators/custom_all_reduce.py,
# `_SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]`, https://github.com/vllm-project/vllm/blob/main/vllm/distributed/
# device_communicators/custom_all_reduce.py); SGLang's copy of it keeps the same list. At any other size, and for a
# group that spans nodes ("Custom allreduce is disabled because this process group spans across nodes"), the engine
# leaves it off and NCCL carries the all-reduce.
CUSTOM_AR_WORLD_SIZES = (2, 4, 6, 8)


def tp_spans_nodes(argv: tuple[str, ...] | list[str]) -> bool:
    """Whether a command line's tensor-parallel group spans nodes: `--nnodes N` with N above what
    pipeline and (plain) data parallelism split the nodes into, so one TP group holds GPUs of
    several nodes (SGLang `--tp 16 --nnodes 2`: 8 GPUs on each node, all 16 in one TP group).
    SGLang's `--enable-dp-attention` runs its DP ranks inside the TP group, so they do not split it.
    A multi-node NVLink (MNNVL) option leaves the question open: False."""
    nnodes = parallel_size(argv_value(argv, ("--nnodes",)))
    tp, pp, dp = sizes_from_argv(argv)
    if nnodes is None or nnodes < 2 or tp is None or tp < 2 or any("mnnvl" in a.lower() for a in argv) \
            or sizes_unread(argv):
        return False
    splits = (pp or 1) * (1 if "--enable-dp-attention" in argv else (dp or 1))
    return nnodes > splits


def ranks_per_node(argv: tuple[str, ...] | list[str]) -> int | None:
    """The ranks a command line starts on each of its nodes: its TP x PP (x plain DP, as tp_spans_nodes reads them)
    divided by `--nnodes N` (SGLang, vLLM's multiprocessing backend), N above 1. None where it sets no --nnodes above
    1 or no TP size, or where N does not divide the ranks (nodes with unequal shares: SGLang `--tp 14 --nnodes 4`)."""
    nnodes = parallel_size(argv_value(argv, ("--nnodes",)))
    tp, pp, dp = sizes_from_argv(argv)
    if nnodes is None or nnodes < 2 or tp is None or sizes_unread(argv):
        return None
    world = tp * (pp or 1) * (1 if "--enable-dp-attention" in argv else (dp or 1))
    return world // nnodes if world % nnodes == 0 else None


# How a shell continues a command on its next line, the one table every reader of a pasted command joins lines by:
# POSIX shells end the line with `\` (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01),
# Windows' cmd.exe and its batch files with `^` (https://learn.microsoft.com/en-us/windows-server/administration/windows-commands/cmd),
# PowerShell with a backtick (https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.core/about/about_special_characters).
# `^` and the backtick continue only after a space: at the end of a word they are the word's (a closing inline-code
# backtick, corpus 984). Spaces after the mark are tolerated: the writer meant a continuation (corpus 765).
_CONTINUED = r"(?:\\|(?<=\s)[\^`])[ \t]*"
_CONTINUED_LINE = re.compile(_CONTINUED + r"$")
_CONTINUED_BREAK = re.compile(_CONTINUED + r"\r?\n")


def continued(line: str) -> bool:
    """Whether the line ends with a shell's continuation mark (_CONTINUED_LINE: `\\`, cmd.exe's `^`, PowerShell's
    backtick)."""
    return _CONTINUED_LINE.search(line) is not None


def without_continuation(line: str) -> str:
    """The line without its continuation mark and the spaces around it (the line itself where it has none)."""
    return _CONTINUED_LINE.sub("", line).rstrip()


# An interactive shell's secondary prompt (PS2, `> ` by default,
# https://www.gnu.org/software/bash/manual/html_node/Bash-Variables.html#index-PS2) before each line that continues a
# command typed at its prompt (corpus 2607); a Markdown quote marks every line of the command the same way (1840).
_PS2_LINE = re.compile(r"^>[ \t]")


def join_continued(text: str) -> str:
    r"""The text with each continued line (_CONTINUED_LINE) joined to the next by a space; where every line after the
    first opens with a shell's secondary prompt (_PS2_LINE), without those prompts. A `>` set in from the margin is
    the shell's redirection.

    >>> join_continued("$ docker run --gpus all \\\n> -p 8000:8000 \\\n> vllm:latest")
    '$ docker run --gpus all  -p 8000:8000  vllm:latest'
    >>> join_continued("cmd \\\n  > out.log")
    'cmd    > out.log'
    """
    lines = text.split("\n")
    if len(lines) > 1 and all(_PS2_LINE.match(line) for line in lines[1:]):
        text = "\n".join([lines[0], *(_PS2_LINE.sub("", line) for line in lines[1:])])
    return _CONTINUED_BREAK.sub(" ", text)


def engine_of(text: str) -> str:
    """The engine a command line or image names: sglang, vllm or trtllm ("" when none).
    TensorRT-LLM is read from its own name only: `tensorrt_llm`, `nvcr.io/nvidia/tensorrt-llm/release`, Triton's
    `tritonserver:25.02-trtllm-python-py3`.
    A plain TensorRT image (`nvcr.io/nvidia/tensorrt:23.01-py3`) runs no engine.
    The TensorRT Inference Server (`tensorrtserver`, Triton's name before 20.03) runs no TensorRT-LLM."""
    low = text.lower()
    for name, marks in (("sglang", ("sglang",)), ("vllm", ("vllm",)),
                        ("trtllm", ("trtllm", "tensorrt-llm", "tensorrt_llm", "tensorrtllm"))):
        if any(m in low for m in marks):
            return name
    return ""


# A test run's rank line, read by facts/gpus.py (the GPUs) and facts/serving_logs.py (the run's GPU group):
# `#  Rank  0 Group  0 Pid 3884994 on gpu-node device  0 [0000:1a:00] NVIDIA L20` (nccl-tests >= 2.13);
# `#   Rank  0 Pid  85517 on  host device  0 [0x52] A100-SXM4-40GB` (older: the PCI bus number alone);
# `#   Rank  0 uses device  1 [0x06] Tesla K80` (NCCL 1's own tests, NVIDIA/nccl#19).
# A host name a user redacted to words (`on NODE A device  0`, corpus 1391) is the host, spaces and all (RANK_HOST).
RANK_HOST = r"\S+(?:[ \t]\S+)*?"
RANK_DEVICE = re.compile(r"^\s*#?\s*Rank\s+\d+\s+(?:(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(?P<host>" + RANK_HOST + r")\s+|"
                         r"uses\s+)"
                         r"device\s+(?P<device>\d+)\s+\[(?P<bus>[^\]]+)\]\s+(?P<model>.+?)\s*$")


# nvidia-smi's line for one GPU: what `nvidia-smi -L` prints per GPU, and the header of each GPU's links in
# `nvidia-smi nvlink -s` (`GPU 0: NVIDIA H200 (UUID: GPU-1a2b…)`). Users redact or cut the UUID: `(UUID: GPU-xxxx)`,
# `(UUID: ...)`, `(...)`, or the line stops inside it (`(UUID: `, corpus 814). `tag` is the parenthesis, where shown.
NVSMI_GPU_LINE = re.compile(r"^GPU (?P<index>\d+):\s*(?P<name>.*?)\s*"
                            r"(?P<tag>\((?:UUID:?\s*(?P<uuid>[^)]*?)\s*|\.\.\.|…)(?:\)|$))?\s*$")
