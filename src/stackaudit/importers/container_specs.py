"""Container specs pasted as text: `docker run` command lines, docker compose files, Kubernetes pod /
deployment manifests and `docker inspect` excerpts (JSON that does not start with the array's `[`).

Each is recorded verbatim (secrets replaced where they stand) as a pasted document of its own source
(facts/sources.py); a `kubectl describe pod` output is recorded as the pod manifest it describes; facts/container_specs.py reads them into `docker_containers`. Only a `docker run`
line shows where it ends (no trailing `\\`): a YAML file or a JSON excerpt may be cut anywhere.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import replace

from stackaudit.facts._parse import ParseError, continued, join_continued, stated_line
from stackaudit.facts.container_specs import (
    COMPOSE_PIECE_MARK,
    DOCKER_RUN_START,
    ENV_FILE_LINE,
    FLAT_MANIFEST,
    K8S_CONTAINERS_MARK,
    K8S_DESCRIBED_CONTAINERS_MARK,
    K8S_ENV_WHOLE_MARK,
    K8S_PIECE_MARK,
    MAX_SPEC_BYTES,
    PASTED_ENV_FILES,
    PIECE_SEPARATOR,
    PROBE_NO_GPU_MARK,
    RUN_CUT_MARK,
    SPEC_CUT_MARK,
    YamlError,
    _split_command,
    compose_env_files,
    parse_compose,
    parse_docker_run,
    parse_flat_k8s,
    parse_inspect_excerpt,
    parse_k8s,
)
from stackaudit.facts.docker import DockerContainer, diagnostic_command, extract_json_array
from stackaudit.facts.engine_command import container_args
from stackaudit.facts.k8s_node import ANY_GPU_RESOURCE
from stackaudit.facts.k8s_pods import describe_items, describe_sections, described_pods
from stackaudit.facts.nvidia_smi import lists_a_gpu
from stackaudit.facts.platform import platform_words
from stackaudit.facts.sources import (
    COMPOSE_FILE,
    DOCKER_INSPECT_EXCERPT,
    DOCKER_RUN,
    K8S_PODS,
    K8S_SPEC,
    USER_MACHINE,
)
from stackaudit.host.limits import load_json
from stackaudit.host.memory import HostRecord
from stackaudit.host.redact import REDACTED, is_secret_name, redact_text
from stackaudit.importers._paste import looks_like_command, strip_prompt_line
from stackaudit.importers._scan import FENCE, Candidates, Scan
from stackaudit.importers.registry import Found, applied_each, document_appended, importer

MAX_SPEC_LINES = 5000


# Kubernetes env items: `- name: HF_TOKEN` then `value: ...` (on the next line, in a flow map, or on one
# pasted line): the value's key is `value`, so the secret name is the item's `name`.
_K8S_ENV_VALUE = re.compile(r"(?P<head>\bname:\s*[\"']?(?P<name>[A-Za-z_][\w.-]*)[\"']?\s*,?\s*value:\s*)"
                            r"(?P<value>\"[^\"]*\"|'[^']*'|[^\s,}]+)")


def redact_spec(text: str) -> str:
    """Secrets replaced where they stand: secret-named assignments and flags (the host layer's rules),
    and the values of Kubernetes env items with a secret name."""

    def env_item(m: re.Match[str]) -> str:
        return m.group("head") + REDACTED if is_secret_name(m.group("name")) else m.group(0)

    return redact_text(_K8S_ENV_VALUE.sub(env_item, text))


def _append(doc: str, text: str) -> Callable[[HostRecord], None]:
    """A Found.apply that adds a spec, redacted, to its document, after PIECE_SEPARATOR where one stands before."""
    return document_appended(doc, redact_spec(text), sep=PIECE_SEPARATOR)


def _spec(kind: str, start: int, end: int, doc: str, text: str, whole: bool = False) -> Found:
    """A Found that adds a spec to its document; where the paste cuts it at its end (`Found.cut`), with SPEC_CUT_MARK
    above it, so that its reader takes it as an excerpt."""
    return Found(kind, start, end, _append(doc, text), whole, cut=_append(doc, SPEC_CUT_MARK + text))


# --- docker run ------------------------------------------------------------------------------------


@importer("docker run", "a `docker run ...`, `podman run ...` or `nerdctl run ...` command line (one line or continued: "
          "`\\`, `^`, a backtick)", needles=("docker", "podman", "nerdctl"), per_line=True)
def docker_run(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        if "docker" not in line and "podman" not in line and "nerdctl" not in line:
            continue
        # A command a bug report's Markdown sets in bold (`**docker run --gpus all ... --model-id $model**`, corpus
        # 1354): read without its marks, as a hardware summary's bold value is (_parse.stated_line).
        bold = line.lstrip().startswith("**") and not continued(line)
        if bold:
            line = stated_line(line)
        if not DOCKER_RUN_START.search(line):
            continue
        end = i + 1
        while not bold and continued(lines[end - 1]) and end < len(lines) and end - i < 200:
            end += 1
        text = line if bold else "\n".join(lines[i:end])
        # The paste's last line: a run it cuts before its image is read for the options it shows (corpus 1861); a
        # fence after it closes the block, as the end of the paste does (corpus 2083 fenced).
        last = not any(x.strip() and not FENCE.match(x) for x in lines[end:])
        try:
            run = parse_docker_run(join_continued(text), cut=last)
        except ParseError:
            continue
        mark = RUN_CUT_MARK if not run.image else ""
        mark += PROBE_NO_GPU_MARK if _smi_output_names_no_gpu(run, lines, end) else ""
        # Whole: the command's last line has no continuation (a cut one would end in `\`, `^` or a backtick).
        found = _spec("docker run", i, end, DOCKER_RUN.name, mark + text + "\n", whole=not continued(lines[end - 1]))
        # The user's sentence that leads into the command names the machine it runs on (`dockerdesktop 2080ti环境，执行
        # docker run ... --gpus all`, corpus 2869: Docker Desktop): recorded beside the user's words, as they are read.
        lead = DOCKER_RUN_START.search(line)
        if not bold and lead is not None and line[:lead.start()].strip() and platform_words(line):
            words = document_appended(USER_MACHINE.name, line.strip() + "\n")
            found = replace(found, apply=applied_each(found.apply, words),
                            cut=applied_each(found.cut, words) if found.cut is not None else None)
        yield found
        scan.skip(end)


# Where a command's output pasted below it ends: the next prompt or command, a fence or an HTML <pre> tag (the block
# closes), a Markdown heading.
_OUTPUT_STOP = re.compile(r"^\s*(?:`{3,}|~{3,}|</?pre>|#{1,6}\s)")


def _smi_output_names_no_gpu(run: DockerContainer, lines: list[str], end: int) -> bool:
    """Whether a `docker run` whose command runs nvidia-smi (only diagnostics) has output pasted below it, up to the next
    prompt, command, fence or heading, and no line of it names a GPU (facts/nvidia_smi.lists_a_gpu): the probe's output
    cut before its first GPU row, or a failure printed in its place. No output below it (a fence or the next command
    right after) says nothing."""
    if not diagnostic_command(run.argv) or not any(w.rsplit("/", 1)[-1] == "nvidia-smi" for w in run.argv):
        return False
    output: list[str] = []
    for line in lines[end:end + 200]:
        # The view has taken a prompt off its command (`$ uname -r` reads `uname -r`): a command people paste the
        # output of starts the next block, as a prompt left in place does.
        if _OUTPUT_STOP.match(line) or DOCKER_RUN_START.search(line) or looks_like_command(line) \
                or strip_prompt_line(line.strip()) is not None:
            break
        if line.strip():
            output.append(line)
    return bool(output) and not any(lists_a_gpu(line) for line in output)


# --- YAML documents ------------------------------------------------------------------------------

_COMPOSE_TOP = re.compile(r"^(?:version|name|services|volumes|networks|configs|secrets|include|x-[\w-]+):")
_K8S_START = re.compile(r"^(?:apiVersion:\s*\S+|kind:\s*[A-Z]\w+)\s*$")
_K8S_TOP = re.compile(r"^(?:apiVersion|kind|metadata|spec|status|data|items|stringData|type):")


def _yaml_block(lines: list[str], start: int, top: re.Pattern[str]) -> int:
    """End of the YAML block from `start`: indented lines, comments, blanks and the top-level keys `top`."""
    i = start + 1
    end = i
    while i < len(lines) and i - start < MAX_SPEC_LINES:
        line = lines[i]
        if FENCE.match(line):
            break
        if line.strip() and not (line[0] in " \t-#" or top.match(line) or line.rstrip() == "---"):
            break
        i += 1
        if line.strip():
            end = i
    return end


_YAML_KEY = re.compile(r"^\s*[\w.-]+:\s*$")
_SERVICE_KEY = re.compile(r"^ {0,4}[A-Za-z0-9][\w.-]*:\s*$")
_IMAGE = re.compile(r"^\s+image:\s*\S")


def _indent(line: str) -> int:
    line = line.expandtabs()
    return len(line) - len(line.lstrip(" "))


def _service_fragment(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """The service a fragment of a compose file holds around the `image:` line i, pasted without its
    `services:` line (from the service's name, at column 0 or indented): its span and the compose file it
    is a piece of, or None."""
    if not _IMAGE.match(lines[i]):
        return None
    depth = _indent(lines[i])
    k = i - 1
    while k >= 0 and (not lines[k].strip() or _indent(lines[k]) >= depth) and i - k < 200:
        k -= 1
    if k >= 0 and not _SERVICE_KEY.match(lines[k]) and not lines[k].lstrip().startswith(("-", "#")) \
            and not _YAML_PAIR.match(lines[k]):
        return _unnamed_service(lines, k, depth)
    if k < 0 or not _SERVICE_KEY.match(lines[k]) or _COMPOSE_TOP.match(lines[k].lstrip()):
        return None
    above = next((lines[j] for j in range(k - 1, -1, -1) if lines[j].strip()), "")
    if above.rstrip().endswith(":") and _indent(above) < _indent(lines[k]):
        return None  # under `services:` (a whole file) or another mapping: not a service pasted on its own
    end = i + 1
    j = i + 1
    # A comment ends nothing, at whatever column it starts (corpus 1163: a `count:` commented out at column 0).
    while j < len(lines) and j - k < MAX_SPEC_LINES and not FENCE.match(lines[j]) and (
            not lines[j].strip() or lines[j].lstrip().startswith("#") or _indent(lines[j]) > _indent(lines[k])):
        j += 1
        if lines[j - 1].strip() and not lines[j - 1].lstrip().startswith("#"):
            end = j
    return k, end, _as_services(lines, k, end)


# A line of YAML's `key: value` form (`name: x`, `- name: x`): no prose line above a service's keys.
_YAML_PAIR = re.compile(r"^\s*(?:-\s+)?[\w.\"'-]+:(?:\s|$)")
# The keys of a compose service that no Kubernetes container spec has (`resources`, `args`, `volumeMounts` are a pod's),
# with `image`: a service's keys pasted under a line of prose may hold only these.
_SERVICE_ONLY_KEYS = frozenset({"image", "command", "entrypoint", "environment", "env_file", "shm_size", "ipc", "runtime",
                                "deploy", "volumes", "ports", "restart", "container_name", "ulimits", "devices",
                                "network_mode", "gpus"})
_KEY_AT = re.compile(r"^\s*([\w.-]+):")


def _unnamed_service(lines: list[str], k: int, depth: int) -> tuple[int, int, str] | None:
    """A service's keys pasted indented under a line of prose (line k), without the service's name: `image:` lines
    with the versions tried commented out around the one used (corpus 1844, `    #image: localai/localai:...` over
    `    image: localai/localai:latest-gpu-nvidia-cuda-12`). Read as one service where every key at the block's depth
    is one only a compose service has (_SERVICE_ONLY_KEYS) and no line stands left of it; None otherwise."""
    end = j = k + 1
    while j < len(lines) and j - k < MAX_SPEC_LINES and not FENCE.match(lines[j]) and (
            not lines[j].strip() or _indent(lines[j]) >= depth):
        line = lines[j]
        j += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key = _KEY_AT.match(line)
        if _indent(line) == depth and (key is None or key.group(1) not in _SERVICE_ONLY_KEYS):
            return None
        end = j
    body = [x for x in lines[k + 1:end] if x.strip() and not x.lstrip().startswith("#")]
    return k + 1, end, "services:\n  service:\n" + "\n".join("    " + x.expandtabs()[depth:] for x in body)


def _as_services(lines: list[str], k: int, end: int) -> str:
    """Lines k to end of a service pasted without its `services:` line, under one; a comment is kept as a comment
    (one at column 0 would lose its `#` to the indentation taken off)."""
    cut = _indent(lines[k])
    return "services:\n" + "\n".join("" if not line.strip() else line.strip() if line.lstrip().startswith("#")
                                      else "  " + line[cut:] for line in lines[k:end])


def _service_keys_above(lines: list[str], fragment: tuple[int, int, str]) -> Iterator[tuple[int, int, str]]:
    """The fragment cut before each of its service's keys, last first: where its YAML stops (a `command: [` list
    the paste cuts), the keys above the one that stopped it are still read (corpus 1163's `ipc: host`)."""
    k, end, _ = fragment
    depth = _indent(lines[k + 1]) if k + 1 < end else 0
    for stop in range(end - 1, k + 1, -1):
        if lines[stop].strip() and _indent(lines[stop]) == depth and not lines[stop].lstrip().startswith(("#", "-")):
            yield k, stop, _as_services(lines, k, stop)


# How far below a compose file (its closing fence) the env file it names may be pasted.
ENV_FILE_GAP = 12


def _pasted_env_file(lines: list[str], end: int, text: str) -> str:
    """The env file a compose file names, pasted beside it, as a YAML document under PASTED_ENV_FILES; "" where there
    is none.

    The env file is a fenced block that opens within ENV_FILE_GAP lines after the compose file and whose lines are
    all `KEY=VALUE` lines, comments or blanks (a fence that closes another block holds prose up to the next). It is
    read only where the compose file names exactly one env file: a block with no name of its own is that file."""
    names = compose_env_files(text)
    if len(names) != 1:
        return ""
    entries: list[str] = []
    for start in (k for k in range(end, min(end + ENV_FILE_GAP, len(lines))) if FENCE.match(lines[k])):
        close = next((k for k in range(start + 1, min(start + MAX_SPEC_LINES, len(lines))) if FENCE.match(lines[k])),
                     None)
        body = [line.strip() for line in lines[start + 1:close]] if close is not None else []
        entries = [line for line in body if line and not line.startswith("#")]
        if entries and all(ENV_FILE_LINE.match(line) for line in entries):
            break
        entries = []
    if not entries:
        return ""
    return PIECE_SEPARATOR + json.dumps({PASTED_ENV_FILES: {names[0]: entries}}) + "\n"


def _piece(kind: str, doc: str, parse: Callable[[str], object], start: int, end: int, text: str) -> Found | None:
    """A piece of a spec pasted without what is around it (`text`: the spec it is a piece of), recorded
    as that spec, an excerpt; None when it does not parse."""
    try:
        parse(text)
    except ParseError:
        return None
    return _spec(kind, start, end, doc, text + "\n")


@importer("compose", "a docker compose file (`services:` with image, shm_size, ipc, environment, command), or a "
          "service of one pasted without its `services:` line", needles=("services:", "image:"), per_line=True)
def compose(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        fragment = _service_fragment(lines, i) if "image:" in lines[i] else None
        if fragment is not None and (found := _compose_piece(*fragment) or next(
                (f for cut in _service_keys_above(lines, fragment) if (f := _compose_piece(*cut, stopped=True))), None)):
            yield found
            scan.skip(fragment[1])
            continue
        if lines[i].strip() != "services:":
            continue
        pad = _indent(lines[i])
        if pad:
            # A file indented as a Markdown code block (four spaces, corpus 584): read with that indentation taken
            # off; a line indented less ends it.
            above = next((lines[j] for j in range(i - 1, max(i - 50, -1), -1) if lines[j].strip()), "")
            if pad > 8 or "\t" in lines[i] or (_YAML_KEY.match(above) and _indent(above) < pad):
                continue  # a `services:` key nested in another mapping is no compose file
            view = [line[pad:] if not line[:pad].strip() else "\0" + line
                    for line in lines[i:i + MAX_SPEC_LINES]]
            start, end = i, i + _yaml_block(view, 0, _COMPOSE_TOP)
            text = "\n".join(view[:end - i])
        else:
            start = i
            for k in range(i - 1, max(i - 4, -1), -1):  # `version: '3.8'` (and a blank line) above it
                if _COMPOSE_TOP.match(lines[k]):
                    start = k
                elif lines[k].strip():
                    break
            end = _yaml_block(lines, i, _COMPOSE_TOP)
            text = "\n".join(lines[start:end])
        try:
            if len(text) > MAX_SPEC_BYTES:
                raise ParseError("too large")
            parse_compose(text)
        except YamlError as exc:
            # A key pasted one column off (corpus 394's `deploy:`) stops the YAML there: the lines above it
            # are read once more, as an excerpt, so that nothing is concluded from what the cut left out.
            if (found := _read_above(lines, start, i, exc.line)) is not None:
                yield found
                scan.skip(found.end)
            continue
        except ParseError:
            continue
        yield _spec("compose", start, end, COMPOSE_FILE.name, text + "\n" + _pasted_env_file(lines, end, text))
        scan.skip(end)


def _read_above(lines: list[str], start: int, services: int, line: int | None) -> Found | None:
    """The compose file's lines above the one where its YAML stopped, as an excerpt; None where they hold no
    service line or do not parse either."""
    end = start + line if line is not None else start
    while end > services + 2 and not lines[end - 1].strip():
        end -= 1
    if end <= services + 2:
        return None
    return _compose_piece(start, end, "\n".join(lines[start:end]))


def _compose_piece(start: int, end: int, text: str, stopped: bool = False) -> Found | None:
    """A piece of a compose file (_piece), with COMPOSE_PIECE_MARK above it: its services' env is not read as whole.
    `stopped`: the lines above a key where the YAML stopped, an excerpt of its service (SPEC_CUT_MARK), since the keys
    below it are not read."""
    return _piece("compose", COMPOSE_FILE.name, parse_compose, start, end,
                  (SPEC_CUT_MARK if stopped else "") + COMPOSE_PIECE_MARK + text)


# The keys of a pod's container; a fragment that starts inside one holds two of them at one indentation.
_CONTAINER_KEY = re.compile(r"^(\s+)(?:- )?(image|resources|volumeMounts|env|args|command|securityContext|ports):(\s|$)")


# A `limits:` / `requests:` key under a container's `resources:`, and a GPU resource's line under it
# (`nvidia.com/gpu: "1"`, HAMi's `nvidia.com/gpumem: 4k`, `volcano.sh/vgpu-memory: 2048`: facts/k8s_node.ANY_GPU_RESOURCE).
_RESOURCE_LIST = re.compile(r"^\s+(?:limits|requests):\s*$")
_GPU_RESOURCE_LINE = re.compile(r"^\s+[\"']?([\w.-]+/[\w.-]+)[\"']?:\s*\S")


def _gpu_resources(block: list[str], depth: int) -> bool:
    """Whether a `resources:` block (its key at indentation depth first) lists a GPU resource under its limits or
    requests: a container's GPU request pasted alone (corpus 2410: HAMi's `nvidia.com/gpumem` beside
    `nvidia.com/gpu`), which no other object's `resources:` writes."""
    in_list = False
    for line in block[1:]:
        if line.strip() and _indent(line) <= depth:
            break
        if _RESOURCE_LIST.match(line):
            in_list = True
        elif in_list and (m := _GPU_RESOURCE_LINE.match(line)) and ANY_GPU_RESOURCE.search(m.group(1)):
            return True
    return False


def _container_fragment(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A container's keys pasted without the manifest around them (from `resources:` or `volumeMounts:` at
    line i, indented): its span and the pod manifest it is a piece of, or None."""
    m = _CONTAINER_KEY.match(lines[i])
    if not m or m.group(2) not in ("resources", "volumeMounts"):
        return None
    depth = _indent(lines[i])
    start = i
    while start > 0 and (not lines[start - 1].strip() or _indent(lines[start - 1]) >= depth) \
            and not FENCE.match(lines[start - 1]) and i - start < MAX_SPEC_LINES:
        start -= 1
    end = i + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= depth) \
            and not FENCE.match(lines[end]) and end - i < MAX_SPEC_LINES:
        end += 1
    while end > i + 1 and not lines[end - 1].strip():
        end -= 1
    # Lines deeper than the container's keys before its first key are the tail of a key cut away.
    first = next(k for k in range(start, end) if _indent(lines[k]) == depth and lines[k].strip()[:1] not in ("", "#"))
    keys = {c.group(2) for k in range(first, end) if (c := _CONTAINER_KEY.match(lines[k])) and _indent(lines[k]) == depth}
    if (len(keys) < 2 and not _gpu_resources(lines[i:end], depth)) \
            or not re.match(r"^\s+(?:- )?[\w.-]+:(\s|$)", lines[first]):
        return None
    body = "\n".join("    " + line[depth:] if line.strip() else "" for line in lines[first:end])
    # A cut key's tail of command-line flags (`--tp 16 \`) is the end of the container's command: its args.
    tail = "\n".join(line.strip() for line in lines[start:first] if line.strip())
    if not keys & {"args", "command"} and re.search(r"^--[a-z]", tail, re.MULTILINE):
        body = "    args: " + json.dumps(_split_command(join_continued(tail))) + "\n" + body
    return start, end, K8S_PIECE_MARK + "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  -\n" + body


# A container's `command:` / `args:` key opening a flow list (`args: ["--http-port=8501", ...`), which may run on over the
# lines below with a YAML comment after an item (corpus 1817).
_FLOW_KEY = re.compile(r"^(?P<indent>\s+)(?:- )?(?P<key>command|args):\s*\[(?P<rest>.*)$")
_FLOW_ITEM = re.compile(r"\s*(?:\"(?P<dq>(?:[^\"\\]|\\.)*)\"|'(?P<sq>[^']*)'|(?P<bare>[^\s,\[\]\"'#]+))\s*(?P<sep>,|\])?")
MAX_FLOW_LINES = 64  # a container's argument list is a few dozen lines


def _flow_items(text: str) -> tuple[list[str], bool]:
    """The items of a YAML flow list's text after its `[` (its lines joined, a `#` comment ending each), and whether
    the list closes; an item the text cuts (a quote never closed) is left out, a quoted item over lines is folded."""
    items: list[str] = []
    at = 0
    while at < len(text):
        if text[at] in " \t\n,":
            at += 1
            continue
        if text[at] == "#":
            at = text.find("\n", at) if "\n" in text[at:] else len(text)
            continue
        if text[at] == "]":
            return items, True
        m = _FLOW_ITEM.match(text, at)
        if m is None or m.end() == at:
            break
        # A quoted item may run over lines (`args: ["tritonserver` over `--model-repository=/models`): YAML folds them.
        items.append(" ".join(next(v for v in (m["dq"], m["sq"], m["bare"]) if v is not None).split()))
        at = m.end()
        if m["sep"] == "]":
            return items, True
    return items, False


def _flow_args_fragment(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A container's `command:` and `args:` flow lists pasted out of their container (corpus 1817: Triton's command and
    its args over several lines, a comment after some items, the paste cut inside the last): their span and the pod
    manifest they are a piece of (K8S_PIECE_MARK), or None. Read only where an `args:` key is among them: compose
    services take a `command:` list too, and `args:` is Kubernetes' alone."""
    if _FLOW_KEY.match(lines[i]) is None:
        return None
    lists: dict[str, list[str]] = {}
    end = i
    while end < len(lines) and end - i < MAX_FLOW_LINES and (m := _FLOW_KEY.match(lines[end])) is not None:
        text, k = m["rest"], end + 1
        items, closed = _flow_items(text)
        while not closed and k < len(lines) and k - end < MAX_FLOW_LINES and lines[k].strip() \
                and lines[k][:1] in " \t" and not FENCE.match(lines[k]) and _FLOW_KEY.match(lines[k]) is None:
            text += "\n" + lines[k]
            k += 1
            items, closed = _flow_items(text)
        if not closed and k < len(lines) and any(x.strip() for x in lines[k:k + 1]):
            return None  # a list left open with more lines after it: no flow list the paste cuts
        lists[m["key"]] = items
        end = k
        after = next((j for j in range(k, min(k + 3, len(lines))) if lines[j].strip()), k)
        if closed and after > k and _FLOW_KEY.match(lines[after]):
            end = after  # a blank line between `command: [...]` and `args: [...]`
    if "args" not in lists or not any(lists.values()):
        return None
    if end == i + 1 and container_args(lines[i]) is not None:
        return None  # one line that runs an engine: the engine command reader's (container_args), whole as it is
    import yaml

    ctr = {key: lists[key] for key in ("command", "args") if key in lists}
    manifest = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [ctr]}}
    return i, end, K8S_PIECE_MARK + yaml.safe_dump(manifest, default_flow_style=False, sort_keys=False)


# A container's `env:` list item (`- name: NCCL_SOCKET_IFNAME`, then `value:` or `valueFrom:` below it).
_ENV_ITEM = re.compile(r"^(\s+)- name:\s*[A-Z_][A-Z0-9_]*\s*$")
_ENV_VALUE = re.compile(r"^\s+(?:value|valueFrom):")


def _env_fragment(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A container's `env:` list pasted from one of its items (line i), without the keys above it, and the
    container keys that follow it (`ports:`): its span and the pod manifest it is a piece of, or None.
    It needs two items, each with its value on the line below: the form of a pod spec's env, not a list of names."""
    m = _ENV_ITEM.match(lines[i])
    if not m or i + 1 >= len(lines) or not _ENV_VALUE.match(lines[i + 1]):
        return None
    depth = len(m.group(1))
    if i > 0 and lines[i - 1].strip() and _indent(lines[i - 1]) >= depth and not FENCE.match(lines[i - 1]):
        return None  # not the first item of the run: the run is taken from its first line
    end = i
    items = 0
    while end < len(lines) and end - i < MAX_SPEC_LINES and lines[end].strip() and _indent(lines[end]) >= depth \
            and not FENCE.match(lines[end]):
        items += bool(_ENV_ITEM.match(lines[end]) and _indent(lines[end]) == depth)
        end += 1
    if items < 2:
        return None
    # The list's own `env:` key above it, where the paste keeps it (at any indentation, the first line's often lost).
    start = i - 1 if i > 0 and lines[i - 1].strip() == "env:" and _indent(lines[i - 1]) <= depth else i
    keys = depth  # the container's keys: the env list's own depth when nothing follows it
    if end < len(lines) and re.match(r"^\s+[a-zA-Z]\w*:(\s|$)", lines[end]) and _indent(lines[end]) < depth:
        keys = _indent(lines[end])
        while end < len(lines) and end - i < MAX_SPEC_LINES and lines[end].strip() and _indent(lines[end]) >= keys \
                and not FENCE.match(lines[end]):
            end += 1
    shift = keys - 4
    body = "\n".join(line[shift:] if shift >= 0 else " " * -shift + line for line in lines[i:end])
    # Its `env:` key above it and a container key after it: the list is shown from its start to its end.
    # (Compact form: the keys after it stand at the items' own indentation.)
    keys_after = keys < depth or any(_indent(lines[k]) == depth and lines[k].strip()
                                     and not lines[k].lstrip().startswith("- ") for k in range(i, end))
    mark = K8S_ENV_WHOLE_MARK if start < i and keys_after else K8S_PIECE_MARK
    return start, end, mark + "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  -\n    env:\n" + body


# A pod spec's keys as a fragment pasted without apiVersion/kind starts with: the pod's `spec:` (holding `volumes:`
# and `containers:`), or a container's `volumeMounts:` beside the pod's `volumes:` at one indentation, or a
# container's keys and the pod's volumes side by side (_POD_PIECE_KEYS).
_POD_KEY = re.compile(r"^(\s*)(spec|volumes|volumeMounts|containers|resources|args|command|env|image):\s*$")
# A container's keys pasted as blocks of their own beside the pod's `volumes:`, pieces elided between them (`# ...`):
# a pod's when one asks for a GPU (`nvidia.com/gpu` in `resources:`) and one runs a program (`args:`, `command:`).
_POD_PIECE_KEYS = frozenset({"volumeMounts", "resources", "args", "command", "env", "image"})
# A Helm template's placeholder (`{{ .Release.Name }}`): a name the chart fills in; YAML would read `{` as a mapping.
_HELM = re.compile(r"\{\{[^{}\n]*\}\}")


def _shifted(lines: list[str], indent: int) -> str:
    """Lines moved to start at `indent` columns, their nesting kept (the paste's own indentation dropped)."""
    least = min((_indent(line) for line in lines), default=0)
    return "\n".join(" " * indent + line[least:] for line in lines)


def _pod_fragment(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A pod spec pasted without its manifest (lines i on): `spec:` with `volumes:` and `containers:` below it,
    or a container's `volumeMounts:` and the pod's `volumes:` side by side (a Helm pod template's piece); its
    span and the pod manifest it is a piece of, or None. Helm placeholders are read as the word `helm`."""
    m = _POD_KEY.match(lines[i])
    above = lines[i - 1] if i > 0 else ""
    if not m or (above.strip() and not FENCE.match(above) and (_indent(above) > _indent(lines[i]) or (
            _indent(above) == _indent(lines[i]) and re.match(r"^\s*(?:- |#|[\w.-]+:(?:\s|$))", above)))):
        return None  # not the fragment's first line (a shell prompt above it is no YAML)
    depth = _indent(lines[i])
    end = i + 1
    blocks: dict[str, list[str]] = {m.group(2): []}
    key = m.group(2)
    j = i + 1
    while j < len(lines) and j - i < MAX_SPEC_LINES and not FENCE.match(lines[j]):
        line = lines[j]
        if line.lstrip().startswith("#"):  # a comment (`# ...`: a piece elided) is no key of the spec
            j += 1
            continue
        if line.strip() and _indent(line) <= depth:
            k = _POD_KEY.match(line)
            if not k or _indent(line) != depth or k.group(2) in blocks:
                break
            key = k.group(2)
            blocks[key] = []
        elif line.strip():
            blocks[key].append(_HELM.sub("helm", line.expandtabs()))
        j += 1
        if line.strip():
            end = j
    if "spec" in blocks and len(blocks) == 1:
        body = _shifted(blocks["spec"], 2)
        if not re.search(r"^\s+containers:", body, re.MULTILINE):
            return None
        return i, end, "apiVersion: v1\nkind: Pod\nspec:\n" + body
    if not all(blocks.values()):
        return None
    if "containers" in blocks:
        return _containers_piece(i, end, blocks)
    if set(blocks) - {"volumes", "volumeMounts"}:
        return _pod_piece(i, end, blocks)
    if set(blocks) != {"volumes", "volumeMounts"}:
        return None
    volumes = _shifted(blocks["volumes"], 2)
    mounts = _shifted(blocks["volumeMounts"], 4)
    return i, end, ("apiVersion: v1\nkind: Pod\nspec:\n  volumes:\n" + volumes
                    + "\n  containers:\n  - volumeMounts:\n" + mounts)


def _containers_piece(start: int, end: int, blocks: dict[str, list[str]]) -> tuple[int, int, str] | None:
    """A pod spec's `containers:` list pasted without the spec around it (corpus 1405: the list alone, its image and
    args), the pod's `volumes:` beside it or not: its span and the pod manifest it is a piece of, or None where the
    list holds no container (its first line is no `- ` item) or another key stands beside it. A piece: the pod's
    other keys (its volumes, where not shown) are not read as absent; the containers' command and args lists are
    shown to their end (K8S_CONTAINERS_MARK)."""
    if set(blocks) - {"containers", "volumes"} or not blocks["containers"][0].lstrip().startswith("- "):
        return None
    pod = "  volumes:\n" + _shifted(blocks["volumes"], 4) + "\n" if "volumes" in blocks else ""
    return start, end, (K8S_CONTAINERS_MARK + "apiVersion: v1\nkind: Pod\nspec:\n" + pod + "  containers:\n"
                        + _shifted(blocks["containers"], 4))


def _pod_piece(start: int, end: int, blocks: dict[str, list[str]]) -> tuple[int, int, str] | None:
    """A container's keys pasted as blocks beside the pod's volumes (_POD_PIECE_KEYS): its span and the pod manifest
    it is a piece of, or None where the blocks are not a pod's (no GPU request, or no program run)."""
    keys = set(blocks) - {"volumes"}
    if not keys <= _POD_PIECE_KEYS or not keys & {"args", "command"} \
            or not any("nvidia.com/gpu" in line for line in blocks.get("resources", ())):
        return None
    pod = "  volumes:\n" + _shifted(blocks["volumes"], 4) + "\n" if "volumes" in blocks else ""
    ctr = "".join(f"    {key}:\n" + _shifted(lines, 6) + "\n" for key, lines in blocks.items() if key != "volumes")
    return start, end, K8S_PIECE_MARK + "apiVersion: v1\nkind: Pod\nspec:\n" + pod + "  containers:\n  -\n" + ctr


# `kubectl describe pod`: `Name:` then `Namespace:` at one indentation (the whole output may be indented), a
# `Containers:` section, each container's fields two columns deeper (https://kubernetes.io/docs/reference/kubectl/
# generated/kubectl_describe/), read with facts/k8s_pods.describe_sections and describe_items. Read into the pod
# manifest it describes; the Events table is left to the lines readers (its FailedScheduling message is a symptom of
# facts/symptoms.py).
# The fields `kubectl describe pod` prints after the volumes: a paste that reaches one shows the pod's sections whole.
_DESCRIBE_TAIL = ("QoS Class", "Node-Selectors", "Tolerations", "Events")
# The sections it prints after its containers: a paste that reaches one shows each container's fields whole (its
# resources too), the pod's later sections perhaps cut (K8S_DESCRIBED_CONTAINERS_MARK).
_AFTER_CONTAINERS = ("Conditions", "Volumes", *_DESCRIBE_TAIL)


def _describe_container(name: str, block: list[str]) -> dict[str, object]:
    """A container's fields as a pod spec writes them: image, command, args, resources, env and mounts."""
    fields = describe_sections(block, 0)
    ctr: dict[str, object] = {"name": name}
    image = fields.get("Image", ("", []))[0]
    if image:
        ctr["image"] = image
    for key, spec in (("Command", "command"), ("Args", "args")):
        if key in fields and fields[key][1]:
            ctr[spec] = [line.strip() for line in fields[key][1]]
    resources = {spec: {k.strip(): v.strip() for line in fields[key][1] if (k := line.partition(":")[0]) and
                        (v := line.partition(":")[2]).strip()}
                 for key, spec in (("Limits", "limits"), ("Requests", "requests")) if key in fields}
    if resources:
        ctr["resources"] = resources
    env = [{"name": k.strip(), "value": v.strip()} for line in fields.get("Environment", ("", []))[1]
           if re.match(r"^\s*[A-Za-z_][\w.-]*:\s", line) and (k := line.partition(":")[0])
           and not (v := line.partition(":")[2]).strip().startswith("<")]  # `<set to the key …>`: a valueFrom
    if env:
        ctr["env"] = env
    mounts = [{"name": m.group(2), "mountPath": m.group(1)} for line in fields.get("Mounts", ("", []))[1]
              if (m := re.match(r"^\s*(\S+) from (\S+)", line))]
    if mounts:
        ctr["volumeMounts"] = mounts
    return ctr


def _describe_volume(name: str, block: list[str]) -> dict[str, object]:
    """A volume as a pod spec writes it, where describe shows its kind: a memory emptyDir, a hostPath."""
    fields = {k: v for k, (v, _) in describe_sections(block, 0).items()}
    kind = fields.get("Type", "")
    if kind.startswith("EmptyDir"):
        empty: dict[str, str] = {"medium": fields.get("Medium", "")}
        if fields.get("SizeLimit", "<unset>") != "<unset>":
            empty["sizeLimit"] = fields["SizeLimit"]
        return {"name": name, "emptyDir": empty}
    if kind.startswith("HostPath"):
        return {"name": name, "hostPath": {"path": fields.get("Path", "")}}
    return {"name": name}


def _describe_pod(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A `kubectl describe pod` output from its `Name:` line i: its span (up to its Events table) and the pod
    manifest it describes (containers, init containers, volumes, node, phase, conditions; "" where it is cut before
    its containers), or None."""
    m = re.match(r"^(\s*)Name:\s+\S+\s*$", lines[i])
    if not m or i + 1 >= len(lines) or not re.match(rf"^{m.group(1)}Namespace:\s+\S", lines[i + 1]):
        return None
    base = len(m.group(1).expandtabs())
    end = i + 1
    while end < len(lines) and end - i < MAX_SPEC_LINES and not FENCE.match(lines[end]):
        line = lines[end]
        if line.strip() and (_indent(line) < base or (re.match(r"^\s*Events:", line) and _indent(line) == base)):
            break
        end += 1
    while end > i and not lines[end - 1].strip():
        end -= 1
    fields = describe_sections(lines[i:end], base)
    containers = [_describe_container(n, b) for n, b in describe_items(fields.get("Containers", ("", []))[1])]
    # A description cut before its containers that shows the pod's node (corpus 2112: the GPU Operator's pod, cut in
    # its annotations) is recorded as a manifest without containers, as a YAML manifest so cut is (k8s_pod).
    if not containers and fields.get("Node", ("", []))[0] in ("", "<none>"):
        return i, end, ""
    spec: dict[str, object] = {"containers": containers} if containers else {}
    inits = [_describe_container(n, b) for n, b in describe_items(fields.get("Init Containers", ("", []))[1])]
    if inits:
        spec["initContainers"] = inits
    node = fields.get("Node", ("", []))[0]
    spec["nodeName"] = None if node in ("", "<none>") else node.split("/")[0]
    volumes = [_describe_volume(n, b) for n, b in describe_items(fields.get("Volumes", ("", []))[1])]
    if volumes:
        spec["volumes"] = volumes
    status: dict[str, object] = {}
    if fields.get("Status", ("", []))[0]:
        status["phase"] = fields["Status"][0]
    rows = [r.split() for r in fields.get("Conditions", ("", []))[1]]
    conditions = [{"type": r[0], "status": r[1]} for r in rows if len(r) == 2 and r[1] in ("True", "False")]
    if conditions:
        status["conditions"] = conditions
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": fields["Name"][0]}, "spec": spec,
                "status": status}
    import yaml

    text = yaml.safe_dump(manifest, default_flow_style=False, sort_keys=False)
    whole = any(k in fields for k in _DESCRIBE_TAIL) or (end < len(lines) and "Events:" in lines[end])
    mark = K8S_DESCRIBED_CONTAINERS_MARK if containers and any(k in fields for k in _AFTER_CONTAINERS) \
        else K8S_PIECE_MARK
    return i, end, (text if whole else mark + text)


_DESCRIBED_ITEM = re.compile(r"^(?P<base>\s*)[\w.-]+:\s*$")
_DESCRIBED_ID = re.compile(r"^(?P<base>\s+)Container ID:(?:\s|$)")


def _described_container(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """One container of a `kubectl describe pod` pasted without the pod's header, from the `Container ID:` line i under
    the container's name (corpus 1874: a GPU Operator validator's init container, the paste opening inside the mounts
    of the one before it): its span and the pod manifest it is a piece of (K8S_PIECE_MARK: an init container or not,
    the pod's other keys are not shown), or None where line i is no such field or the block names no image."""
    m = _DESCRIBED_ID.match(lines[i])
    k = next((j for j in range(i - 1, max(i - 3, -1), -1) if lines[j].strip()), -1)
    item = _DESCRIBED_ITEM.match(lines[k]) if m and k >= 0 else None
    if m is None or item is None or _indent(item.group("base")) + 2 != _indent(m.group("base")):
        return None
    base = _indent(m.group("base"))
    end = i
    while end < len(lines) and end - i < MAX_SPEC_LINES and not FENCE.match(lines[end]) and (
            not lines[end].strip() or _indent(lines[end]) >= base):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    ctr = _describe_container(lines[k].strip()[:-1], [x.expandtabs()[base:] for x in lines[i:end]])
    if "image" not in ctr:
        return None
    import yaml

    manifest = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [ctr]}}
    return k, end, K8S_PIECE_MARK + yaml.safe_dump(manifest, default_flow_style=False, sort_keys=False)


# A volume of `kubectl describe pod`'s Volumes section pasted without the pod (corpus 2576: `-  dshm:` over its
# `Type:       EmptyDir (...)`, `Medium:`, `SizeLimit:`): its name, then describe's Type field one level deeper.
_DESCRIBED_VOLUME_TYPE = re.compile(r"^(?P<base>\s+)Type:\s+(?:EmptyDir|HostPath) \(")


def _described_volume(lines: list[str], i: int) -> tuple[int, int, str] | None:
    """A `kubectl describe pod` volume pasted alone, from its `Type:` line i under the volume's name: its span and the
    pod manifest it is a piece of (K8S_PIECE_MARK, the volume only: no container shown), or None."""
    m = _DESCRIBED_VOLUME_TYPE.match(lines[i])
    item = re.match(r"^[\s-]*(?P<name>[\w.-]+):\s*$", lines[i - 1]) if m and i > 0 else None
    if m is None or item is None or _indent(lines[i - 1]) >= _indent(m.group("base")):
        return None
    base = _indent(m.group("base"))
    end = i
    while end < len(lines) and end - i < 20 and lines[end].strip() and _indent(lines[end]) == base \
            and re.match(r"^\s+[A-Z][\w-]*:", lines[end]):
        end += 1
    volume = _describe_volume(item.group("name"), [x.expandtabs()[base:] for x in lines[i:end]])
    import yaml

    manifest = {"apiVersion": "v1", "kind": "Pod", "spec": {"volumes": [volume]}}
    return i - 1, end, K8S_PIECE_MARK + yaml.safe_dump(manifest, default_flow_style=False, sort_keys=False)


def _described_found(lines: list[str], start: int, end: int, manifest: str) -> Found | None:
    """A described pod recorded twice: its manifest as a pod spec (where its containers are shown), and its lines
    verbatim as a pod's state (K8S_PODS: its status, as `kubectl get pods` would print it, and its restarts; where the
    description shows its `Status:`). None where neither reads."""
    text = "\n".join(lines[start:end]) + "\n"
    state = document_appended(K8S_PODS.name, text) if described_pods(lines[start:end]) else None
    try:
        parse_k8s(manifest)
    except ParseError:
        if state is None and "containers:" not in manifest and manifest.strip():
            return _spec("k8s pod", start, end, K8S_SPEC.name, manifest + "\n")
        if state is None:
            return None
        return Found("k8s pod", start, end, state)
    spec = _spec("k8s pod", start, end, K8S_SPEC.name, manifest + "\n",
                 whole=not manifest.startswith((K8S_PIECE_MARK, K8S_DESCRIBED_CONTAINERS_MARK)))
    if state is None:
        return spec
    assert spec.cut is not None
    return Found("k8s pod", start, end, applied_each(spec.apply, state), spec.whole, cut=applied_each(spec.cut, state))


@importer("k8s pod", "a Kubernetes pod / deployment / LeaderWorkerSet manifest (YAML with apiVersion, kind, "
          "spec.containers), or a "
          "container's keys or env list, or a pod's spec or volumes, pasted without it (column-0 blocks of a container's "
          "GPU request and args too), or `kubectl describe pod` (or one container of it)",
          needles=("apiVersion:", "kind:", "resources:", "volumeMounts:", "- name:", "spec:", "volumes:", "Name:",
                   "containers:", "Container ID:", "command:", "args:", "Type:"),
          per_line=True)
def k8s_pod(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        fragment = (_container_fragment(lines, i) or _env_fragment(lines, i)) if lines[i][:1] in (" ", "\t") else None
        fragment = fragment or _pod_fragment(lines, i) or (_flow_args_fragment(lines, i) if "[" in lines[i] else None)
        if fragment is None and "Container ID:" in lines[i] and (one := _described_container(lines, i)) is not None:
            if found := _piece("k8s pod", K8S_SPEC.name, parse_k8s, *one):
                yield found
                scan.skip(found.end)
            continue
        if fragment is None and "Type:" in lines[i] and (volume := _described_volume(lines, i)) is not None:
            yield _spec("k8s pod", volume[0], volume[1], K8S_SPEC.name, volume[2] + "\n")
            scan.skip(volume[1])
            continue
        if fragment is None and "Name:" in lines[i] and (described := _describe_pod(lines, i)) is not None:
            if found := _described_found(lines, *described):
                yield found
                scan.skip(described[1])
            continue
        if fragment is not None and (found := _piece("k8s pod", K8S_SPEC.name, parse_k8s, *fragment)):
            yield found
            scan.skip(found.end)
            continue
        if "apiVersion:" in lines[i] and FLAT_MANIFEST.search(lines[i]) and len(lines[i]) <= MAX_SPEC_BYTES:
            try:
                parse_flat_k8s(lines[i])
            except ParseError:
                pass
            else:
                yield _spec("k8s pod", i, i + 1, K8S_SPEC.name, lines[i] + "\n")
                continue
        first = lines[i]
        if first[:1] == " " and i + 1 < len(lines) and _K8S_TOP.match(lines[i + 1]):
            first = first.lstrip(" ")  # the manifest's first line pasted with a stray indent (corpus 2581)
        if not _K8S_START.match(first):
            continue
        end = _yaml_block(lines, i, _K8S_TOP)
        text = "\n".join([first, *lines[i + 1:end]])
        head = text[:2000]
        if not (re.search(r"^apiVersion:", head, re.MULTILINE) and re.search(r"^kind:", head, re.MULTILINE)):
            continue
        try:
            parse_k8s(text)
        except ParseError:
            # A manifest cut before its containers is still one (what it shows is recorded; no container).
            if not re.search(r"^kind:\s*(?:Pod|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|CronJob)\s*$",
                              head, re.MULTILINE) or len(text) > MAX_SPEC_BYTES:
                continue
        yield _spec("k8s pod", i, end, K8S_SPEC.name, text + "\n")
        scan.skip(end)


# --- docker inspect excerpts -------------------------------------------------------------------

_JSONISH = re.compile(r'^\s*(?:"[^"]*"\s*:.*|"[^"]*"?,?|[\[\]{}]+,?|-?\d[\d.eE+-]*,?|true,?|false,?|null,?'
                      r'|\.{3,}|…+)\s*$')
_INSPECT_KEYS = ("HostConfig", "ShmSize", "IpcMode", "Ulimits", "DeviceRequests", "Args", "Path", "Env", "Runtime")
_INSPECT_KEY = re.compile(r'^\s*"(?:' + "|".join(_INSPECT_KEYS) + r')"\s*:')


def _whole_array(text: str) -> bool:
    try:
        load_json(extract_json_array(text), "docker inspect")
    except (ParseError, ValueError):
        return False
    return True


# `docker inspect ollama | jq '.[0].HostConfig.DeviceRequests'`, `docker inspect -f '{{json .HostConfig.ShmSize}}' vllm`:
# one HostConfig key's value, its key named only in the command (ollama/ollama#6383). The JSON value follows within
# _PROJECTION_GAP lines (a fence, a line of prose).
_PROJECTION = re.compile(r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?inspect\b.*?\.HostConfig\.(?P<key>"
                         + "|".join(k for k in _INSPECT_KEYS if k not in ("HostConfig", "Args", "Path", "Env"))
                         + r")\b")
_PROJECTION_GAP = 4
# The inspect's own options that take a value (`-f FORMAT`, `--type container`): its other words name the containers.
_INSPECT_VALUED = frozenset({"-f", "--format", "--type"})


def _inspected(line: str) -> str:
    """The one container a projecting `docker inspect` names (`docker inspect ollama | jq ...` -> `ollama`,
    `docker inspect -f '{{json .HostConfig.ShmSize}}' vllm` -> `vllm`), or "" where it names none or several."""
    try:
        words = shlex.split(line[line.find("inspect") + len("inspect"):].split(" | ")[0])
    except ValueError:
        return ""
    names, skip = [], False
    for word in words:
        if skip or word.startswith("-"):
            skip = not skip and word in _INSPECT_VALUED
            continue
        names.append(word)
    return names[0] if len(names) == 1 and re.fullmatch(r"\w[\w.-]*", names[0]) else ""


def _projected(lines: list[str], at: int) -> tuple[int, str] | None:
    """(the end, the value wrapped as `{"HostConfig": {key: value}}`, with the container's `Name` where the command
    names one: _inspected) of the value a projecting command at `at` printed, else None."""
    m = _PROJECTION.search(lines[at])
    if not m:
        return None
    for start in range(at + 1, min(at + 1 + _PROJECTION_GAP, len(lines))):
        head = lines[start].strip()
        if not head or not (head[0] in "[{" or head[0].isdigit() or head == "null"):
            continue
        text = "\n".join(lines[start:start + MAX_SPEC_LINES]).lstrip()
        try:
            value, size = json.JSONDecoder().raw_decode(text)
        except ValueError:
            return None
        end = start + text[:size].count("\n") + 1
        name = _inspected(lines[at])
        return end, json.dumps({**({"Name": f"/{name}"} if name else {}), "HostConfig": {m.group("key"): value}},
                               indent=2)
    return None


# Not per line: an excerpt starts at any JSON-looking line (a digit, a brace); but it is only taken with one of
# docker inspect's keys in it, or after a command that projects one (_PROJECTION).
@importer("docker inspect excerpt", "part of a `docker inspect` output (an object or a HostConfig fragment)",
          needles=(*(f'"{key}"' for key in _INSPECT_KEYS), ".hostconfig."))
def docker_inspect_excerpt(lines: list[str]) -> Iterator[Found]:
    for start in (scan := Scan(lines, None)):
        if ".HostConfig." in lines[start] and (projected := _projected(lines, start)):
            end, text = projected
            scan.skip(end)
            try:
                parse_inspect_excerpt(text)
            except ParseError:
                continue
            yield Found("docker inspect excerpt", start, end, _append(DOCKER_INSPECT_EXCERPT.name, text + "\n"))
            continue
        if not _JSONISH.match(lines[start]) or not lines[start].strip():
            continue
        i = end = start
        blanks = 0
        keyed = False
        while i < len(lines) and i - start < MAX_SPEC_LINES:
            line = lines[i]
            if not line.strip():
                blanks += 1
                if blanks > 3:
                    break
            elif _JSONISH.match(line):
                blanks = 0
                keyed = keyed or bool(_INSPECT_KEY.match(line))
                end = i + 1
            else:
                break
            i += 1
        scan.skip(end)
        if not keyed or end - start < 3:
            continue
        text = "\n".join(lines[start:end])
        if text.lstrip().startswith("[") and _whole_array(text):
            continue  # the whole output: the `docker inspect` importer's
        try:
            parse_inspect_excerpt(text)
        except ParseError:
            continue
        yield Found("docker inspect excerpt", start, end, _append(DOCKER_INSPECT_EXCERPT.name, text + "\n"))
