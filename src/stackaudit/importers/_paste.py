"""What a paste looks like once the markup around its outputs is peeled off, line for line.

People paste outputs inside markdown fences (``` or ~~~, with or without a language) or behind a lone backtick
that opens an inline code span on their first line, GitHub quote
blocks (`> `, nested `> > `), after shell prompts (`$ `, `user@host:~$ `, `(venv) root@box:/# `,
`user@host ~ » `, bash's default `bash-5.1# `),
a log line or engine command in Markdown inline code (a line that is one span, `` `INFO: Avg prompt throughput: ...` ``,
or one span wrapped onto the next line), a log line behind a Markdown table's bar (`| INFO 05-11 08:17:48 ...`),
with gap lines where they cut something (`[...]`, `...`, `<snip>`, grep's `--`), with Windows
line ends (`\\r\\n`, `\\r\\r\\n` after a copy through two editors, or `\\r` alone), with the
`Key : value` fields of `nvidia-smi -q` flattened onto one line by a chat or a forum, and behind the prefixes a log
collector puts on every line (`LOG_PREFIXES`: syslog and journal times and host names, `kernel:`, the
kubelet's CRI form, Talos, `docker logs -t`, `docker compose`, a Ray worker's `(name pid=N, ip=A)`; vLLM's `(APIServer pid=N)` stays on a uvicorn line, whose one
mark of vLLM's log it is). `view()` turns such a text into the
lines the recognisers read, and keeps for each of them its line number in the user's file, so that
a provenance line points at what the user pasted, and the host name its prefix gave it. Gap lines are left out of the view (an output cut
in the middle is still one output) and remembered: a span across a gap is an excerpt.

One pass over the text, constant work per line: a 50 MB paste costs what reading it costs.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from stackaudit.facts._parse import _GAP_LAST, continued, is_gap_line, without_continuation
from stackaudit.facts.container import CONTAINER_SHELL_PROMPTS
from stackaudit.facts.engine_command import COMMAND_HINT
from stackaudit.facts.nvidia_daemons import DAEMON_TAG
from stackaudit.facts.nvidia_smi import ANY_DEPTH, QUERY_FIELDS
from stackaudit.facts.serving_logs import UVICORN_LINE, VLLM_API_PROCESS, is_log_line
from stackaudit.facts.system import is_uname_line
from stackaudit.importers._scan import INLINE_CODE
from stackaudit.pci_address import BDF

# `\r\r\n` is one line end (a CRLF file saved again on Windows), not an empty line between two.
_LINE_END = re.compile(r"\r*\n|\r")
# GitHub / CommonMark block quotes: up to three spaces, then `>` markers, each with one optional space.
_QUOTE = re.compile(r"^ {0,3}(?:> ?)+")
# Markdown inline code: a line that is one span (single backticks), one that opens a span the next line closes (a
# long span wrapped by the paste, corpus 689), and that next line.
_INLINE_WHOLE = re.compile(r"^ {0,3}`(?!`)([^`]+)`$")
_INLINE_OPEN = re.compile(r"^ {0,3}`(?!`)([^`]+)$")
_INLINE_CLOSE = re.compile(r"^([^`]+)`$")
# A Markdown table's bar before a line with no other bar (`| INFO ... args: Namespace(...`, corpus 213): peeled only
# where what it hides is a log line; a cut nvidia-smi row (`| N/A   30C    P0    42W`) keeps its bar.
_TABLE_BAR = re.compile(r"^\|\s(?=[^|]*$)")
_FENCE_ONLY = re.compile(r"^(?P<indent> *)(?P<mark>`{3,}|~{3,})\s*[\w+.#-]*\s*(?:\{[^}]*\})?\s*$")
# A fence's opening line that holds the paste's first line of content, glued to the mark (```nvidia-smi -L) or after a
# space (``` ./koboldcpp-linux-x64-cuda1210 --model ... --tensor_split 1 0, corpus 2132): not a language tag, which is
# one word (_FENCE_ONLY); the content is read as the block's first line.
_FENCE_OPEN_GLUED = re.compile(r"^ *(?:`{3,}|~{3,})[ \t]*(?=[^\s{])(?![\w+.#-]+\s*$)")
_FENCE_CLOSE_GLUED = re.compile(r"(?<=\S)\s*(?:`{3,}|~{3,})\s*$")
# Prompts: `user@host:~$ cmd`, `(venv) root@box:/# cmd`, `[root@host ~]# cmd`, `$ cmd`, `PS> cmd`. A `user@host` prompt
# may open with markdown's bold mark that the post never closed (`**user@host:~/dir$ nvidia-smi`, corpus 1482).
_USER_PROMPT = re.compile(
    r"^(?:\*\*)?(?:\([\w.-]+\)\s+)?(?:[\w.<>-]+@[\w.<>-]+(?::\S*?)?|\[[\w.<>-]+@[\w.<>-]+[^\]]*\])\s?[$#%]\s*(?P<cmd>.*)$")
# zsh themes: `user@host /etc/modprobe.d » cmd`, `user@host ~ ❯ cmd`; fish's own prompt, its directory glued to `>`
# (`user@hostname ~> nvidia-smi --version`, corpus 2740), to `#` for root (`root@hostname ~# nvidia-smi`).
_ARROW_PROMPT = re.compile(r"^[\w.<>-]+@[\w.<>-]+\s+(?:\S+\s+[»❯➜]|[~/][^\s>#]*[>#])\s+(?P<cmd>\S.*)$")
# bash's prompt of the working directory alone (`\w\$ `), in a home directory: `~/Fooocus/Fooocus$ lspci` (corpus 2659),
# `~/tabbyAPI$ python3 main.py` (2750). Its `$` is a user's other than root (bash prints `#` for root).
_HOME_DIR_PROMPT = re.compile(r"^(?P<home>~(?:/[\w.+-]+)*)\$\s+(?P<cmd>\S.*)$")
# The environment a prompt's prefix names (`(deit92) [user@host deit]$`, `(venv) user@box:~$`): conda and venv put
# the active environment's name in parentheses before the shell's own prompt; the user of a `user@host` prompt after
# (`kgk2@bock:~$`, with no environment too: the login user a machine's own shell runs as).
_PROMPT_ENV = re.compile(r"^(?:\*\*)?(?:\((?P<env>[\w.-]+)\)\s+)?\[?(?:(?P<user>[\w.<>-]+)@)?")
_DOLLAR_PROMPT = re.compile(r"^(?:\([\w.-]+\)\s+)?\$\s+(?P<cmd>\S.*)$|^\$$")
# bash's and sh's own prompt where no PS1 is set (`\s-\v\$ `: `bash-5.1# uname -a`, `sh-4.2$ nvidia-smi`), a login
# shell's with its `-` (`-bash-4.2$ nvidia-smi`, corpus 1509): a container's shell (`docker exec -it X bash` on a RHEL
# or UBI image, Bottlerocket's admin container, `kubectl exec ... -- sh`; corpus 1586, 1148). It names no host, as
# `$ cmd`; alone on its line it still ends the output above it.
_SHELL_VERSION_PROMPT = re.compile(r"^-?(?:bash|sh)-\d+(?:\.\d+){0,3}[$#](?:\s+(?P<cmd>\S.*)|\s*)$")
# The shell `apptainer shell` opens inside its container (facts/container.CONTAINER_SHELL_PROMPTS: `Singularity>`,
# `Apptainer>`): its host is the prompt itself, which facts/container.py reads as that container's shell.
_CONTAINER_SHELL_PROMPT = re.compile(r"^(?P<host>" + "|".join(re.escape(p) for p in CONTAINER_SHELL_PROMPTS)
                                     + r")\s*(?P<cmd>\S.*)$")
# `# cmd` is a root prompt only before a command that prints what people paste; anything else after
# a `#` is a comment (an LXC config, a sysctl.conf) and stays as it is.
_ROOT_COMMANDS = (
    "cat", "dmesg", "journalctl", "lspci", "lscpu", "lsmod", "uname", "numactl", "nvidia-smi", "sysctl",
    "docker", "podman", "kubectl", "df", "ulimit", "cpupower", "grep", "egrep", "ls", "python", "python3",
    "pct", "lxc-info", "modinfo", "sudo", "nvcc", "ibstat", "ibv_devinfo", "free", "mount", "ip",
)
_COMMAND_START = re.compile(r"^(?:sudo\s+)?(?:" + "|".join(re.escape(c) for c in _ROOT_COMMANDS) + r")(?:\s|$)")
# Also ollama's server started by hand, the variables it reads set before it (`# OLLAMA_MAX_VRAM=17179869184
# CUDA_VISIBLE_DEVICES=2,3 ollama serve`, corpus 1426): the command people paste above its log.
_HASH_PROMPT = re.compile(r"^#\s+(?P<cmd>(?:[A-Za-z_]\w*=\S*\s+)*(?:" + "|".join(re.escape(c) for c in _ROOT_COMMANDS)
                          + r"|ollama\s+serve)(?:\s.*)?)$")
# bash's prompt without `user@` (`\u:\W\$ `, `ilovepumpkin:Downloads$ ollama serve`, ollama/ollama#1973, corpus 1676):
# a prompt only before a command of the same list, as `# cmd`'s; `word:word$` alone is too common in other text.
_NAME_DIR_PROMPT = re.compile(r"^[\w.-]+:[~\w./-]*\$\s+(?P<cmd>(?:[A-Za-z_]\w*=\S*\s+)*(?:"
                              + "|".join(re.escape(c) for c in _ROOT_COMMANDS) + r"|ollama\s+serve)(?:\s.*)?)$")
# The root prompt glued to its command (`#docker run --rm nvidia/cuda:latest nvidia-smi`, NVIDIA/nvidia-docker#1171):
# a prompt only where the command's output follows it. A script's commented-out command (`#docker run ...`) stands
# above another command, another comment, a fence or nothing.
# A command run in a container from outside it, pasted as its own line without a prompt (facts/container.exec_inside
# reads it; Apptainer's `singularity exec --nv IMAGE nvidia-smi` too, ComparativeGenomicsToolkit/cactus#339).
# `k` is kubectl's usual alias (the Kubernetes docs' cheat sheet sets `alias k=kubectl`); a report's Markdown may set the
# line in bold (`**k exec -it gpu-resource-test -- nvidia-smi**`, corpus 379), the markers no part of the command.
_BARE_EXEC = re.compile(r"^(?:sudo\s+)?(?:docker|podman|nerdctl|kubectl|oc|k|singularity|apptainer)\s+exec\s+\S")
_BOLD_EXEC = re.compile(r"^\*\*(?P<cmd>(?:sudo\s+)?(?:docker|podman|nerdctl|kubectl|oc|k)\s+exec\s+[^*]+?)\s*\*\*$")
# A Markdown list item that names a command and, after a colon, the one line it printed (`- lspci | grep -i nvidia: 3D
# controller: NVIDIA Corporation TU116M ...`, `- nvidia-smi: NVIDIA-SMI has failed ...`, corpus 2472; `-  nvidia-smi:
# NVIDIA-SMI 580.105.08  Driver Version: 572.16 ...`, corpus 1141): read as the command over its output, as it ran. Only
# lspci and nvidia-smi, with their flags and pipes only (`- nvidia-smi shows: ...` is prose), whose one-line outputs the
# recognisers read on their own lines; a shell's refusal (`- nvidia-smi: command not found`) is the shell's line and
# stays whole.
_LISTED_OUTPUT = re.compile(r"^[-*+]\s+`?(?P<cmd>(?:sudo\s+)?(?:lspci|nvidia-smi)(?:\s+-[\w-]{1,20}){0,6}"
                            r"(?:\s*\|\s*[^:`|]{1,60}){0,2})`?:\s+"
                            r"(?P<out>(?!(?:command )?not found\b|No such file\b|Permission denied\b)\S.*)$")
_GLUED_HASH_PROMPT = re.compile(r"^#(?P<cmd>(?:" + "|".join(re.escape(c) for c in _ROOT_COMMANDS) + r")\s.*)$")

# A run of `nvidia-smi -q` fields flattened onto one line: where each known name (longest first), the
# NVSMI LOG banner or a GPU section's header starts; a field's name is followed by ` :`, a section's by a word.
_FIELD_NAMES = "|".join(re.escape(k) for k in sorted(QUERY_FIELDS, key=len, reverse=True))
_FLAT_START = re.compile(rf"(?:(?<=\s)|^)(?:(?P<banner>=+\s*NVSMI LOG\s*=+)|(?P<gpu>GPU\s+{BDF})(?=\s|$)|"
                         rf"(?P<name>{_FIELD_NAMES})(?P<colon>\s*:(?=\s|$))?(?=\s|$))")
# A name nvidia-smi prints inside a section that the table does not hold (`Current`, `Pending`, `SM`): the
# words before its ` : ` that start with a capital, are not a unit and hold no value characters.
_KEY_WORD = re.compile(r"^(?!(?:[KMGT]i?B|[KMG]Hz|[mk]?W|[mk]?V|[CF%x]|MB/s)$)(?:[A-Z][A-Za-z]*\d*|\([A-Za-z]+\))$")


def _value_and_key(text: str) -> tuple[str, str]:
    """`2100 MHz SM` -> (`2100 MHz`, `SM`): a value, then the name of the field after it."""
    words = text.split()
    cut = len(words)
    while cut > 1 and _KEY_WORD.match(words[cut - 1]):
        cut -= 1
    return " ".join(words[:cut]), " ".join(words[cut:])


def _starts(line: str) -> list[re.Match[str]]:
    """Where the fields, sections, banner and GPU headers of a flattened run start."""
    return [m for m in _FLAT_START.finditer(line) if not m.group("name") or m.end() == len(line)
            or _is_section(m) != bool(m.group("colon"))]


# `Processes` is a section where processes run and a field in `Processes : None`.
_FIELD_OR_SECTION = frozenset({"Processes"})
# `Process ID` is a field whose own fields (the process's type and name) follow it, one level in.
_FIELD_WITH_FIELDS = frozenset({"Process ID"})


def _is_section(m: re.Match[str]) -> bool:
    """Whether a flattened run's name at m opens a section (a name of both kinds does where no colon follows it)."""
    return QUERY_FIELDS[m.group("name")][1] or (m.group("name") in _FIELD_OR_SECTION and not m.group("colon"))


def unflatten(line: str) -> list[str] | None:
    """A run of `nvidia-smi -q` fields flattened onto one line, split back into its lines (indented as
    `-q` indents them, by the depth QUERY_FIELDS gives each name); None when the line is not such a run:
    fewer than two known names, unless it starts with a section and its fields."""
    starts = _starts(line)
    if not starts or (len(starts) < 2 and not (starts[0].start() == 0 and starts[0].group("name"))):
        return None
    out: list[str] = []
    head = line[:starts[0].start()].strip()
    if head:  # what stands before the first known name: an unknown field's tail, or a command line
        out.extend(_fields(head, 1, 0) if " : " in head else [head])
    open_depth = 0  # the depth of the innermost open section, 0 when none
    first = starts[0].group("name")
    if not head and first and not QUERY_FIELDS[first][1] and QUERY_FIELDS[first][0] > 1:
        # A run cut inside a section (`Max : 2 Current : 2 Link Width ...`, corpus 683): its fields keep their depth.
        open_depth = QUERY_FIELDS[first][0] - 1
    for n, m in enumerate(starts):
        piece = line[m.start():starts[n + 1].start() if n + 1 < len(starts) else len(line)].strip()
        if not m.group("name"):
            out.append(piece)
            open_depth = 0
            continue
        name = m.group("name")
        depth, section = QUERY_FIELDS[name][0], _is_section(m)
        rest = piece[len(name):].strip()
        if section:
            out.append("    " * depth + name)
            open_depth = depth
            if rest:
                out.extend(_fields(rest, depth + 1, depth))
            continue
        # A section's field cut away from its section is not put under a field; a name printed under several
        # sections belongs to the one open before it.
        depth = open_depth + 1 if name in ANY_DEPTH and open_depth else min(depth, open_depth + 1)
        open_depth = min(open_depth, depth - 1)
        out.extend(_fields(name + " " + rest, depth, open_depth))
        if name in _FIELD_WITH_FIELDS:
            open_depth = depth  # a process's own fields (its type and name) follow its ID
    return out


# A klog record's head (`I0401 23:26:45.144253       1 factory.go:107]`) after the padding k9s's log view puts around
# each record: copied from the view, records run together on one line, separated by long runs of blanks (corpus 1289).
# A record's head counts where the line starts with it or eight blanks precede it: found by its own pattern, then the
# blanks looked at (a pattern that matched the blanks first would try every run of them from each of its blanks).
_KLOG_HEAD = re.compile(r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+\.go:\d+\] ")
_PAD = 8


def unpad_records(line: str) -> list[str] | None:
    """The klog records a padded line of k9s's log view runs together, one a line, read once unpadded; None when the
    line holds no record after padding (a record on its own line keeps it)."""
    starts = [m.start() for m in _KLOG_HEAD.finditer(line)
              if m.start() == 0 or (m.start() >= _PAD and line[m.start() - _PAD:m.start()].isspace())]
    if not starts or (len(starts) < 2 and (starts[0] == 0 or not line[:starts[0]].isspace())):
        return None
    pieces = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    head = line[:starts[0]].strip()
    return ([head] if head else []) + pieces


def _fields(text: str, depth: int, open_depth: int) -> list[str]:
    """`Current : N/A Pending : N/A` at a depth: one line a field, the fields after the first one at the
    depth of the open section's fields."""
    parts = text.split(" : ")
    key, out = parts[0].strip(), []
    for i, part in enumerate(parts[1:], start=2):
        value, nxt = _value_and_key(part) if i < len(parts) else (part.strip(), "")
        out.append(f"{'    ' * depth}{key} : {value}".rstrip())
        key, depth = nxt, max(open_depth + 1, 1)
    return out or ["    " * depth + key]
# --- log prefixes ------------------------------------------------------------------------------------
# What a log collector writes before each line of an output. A prefix is taken off only when the rest
# of the line follows it as that form has it (a tag `unit[pid]:` after a syslog host, one space after a
# docker time), so a line of an output that merely starts with a date stays as it is. `kernel: ` goes
# with the prefix before dmesg's own `[ uptime]`; before a bare message it stays as the one mark of a
# kernel line (the dmesg reader takes it off), as an NVIDIA daemon's tag (`nvidia-persistenced[1450]: `)
# stays for the daemons' readers; another program's tag goes (`myjob[42]: ` before nvidia-smi's output). Each form with a real line (tests/test_paste_transforms.py holds them all).
# journald's short-iso keeps at most microseconds; the kubelet's and docker's times carry nanoseconds.
# The month as journald and syslog print it in the locales people paste from: English, French, German, Spanish,
# Italian, Portuguese (`août 25`, `Okt 12`, `ago 27`, `déc. 3`); Chinese and Japanese months are `7月`.
_MONTH_NAMES = ("jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv\\.?|févr\\.?|fevr\\.?|mars|avr\\.?|mai|juin|"
                "juil\\.?|août|aout|sept\\.?|oct\\.|nov\\.|déc\\.?|jän|mär|mrz|okt|dez|ene|abr|ago|dic|gen|mag|giu|lug|"
                "set|ott|fev|out")
_ISO_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,6})?(?:Z|[+-]\d\d:?\d\d)"
_NANO_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)"
_TAG_AHEAD = (r"(?:kernel: ?(?=\[)|(?=kernel: |" + DAEMON_TAG + r"(?:\s|$))|"  # kept: a kernel line's mark, a daemon's tag
              r"(?P<tag>[^\s:\[\]|]+(?:\[\d+\])?):(?: |$))")  # any other program's tag goes: its output is what was pasted
LOG_PREFIXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # 2023-10-19T14:25:03.801614288+08:00 stderr F I1019 06:25:03.801505       1 main.go:154] Starting FS watcher.
    ("kubelet CRI", re.compile(rf"^{_NANO_TIME} (?:stdout|stderr) [FP](?: |$)")),
    # 192.168.11.119: kern: warning: [2026-04-22T21:27:51.291882381Z]: NVRM: kflcnCoreDumpNondestructive_IMPL: ...
    ("Talos", re.compile(r"^(?P<host>[\w.:-]+): (?:kern|user|daemon|syslog|auth|local\d): "
                         r"(?:emerg|alert|crit|err|warning|notice|info|debug): \[[\dT:.,Z+-]+\]: ")),
    # 2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Failed with ...
    # Rust tracing's line (TGI's launcher: `2024-04-02T17:31:23.524470Z ERROR text_generation_launcher: ...`, corpus
    # 2646) has the same shape, its level where the host stands (padded to five: one space before ERROR, DEBUG and
    # TRACE): a level in capitals is no host, and the line is the program's own.
    ("journal short-iso", re.compile(rf"^{_ISO_TIME} (?!(?:TRACE|DEBUG|ERROR) )(?P<host><?[\w.-]+>?) {_TAG_AHEAD}")),
    # Oct  3 14:01:56 megatron kernel: [   12.442423] NVRM: loading NVIDIA UNIX x86 Kernel Module  285.03 ...
    # Aug 10 22:40:59.893888 anthill kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed ...
    # 7月 15 17:26:48 b76d14397.cloud.et15 nv-hostengine[481761]: DCGM initialized
    # août 25 19:38:04 fujitsu kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.73.08 ... (a French locale)
    # 2月 06 14:10:03  ollama[29668]: time=... (the host name cut by the user, its two spaces left: corpus 1233); without
    # a host, only a program's tag with its PID is one (`Aug 19 11:36:35  NVRM: Xid ...` keeps its kernel mark), or
    # `kernel:` before dmesg's uptime (`Oct 14 18:41:49.056490 kernel:[   85.570347] [drm:gen8_de_irq_handler`, a Xen
    # host's serial log)
    ("syslog / journal short", re.compile(
        rf"^(?i:{_MONTH_NAMES}|1[0-2]月|[1-9]月) {{1,2}}\d{{1,2}} "
        rf"\d\d:\d\d:\d\d(?:\.\d{{1,9}})? (?:(?:(?P<host><?[\w.-]+>?)|(?= [A-Za-z][\w.-]*\[\d+\]:)) |(?=kernel: ?\[)){_TAG_AHEAD}")),
    # 2024-07-02 18:46:08.681559 kernel:[   21.766727] NVRM kgspExecuteBooterUnloadIfNeeded_TU102: ... (a syslog
    # forwarder's date with a space, its host optional, `kernel:` glued to the uptime: corpus 1850). Only a kernel
    # line's: a program's tag after such a date stays (`2024-07-02 18:46:08,123 root: ...` is Python logging's line).
    ("syslog date", re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?: ?(?:Z|[+-]\d\d:?\d\d))? "
                               r"(?:(?P<host><?[\w.-]+>?) )?(?:kernel: ?(?=\[)|(?=kernel: ))")),
    # Message from syslogd@DebianServer at Dec 30 22:23:10 ...
    #  kernel:[ 3648.883001] CPU: 0 PID: 1965 Comm: Xorg Not tainted 3.16.0-4-686-pae #1 Debian 3.16.7-ckt11-1+deb8u3
    # (syslogd's broadcast of an emergency kernel line to the terminals: its mark glued to dmesg's uptime)
    ("syslogd broadcast", re.compile(r"^\s*kernel: ?(?=\[\s*\d+\.\d+\])")),
    # 2024-11-20T14:37:16.307700574Z     shard_uds_path: "…",  (a TGI launcher argument, its path elided)
    ("docker logs -t", re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7,9}(?:Z|[+-]\d\d:\d\d)(?: |$)")),
    # ollama  | time=2025-06-19T17:09:30.103Z level=INFO source=gpu.go:217 msg="looking for compatible GPUs"
    ("docker compose", re.compile(r"^[A-Za-z0-9][\w.-]* +\|(?: |$)")),
    # INFO:root:GPU 0,1,2,3: Tesla P40  (Python logging's default format, `LEVEL:logger:`)
    ("Python logging", re.compile(r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z_][\w.]*:")),
    # (test_func pid=16253, ip=10.0.2.120) | NVIDIA-SMI 510.47.03 ...  (a Ray task's or actor's output on the driver:
    # its name, PID and node; `(RayWorker pid=4751)`, `(pid=123)`). A name that holds the worker's rank
    # (`(Worker_TP1 pid=…)`, vLLM's) stays: the log readers count ranks by it.
    # The process it names is kept as the line's program (`APIServer pid=1`).
    ("Ray worker", re.compile(r"^\((?P<proc>(?![\w.:-]*(?:TP|DP|PP|EP)\d)(?:[\w.:-]+ )?pid=\d+)(?:, ip=[\w.:]+)?\) ")),
    # ollama[1773]: time=2024-11-10T21:32:56.342+08:00 level=INFO source=sched.go:714 msg="new model will fit ..."
    # (a journal line with its time and host cut away: the program's tag with its PID stays; kernel and daemon tags
    # stay for their readers, as in the journal forms).
    ("journal tag", re.compile(r"^(?!" + DAEMON_TAG + r")(?P<tag>[A-Za-z][\w.-]*\[\d+\]):(?: |$)")),
    # 2025-03-07 23:50:27,531 - __main__ - INFO - [2025-03-07 23:50:27 TP0] Load weight begin. avail mem=22.46 GB
    # (Python logging's `%(asctime)s - %(name)s - %(levelname)s - %(message)s`: a wrapper that logs an engine's
    # output as its own, olmocr's of SGLang, allenai/olmocr#105).
    ("Python logging asctime", re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - [\w.<>-]+ - "
                                          r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - ")),
)
_CRI, _TALOS, _JOURNAL_ISO, _SYSLOG, _SYSLOG_DATE, _SYSLOG_WALL, _DOCKER_TIME, _COMPOSE, _PY_LOGGING, _RAY_WORKER, \
    _BARE_TAG, _PY_ASCTIME = (
    pattern for _, pattern in LOG_PREFIXES)
# The first three letters of each name: the cheap test before the pattern.
_MONTHS = frozenset(name[:3].lower() for name in _MONTH_NAMES.replace("\\.?", "").replace("\\.", "").split("|"))


def _log_prefix(line: str) -> re.Match[str] | None:
    """The prefix a line starts with, tried only where its first characters allow it (most lines: none)."""
    if line[:1].isdigit():
        if line[4:5] == "-" and line[10:11] == "T":
            return _CRI.match(line) or _JOURNAL_ISO.match(line) or _DOCKER_TIME.match(line)
        if line[4:5] == "-" and line[10:11] == " ":
            # Python logging's asctime form only before an engine's own log line (a wrapper's message and lmdeploy's
            # own `- lmdeploy - INFO - ` lines stay whole: the log readers know lmdeploy's).
            return _SYSLOG_DATE.match(line) or (
                m if (m := _PY_ASCTIME.match(line)) and is_log_line(line[m.end():]) else None)
        if "月" in line[:3]:
            return _SYSLOG.match(line)
    elif line[:3].lower() in _MONTHS:
        return _SYSLOG.match(line)
    elif line[:1] in "DIWEC" and ":" in line[4:9]:
        return _PY_LOGGING.match(line)
    elif line[:1] == "(" and "pid=" in line[:64]:
        return _RAY_WORKER.match(line)
    elif line.lstrip(" ")[:7] == "kernel:":
        return _SYSLOG_WALL.match(line)
    head = line[:64]
    if ": kern: " in head or ": user: " in head:
        return _TALOS.match(line)
    return _BARE_TAG.match(line) if "]: " in head or head.endswith("]:") else None


def _compose_mark(line: str) -> str:
    m = _COMPOSE.match(line) if " |" in line[:64] else None
    return line[:m.end()].rstrip() if m else ""


def strip_log_prefix(line: str, next_line: str = "", compose: tuple[str, ...] = ()) -> tuple[str, str, tuple[str, ...], str]:
    """(the line without its log prefixes, the host a prefix named or '', the compose prefixes taken, outer first, the
    program with its PID a journal or syslog prefix named (`ollama[285585]`) or '').

    A `docker compose` prefix (`svc-1  | `) is taken only when the line before or after has one of the
    same width at the same depth (compose pads every service's name to one width; `compose`: the line before's):
    a table row starting `name | ` stays, and so does a compose line quoted alone inside another service's log."""
    host = ""
    taken: tuple[str, ...] = ()
    program = ""
    for _ in range(3):  # a prefix inside a prefix: a node's journal quoted in a container's log
        m = _log_prefix(line)
        if m and m.re is _RAY_WORKER and VLLM_API_PROCESS.match(m.group("proc")) and UVICORN_LINE.match(line[m.end():]):
            # uvicorn's own line in vLLM's API server: its process tag stays, the one mark of the server's log.
            program = program or (m.group("proc") if not host else "")
            break
        if m:
            outer = not host
            host = host or m.groupdict().get("host") or ""  # the outer prefix's: the node that logged it
            tag = m.groupdict().get("tag") or ""
            program = program or (tag if outer and tag.endswith("]") else "") \
                or (m.groupdict().get("proc") or "" if outer else "")
            line = line[m.end():]
            # The next line carries the same outer prefix: a compose prefix inside it is compared without it.
            n = _log_prefix(next_line)
            next_line = next_line[n.end():] if n else next_line
            continue
        m = _COMPOSE.match(line) if " |" in line[:64] else None
        mark = line[:m.end()].rstrip() if m else ""
        before = compose[len(taken)] if len(taken) < len(compose) else ""
        if not m or (len(mark) != len(before) and len(_compose_mark(next_line)) != len(mark)):
            break
        taken += (mark,)
        line = line[m.end():]
        # The next line's compose prefix at this depth is compared no more: the one inside it is the next depth's.
        n = _COMPOSE.match(next_line) if " |" in next_line[:64] else None
        next_line = next_line[n.end():] if n else next_line
    return line, host, taken, program


@dataclass(frozen=True)
class PasteView:
    """The lines the recognisers read, each with its index in the user's file."""

    lines: list[str]
    origin: Sequence[int]  # origin[i]: 0-based index in the user's file of lines[i] (an array: 8 bytes a line)
    gaps: list[int]  # 0-based indices in the user's file of the gap lines left out, ascending
    total: int  # how many lines the user's file has
    hosts: dict[int, str] = field(default_factory=dict)  # index in `lines` -> the host its log prefix named
    # index in `lines` -> the program and PID its journal / syslog prefix named (`ollama[285585]`)
    programs: dict[int, str] = field(default_factory=dict)
    # index in `lines` of a shell prompt's command -> the host the prompt names (`root@802f556c99c8:/# nvidia-smi`),
    # "" for a prompt that names none (`$ docker exec -it ollama nvidia-smi`)
    prompt_hosts: dict[int, str] = field(default_factory=dict)
    # index in `lines` of a shell prompt's command -> the environment the prompt's prefix names (`(deit92) [user@host
    # deit]$ bash train.sh` -> `deit92`: a conda env or venv the shell activated; "" where none), a tab and the prompt's
    # user, where the prompt has an environment or a `user@host` (`kgk2@bock:~$` -> "\tkgk2"); for a prompt of a home
    # directory alone (`~/tabbyAPI$`: _HOME_DIR_PROMPT), a tab and that prompt after them ("\t\t~/tabbyAPI$")
    prompt_envs: dict[int, str] = field(default_factory=dict)
    # index in `lines` of a fence that opens and never closes: the paste ends inside its block, so what the block
    # held goes on past the paste's end (a copy cut off, a comment cut short); -1 when every fence closes or the
    # block ends at a shell prompt (the output above it ended)
    open_fence: int = -1

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Lines [start, end) of the view as lines [a, b) of the user's file."""
        if not self.origin:
            return 0, 0
        start = min(max(start, 0), len(self.origin) - 1)
        last = min(max(end - 1, start), len(self.origin) - 1)
        return self.origin[start], self.origin[last] + 1


def split_lines(text: str) -> list[str]:
    return _LINE_END.split(text) if "\r" in text else text.split("\n")


def looks_like_command(line: str) -> bool:
    """Whether a line of the view starts with a command people paste the output of (`lsmod`, `sudo dmesg`)."""
    return _COMMAND_START.match(line.strip()) is not None


def strip_prompt_line(line: str) -> str | None:
    """The command of a prompt line (`root@box:~# lspci -vvv` -> `lspci -vvv`); None when not a prompt."""
    for pattern in (_USER_PROMPT, _DOLLAR_PROMPT, _HASH_PROMPT, _ARROW_PROMPT, _CONTAINER_SHELL_PROMPT, _NAME_DIR_PROMPT,
                    _SHELL_VERSION_PROMPT, _HOME_DIR_PROMPT):
        m = pattern.match(line)
        if m:
            return (m.group("cmd") or "").strip()
    return None


# The host of a `user@host` prompt (`root@802f556c99c8:/#`, `[root@gpu-node ~]#`, zsh's `user@host ~ ❯`).
_PROMPT_HOST = re.compile(r"^(?:\*\*)?(?:\([\w.-]+\)\s+)?\[?[\w.<>-]+@(?P<host>[\w.<>-]+)")


def prompt_host(line: str) -> str:
    """The host a prompt line names (`root@box:~# lspci` -> `box`); "" for a prompt without one, or no prompt."""
    if shell := _CONTAINER_SHELL_PROMPT.match(line):
        return shell.group("host")
    m = _PROMPT_HOST.match(line)
    return m.group("host") if m is not None and (_USER_PROMPT.match(line) or _ARROW_PROMPT.match(line)) else ""


def _glued_prompt(line: str, following: list[str]) -> str | None:
    """The command of a root prompt glued to it (`#docker run ...`) with output on the next line that is not blank
    (`following`: the lines after it); None for anything else."""
    m = _GLUED_HASH_PROMPT.match(line)
    if m is None:
        return None
    under = next((f.strip() for f in following if f.strip()), "")
    if not under or under[:1] in ("#", "$", "`", "~") or looks_like_command(under) or strip_prompt_line(under) is not None:
        return None
    return m.group("cmd").strip()


def _quoted_output(text: str) -> bool:
    """Whether Markdown quotes `text` as an output the recognisers read: an engine's log line, an engine's command or
    `uname -a`'s line (`` `Linux host 5.10.0-28-amd64 #1 SMP ... x86_64 GNU/Linux` ``, corpus 1065). Any other span
    (`` `sudo dmesg | grep NVRM` `` alone on its line) is a mention in prose, not a command shown with what it printed,
    and keeps its backticks."""
    return is_log_line(text) or COMMAND_HINT.search(text) is not None or is_uname_line(text)


def span_command_run(raw: list[str], n: int, prefixed: bool = False) -> int:
    """The end of a command whose lines each stand in an inline code span of their own, from line n (`` `python
    convert_checkpoint.py \\` `` over `` `    --output_dir ./ckt_out_1gpu \\` `` over `` `    --dtype float16` ``,
    corpus 2804): each span but the last ends in a continuation, and the lines joined are a command the recognisers
    read (_quoted_output); n where line n opens no such run. `prefixed`: line n stood behind a log prefix, so each line
    of the run loses its own (strip_log_prefix) first."""
    end, texts = n, []
    while end < len(raw) and end - n <= 64 and (m := _INLINE_WHOLE.match(_span_line(raw[end], prefixed))):
        texts.append(m.group(1))
        end += 1
        if not continued(m.group(1)):
            break
    if len(texts) < 2 or not all(continued(t) for t in texts[:-1]):
        return n
    return end if _quoted_output(" ".join(without_continuation(t).strip() for t in texts)) else n


def _span_line(line: str, prefixed: bool) -> str:
    """A raw line as span_command_run reads it: without its quote marker, and its log prefix where the run's has one."""
    line = _QUOTE.sub("", line.rstrip(), count=1)
    return strip_log_prefix(line)[0] if prefixed else line


def peel_markup(line: str, following: str, compose: tuple[str, ...] = ()) -> tuple[str, bool]:
    """(a line without the Markdown around the log line or engine command it quotes, whether it took `following`, the
    next line of the file, too): an inline code span that is the whole line, or is wrapped onto the next line (joined
    by a space, as Markdown renders a line end inside a span: https://spec.commonmark.org/0.31.2/#code-spans); a
    table's bar before a log line. Inside a fenced block too: a paste fenced again reads the same. `compose`: the
    `docker compose` prefixes the line had, which the next line's are compared with (strip_log_prefix)."""
    first = line.lstrip(" ")[:1]
    if first == "`":
        if (m := _INLINE_WHOLE.match(line)) is not None and _quoted_output(m.group(1)):
            return m.group(1).strip(), False
        following = strip_log_prefix(_QUOTE.sub("", following, count=1).rstrip(), "", compose)[0] \
            if "`" in following else ""
        if (m := _INLINE_OPEN.match(line)) is not None and (c := _INLINE_CLOSE.match(following)) \
                and _quoted_output(text := f"{m.group(1).strip()} {c.group(1).strip()}"):
            return text, True
    elif first == "|" and (m := _TABLE_BAR.match(line)) is not None and is_log_line(line[m.end():]):
        return line[m.end():], False
    elif len(spans := INLINE_CODE.findall(line)) == 1 and is_log_line(spans[0]):
        # A log line quoted inside a sentence ("using 1 req: `Avg prompt throughput: ...`", vllm#700); a command in
        # a sentence keeps its sentence: the words around it may say where it ran (importers/engine_command.py).
        return spans[0].strip(), False
    return line, False


def view(text: str) -> PasteView:
    """Peel fences, quotes, prompts, gap lines and line-end noise off a paste, line for line."""
    raw = split_lines(text)
    lines: list[str] = []
    origin = array("q")
    gaps: list[int] = []
    hosts: dict[int, str] = {}
    programs: dict[int, str] = {}
    prompt_hosts: dict[int, str] = {}
    prompt_envs: dict[int, str] = {}
    compose: tuple[str, ...] = ()  # the `docker compose` prefixes of the line before, outer first
    fence_indent = -1  # the indentation of the open fence, -1 outside one
    joined = -1  # the line an inline code span wrapped onto, joined to the line before it
    open_fence = -1  # index in `lines` of the open fence, -1 outside one
    at_prompt = False  # the last line that is not blank is a shell prompt: the output above it ended
    open_span = False  # a single backtick opened an inline code span that runs on over the lines below
    span_run = 0  # the end of a command whose lines are each an inline code span (span_command_run)
    for n, line in enumerate(raw):
        if n == joined:
            continue
        line = line.rstrip()
        first = line[:1]
        if first == ">" or (first == " " and line.lstrip(" ")[:1] == ">"):
            line = _QUOTE.sub("", line, count=1).rstrip()
            first = line[:1]
        # Cheap test first: a prefix starts with a digit (a time, an address) or a month or service name, or is a
        # Ray worker's `(name pid=N, ...)`.
        if first.isdigit() or (first.isalpha() and (line[:3].lower() in _MONTHS or " |" in line[:64]
                                                    or ": kern: " in line[:64] or ": user: " in line[:64]
                                                    or "]: " in line[:64] or line.endswith("]:")
                                                    or (first in "DIWEC" and ":" in line[4:9]))) \
                or (first == "(" and "pid=" in line[:64]) or line.lstrip(" ")[:7] == "kernel:":
            following = raw[n + 1] if n + 1 < len(raw) else ""
            if following[:1] == ">" or following[:1] == " ":
                following = _QUOTE.sub("", following, count=1)
            unprefixed = line
            line, host, compose, program = strip_log_prefix(line, following, compose)
            prefixed = line != unprefixed
            first = line[:1]
            if first == ">":  # a quote inside the log: what the service printed was quoted
                line = _QUOTE.sub("", line, count=1).rstrip()
                # The quoted line's own prefix, as a quote outside the log would leave it (`> (EngineCore pid=2533)
                # ERROR ...`, corpus 1014): the log's host and program stay the outer prefix's.
                inner, inner_host, _, inner_program = strip_log_prefix(line)
                line, host, program = inner, host or inner_host, program or inner_program
                first = line[:1]
        else:
            host = program = ""
            compose = ()
            prefixed = False
        if n >= span_run and first == "`" and continued(line[:-1]):
            span_run = span_command_run(raw, n, prefixed)
        if n < span_run and (m := _INLINE_WHOLE.match(line)) is not None:
            line = m.group(1).rstrip()  # a line of a command whose lines are each a span (span_command_run)
            first = line[:1]
        elif first == "|" or "`" in line or (first == " " and line.lstrip(" ")[:1] == "|"):
            line, took = peel_markup(line, raw[n + 1] if n + 1 < len(raw) else "", compose)
            joined = n + 1 if took else joined
            first = line[:1]
        # Cheap tests first: most lines of a long log carry no markup at all.
        if "`" in line or "~" in line:
            fence = _FENCE_ONLY.match(line)
            if fence:
                # A fence line stays, bare: recognisers end a run at it. One with an info string (```bash) never
                # closes a block (CommonMark): under one left open it opens the next (a copy that lost the close,
                # corpus 1830), so the paste may end inside it.
                opens = fence_indent < 0 or line.strip().lstrip("`~").strip() != ""
                fence_indent = len(fence.group("indent")) if opens else -1
                open_fence = len(lines) if fence_indent >= 0 else -1
                if host:
                    hosts[len(lines)] = host
                lines.append(fence.group("mark")[:3])
                origin.append(n)
                continue
            line = _FENCE_OPEN_GLUED.sub("", line, count=1)
            line = _FENCE_CLOSE_GLUED.sub("", line, count=1)
            if first == "`" and line.count("`") == 1:
                # A single backtick that opens an inline code span the line never closes (the span runs on
                # over the lines below, `06:00.0 VGA compatible controller: ...`): markup, not the output's.
                line = line[1:]
                open_span = True
            elif open_span and line.count("`") == 1 and line.endswith("`"):
                # The line that closes it (a `\`-continued command's last, `--force_think true``, corpus 984).
                line = line[:-1].rstrip()
                open_span = False
            first = line[:1]
        elif not line:
            open_span = False
        if fence_indent > 0 and first == " ":
            # CommonMark: a fenced block's lines lose up to the fence's own indentation (a list item's).
            drop = len(line) - len(line.lstrip(" "))
            line = line[min(drop, fence_indent):]
            first = line[:1]
        if line[-1:] in _GAP_LAST and is_gap_line(line):  # its own first test, without the call (a line a log)
            gaps.append(n)
            continue
        if first in ("$", "#", "~") or line.find("@", 0, 64) >= 0 or line.startswith(CONTAINER_SHELL_PROMPTS) \
                or (line.find("$ ", 0, 64) >= 0 and _NAME_DIR_PROMPT.match(line) is not None) \
                or (line.find("sh-", 0, 6) >= 0 and _SHELL_VERSION_PROMPT.match(line) is not None):
            cmd = strip_prompt_line(line)
            if cmd is None and line[1:2].isalpha():
                cmd = _glued_prompt(line, raw[n + 1:n + 4])
            if cmd is not None:
                prompt_hosts[len(lines)] = prompt_host(line)
                home = home_dir.group("home") if (home_dir := _HOME_DIR_PROMPT.match(line)) else ""
                if (env := _PROMPT_ENV.match(line)) and (env.group("env") or home or (env.group("user")
                                                                                     and prompt_hosts[len(lines)])):
                    prompt_envs[len(lines)] = f"{env.group('env') or ''}\t{env.group('user') or ''}" + (
                        f"\t{home}$" if home else "")
                # A program run from the home directory's prompt by its relative path (`~/llama.cpp$ ./server`) keeps
                # the prompt: the directory names the program (facts/engine_command LEGACY_GGML_PROGRAMS).
                line = line if home and cmd.startswith("./") else cmd
            at_prompt = cmd is not None
        elif line:
            at_prompt = False
            if first == "*" and (bold := _BOLD_EXEC.match(line)):
                line = bold.group("cmd")
            if _BARE_EXEC.match(line):
                # `kubectl exec POD -n ns -- nvidia-smi` pasted without a prompt above what it printed (corpus 1211):
                # a command typed at a shell whose host is not shown.
                prompt_hosts[len(lines)] = ""
        if host:
            hosts[len(lines)] = host
        if program:
            programs[len(lines)] = program
        if line.count(" : ") > 1 and (fields := unflatten(line)) is not None:
            lines.extend(fields)  # each of them on the user's line
            origin.extend([n] * len(fields))
            continue
        if first in "-*+" and (listed := _LISTED_OUTPUT.match(line)) is not None:
            lines.extend((listed.group("cmd").strip(), listed.group("out")))  # both on the user's line
            origin.extend((n, n))
            continue
        if "       " in line and ".go:" in line and (records := unpad_records(line)) is not None:
            lines.extend(records)  # each of them on the user's line
            origin.extend([n] * len(records))
            continue
        lines.append(line)
        origin.append(n)
    return PasteView(lines, origin, gaps, len(raw), hosts, programs, prompt_hosts, prompt_envs,
                     -1 if at_prompt else open_fence)
