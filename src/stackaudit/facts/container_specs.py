"""Container specs people paste: a `docker run` command line, a docker compose file, a Kubernetes pod
or deployment spec, and `docker inspect` excerpts; each read into the `docker_containers` vocabulary.

A spec shows how a container is started (its flags, environment and the engine's argv after the
image), not what it runs with now; an excerpt shows only its own lines. Fields a paste does not show
stay unknown: `DockerContainer.excerpt` says the spec is cut, so an absent ShmSize or GPU request
proves nothing there.

Docker's defaults and spellings: https://docs.docker.com/reference/cli/docker/container/run/ (the
64 MiB /dev/shm, `--shm-size` in bytes with b/k/m/g suffixes, `--ulimit name=soft[:hard]`, `--gpus`);
compose: https://docs.docker.com/reference/compose-file/services/ (`shm_size`, `ipc`, `ulimits`,
`deploy.resources.reservations.devices`); Kubernetes: an `emptyDir: {medium: Memory}` volume mounted
at /dev/shm is the documented way to size /dev/shm (https://docs.vllm.ai/en/stable/deployment/k8s/).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Callable, Iterable
from typing import Any

from stackaudit.facts._parse import ParseError, first_command, join_continued, parse_size_bytes
from stackaudit.facts.docker import (
    GPU_SHARE_RESOURCES,
    K8S_GPU_RESOURCE,
    DeviceRequest,
    DockerContainer,
    DockerContainers,
    Ulimit,
    binds_host_shm,
    json_brackets,
    volume_binds_host_shm,
)
from stackaudit.facts.registry import parser
from stackaudit.facts.sources import COMPOSE_FILE, DOCKER_INSPECT_EXCERPT, DOCKER_RUN, K8S_SPEC
from stackaudit.host.limits import load_json

MAX_SPEC_BYTES = 1024 * 1024
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 200_000
MAX_CUTS = 64
# How the importer joins pieces of one pasted document (a YAML document separator; never a JSON line).
PIECE_SEPARATOR = "\n---\n"
# The first line the importer gives a spec that the paste cuts at its end (it runs to the end of a fenced block that
# never closes: importers/recognition._cut_at_end): its last container goes on past what is shown, so its absent keys
# (shm_size, ipc, command, a GPU request, more env) are unknown, not absent. A YAML comment, so the text still parses.
SPEC_CUT_MARK = "# a spec the paste cuts at its end\n"
# Above a `docker run` of nvidia-smi whose output, pasted below the command, names no GPU (importers/container_specs.py:
# its lines up to the next prompt, command, fence or heading hold no GPU row): DockerContainer.probe_lists_no_gpu.
PROBE_NO_GPU_MARK = "# a nvidia-smi run whose pasted output names no GPU\n"
# Above a `docker run` that the paste ends in before its image (`nerdctl run -n k8s.io --runtime=... --name ubuntu --gp`
# as a paste's last line, corpus 1861): its options are read, its image and argv are not shown (parse_docker_run's `cut`).
RUN_CUT_MARK = "# a run the paste cuts before its image\n"

ORIGIN_DOCKER_RUN = "docker run"
ORIGIN_COMPOSE = "compose"
ORIGIN_K8S = "kubernetes"
ORIGIN_INSPECT_EXCERPT = "docker inspect excerpt"

# `docker run` options that take no value (every other option does); short ones may be combined (`-itd`).
_RUN_BOOLEAN_LONG = frozenset({
    "--detach", "--interactive", "--tty", "--rm", "--privileged", "--init", "--publish-all", "--read-only",
    "--oom-kill-disable", "--no-healthcheck", "--help", "--quiet", "--sig-proxy", "--disable-content-trust",
    # Podman's own (https://docs.podman.io/en/latest/markdown/podman-run.1.html): `podman run --replace --name x`
    # (corpus 982) replaces a container of that name.
    "--replace", "--rmi", "--no-hosts", "--rootfs", "--env-host", "--http-proxy", "--read-only-tmpfs", "--passwd",
    "--tls-verify",
})
_RUN_BOOLEAN_SHORT = frozenset("ditPq")
# `docker run` long options that no serving engine's own command line takes (docker's options list,
# https://docs.docker.com/reference/cli/docker/container/run/; `--device`, `--env`, `--name` and the like left out,
# which engines' flags share): a bare word these follow is a stray word of a hand-typed command, not the image, and
# a `-- runtime` typed with a space is the option.
_RUN_ONLY_LONG = frozenset({
    "--gpus", "--ulimit", "--shm-size", "--ipc", "--network", "--net", "--runtime", "--privileged", "--rm",
    "--volume", "--mount", "--publish", "--cap-add", "--cap-drop", "--security-opt", "--pid", "--hostname",
    "--detach", "--interactive", "--tty", "--entrypoint", "--restart", "--add-host", "--env-file", "--group-add",
    "--cpus", "--cpuset-cpus", "--cpuset-mems", "--userns", "--log-driver", "--log-opt", "--oom-kill-disable",
    "--sysctl", "--tmpfs", "--uts", "--volumes-from", "--memory-swap", "--device-cgroup-rule",
})
# How a pasted command line starts the container: `docker run`, `docker container run`, `nvidia-docker run`, and
# Podman's Docker-compatible `podman run` / `podman container run` (https://docs.podman.io/en/latest/markdown/podman-run.1.html),
# and containerd's `nerdctl run`, which takes Docker's run options as they are (`--gpus`, `--runtime`, `--shm-size`;
# https://github.com/containerd/nerdctl/blob/main/docs/command-reference.md), its namespace given before `run` or after
# (`nerdctl -n k8s.io run`, `nerdctl run -n k8s.io`: the value of an option the reader keeps aside).
# At a line's start, after a shell prompt (`$ `, `root@h:/# `, zsh's `~ `, the `❯` of zsh's pure and starship's
# default prompt, alone: `❯ podman run ...`, corpus 2378), inline-code backticks or `;`/`&&`;
# as inline code after a list mark (`1. \`docker run …\``, group `item`) or inside a sentence (group `code`),
# bare after a numbered list item's mark (`1. docker run -it --gpus all … \`, a step of a bug report's reproduction),
# up to the closing backtick; between quotes inside a sentence (group `quote`: “sudo docker run … nvidia-smi”),
# up to the closing quote; bare inside a sentence (group `prose`) only with options first and an image
# reference with a registry path or a tag ("When running docker run -d … ghcr.io/x/y:latest"; never "I tried
# docker run but …", whose "image" would be a word of the sentence).
DOCKER_RUN_START = re.compile(r"(?:^\s*(?:\S{0,60}[#$%>~❯]\s+)?`{0,3}|[;&|(]\s*|^\s*(?:\d{1,3}[.)]|[-*+])\s+(?P<item>`{1,3})"
                              r"|^\s*\d{1,3}[.)]\s+"
                              r"|(?<=[\s:：])(?P<code>`)|(?<=[\s:：])(?P<quote>[“\"])|(?<=\s)(?P<prose>))"
                              r"(?:sudo\s+(?:-\S+\s+)*)?"
                              r"(?:(?:nvidia-)?docker|podman|nerdctl(?:\s+(?:-n|--namespace)[=\s][\w.-]+)?)\s+(?:container\s+)?run\b")
# An image reference as a sentence's `docker run` must name it (`ghcr.io/a/b:latest`, `nvidia/cuda:10.2-base`).
_PROSE_IMAGE = re.compile(r"^[\w.-]+(?:/[\w.-]+)*(?::[\w.-]+)?$")


def _ulimit(name: str, value: str) -> Ulimit | None:
    soft, _, hard = value.partition(":")
    try:
        s = int(soft)
        return Ulimit(name, s, int(hard) if hard else s)
    except ValueError:
        return None


def _gpus(value: str) -> DeviceRequest:
    """`--gpus all`, `--gpus 2`, `--gpus '"device=0,1"'`, `--gpus device=GPU-...` as Docker records them."""
    value = value.strip().strip("'\"")
    ids: tuple[str, ...] = ()
    count = 0
    zero = False  # a count of 0 written out (`--gpus 0`), not one the paste leaves unread (`--gpus $GPUS`)
    for part in re.split(r",(?=[a-z]+=)", value):
        key, eq, val = part.partition("=")
        if not eq:
            count = -1 if key == "all" else int(key) if key.isdecimal() else 0
            zero = key.isdecimal() and count == 0
        elif key == "device":
            ids = tuple(v for v in val.strip("'\"").split(",") if v)
        elif key == "count":
            count = -1 if val == "all" else int(val) if val.isdecimal() else 0
            zero = val.isdecimal() and count == 0
    return DeviceRequest("", count, ids, (("gpu",),), zero_count=zero and not ids)


def _split_command(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in a pasted line: words as they stand
        return text.split()


_BOLD = re.compile(r"^(?:\*\*|__)(\S+?)(?:\*\*|__)$")


# Full-width punctuation (CJK): no shell word of a command holds it, a sentence that goes on after the command does.
_FULL_WIDTH_PUNCT = re.compile(r"[\uff0c\u3002\uff1b\uff1a\u3001\uff01\uff1f]")


def _before_sentence(words: list[str]) -> list[str]:
    """The words of a command typed inside a sentence in a CJK script, up to the full-width punctuation that goes back
    to the sentence (`docker run ... xinference-local -H 0.0.0.0 ，开启容器，...`, corpus 2869); all of them where none
    holds it."""
    for k, word in enumerate(words):
        if (m := _FULL_WIDTH_PUNCT.search(word)) is not None:
            return [*words[:k], *((word[:m.start()],) if m.start() else ())]
    return words


def parse_docker_run(line: str, cut: bool = False) -> DockerContainer:
    """One `docker run` command line (continuations joined): its options, image and the argv after it. A run the paste
    cuts before its image (`cut`) is read for its options, with no image and no argv: an excerpt."""
    m = DOCKER_RUN_START.search(line)
    if not m:
        raise ParseError("no `docker run` in the line")
    rest = line[m.end():]
    if m.group("item") or m.group("code"):
        if "`" not in rest:
            raise ParseError("inline code without its closing backtick")
        rest = rest[:rest.index("`")]  # the inline code ends the command; the sentence goes on
    elif m.group("quote"):
        close = "”" if m.group("quote") == "“" else '"'
        if close not in rest:
            raise ParseError("a quoted command without its closing quote")
        rest = rest[:rest.index(close)]  # the quote ends the command, as inline code does
    # A word the user made bold in Markdown (`**--runtime=nvidia**`) is the word itself; the run ends at a shell
    # operator (`; echo done`, `| tee log`, a trailing `&`), and its redirections (`> log 2>&1`) are no words of it.
    words = _before_sentence(first_command([_BOLD.sub(r"\1", w) for w in _split_command(rest.strip().strip("`"))]))
    prose = m.group("prose") is not None
    env: list[tuple[str, str]] = []
    ulimits: list[Ulimit] = []
    devices: list[str] = []
    requests: list[DeviceRequest] = []
    opts: dict[str, str] = {}
    cap_add: list[str] = []
    security: list[str] = []
    published: list[str] = []
    privileged = host_shm = hidden = False
    i = 0
    image = ""
    while i < len(words):
        word = words[i]
        if _hides_options(words, i):
            hidden = True  # `docker run --rm $args IMAGE`: options the paste does not show
            i += 1
            continue
        if word == "--":
            if i + 1 < len(words) and f"--{words[i + 1]}" in _RUN_ONLY_LONG:  # `-- runtime nvidia`, typed apart
                words[i + 1] = f"--{words[i + 1]}"
            i += 1
            continue
        if not word.startswith("-") or word == "-":
            after = next((k for k in range(i + 1, len(words)) if words[k].startswith("-")), len(words))
            if after < len(words) and words[after].partition("=")[0] in _RUN_ONLY_LONG:
                i = after  # stray words before more of docker's own options: not the image
                continue
            image = word
            i += 1
            break
        name, eq, value = word.partition("=")
        if name.startswith("--"):
            if name in _RUN_BOOLEAN_LONG:
                privileged = privileged or name == "--privileged"
                i += 1
                continue
        elif len(word) > 2:
            if set(word[1:]) <= _RUN_BOOLEAN_SHORT:  # `-itd`
                i += 1
                continue
            name, value, eq = word[:2], word[2:].removeprefix("="), "="  # `-eKEY=VAL`, `-p8000:8000`
        elif name[1:] in _RUN_BOOLEAN_SHORT:
            i += 1
            continue
        if not eq:
            if i + 1 >= len(words):
                break
            value = words[i + 1]
            i += 2
        else:
            i += 1
        if name in ("-e", "--env"):
            key, has, val = value.partition("=")
            if has:  # `-e KEY` passes the caller's value, which the paste does not show
                env.append((key, val))
        elif name == "--ulimit":
            key, _, val = value.partition("=")
            u = _ulimit(key, val)
            if u is not None:
                ulimits.append(u)
        elif name == "--device":
            devices.append(value.split(":", 1)[0])
        elif name == "--gpus":
            requests.append(_gpus(value))
        elif name == "--cap-add":
            cap_add.append(value)
        elif name == "--security-opt":
            security.append(value)
        elif name in ("-p", "--publish"):
            published.append(value)
        elif name in ("-v", "--volume"):
            host_shm = host_shm or volume_binds_host_shm(value)
        elif name == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            host_shm = host_shm or (fields.get("type", "volume") == "bind" and binds_host_shm(
                fields.get("source", fields.get("src", "")),
                fields.get("target", fields.get("destination", fields.get("dst", "")))))
        else:
            opts[name] = value
    if not image and not cut:
        raise ParseError("the `docker run` line names no image")
    if image in ("...", "…"):  # `docker run --gpus all ...`: a template, not a run
        raise ParseError("the `docker run` line elides its image")
    # An image the user replaced with a placeholder (`-d  <image>`, corpus 2591; `<container_name> <script>`, 1910) on a
    # command line of its own: the run they typed, its options whole, its image not shown. Inside a sentence's inline
    # code or quote it may be a template someone suggests (`try \`docker run --gpus all <image> nvidia-smi\``).
    if image.startswith("<") and (m.group("code") is not None or m.group("quote") is not None or prose):
        raise ParseError("a `docker run` template inside a sentence")
    if prose and not (words[0].startswith("-") and ("/" in image or ":" in image) and _PROSE_IMAGE.match(image)):
        raise ParseError("`docker run` inside a sentence, not a command line")
    if m.group("quote") and not words[0].startswith("-"):  # "docker run failed": words quoted, not a command
        raise ParseError("a quoted `docker run` without options, not a command line")
    argv = tuple(words[i:]) if image else ()  # a run cut before its image: its last word is an option cut short
    if argv and argv[-1].endswith("`"):
        argv = (*argv[:-1], argv[-1].rstrip("`"))
    entrypoint = opts.get("--entrypoint", "")
    cpus = opts.get("--cpus", "")
    shm = opts.get("--shm-size")
    name = opts.get("--name", "")
    return DockerContainer(
        id=name or image, name=name or image, image=image,
        argv=tuple(a for a in ((entrypoint,) if entrypoint else ()) + argv if a),
        env=tuple(env), shm_size=parse_size_bytes(shm) if shm else None, ipc_mode=opts.get("--ipc", ""),
        ulimits=tuple(ulimits), cap_add=tuple(cap_add), security_opt=tuple(security), privileged=privileged,
        device_requests=tuple(requests), devices=tuple(devices), cpuset_cpus=opts.get("--cpuset-cpus", ""),
        nano_cpus=int(float(cpus) * 1e9) if re.fullmatch(r"\d+(?:\.\d+)?", cpus) else 0,
        memory=parse_size_bytes(opts.get("--memory", opts.get("-m", ""))) or 0,
        runtime=opts.get("--runtime", ""), pid_mode=opts.get("--pid", ""),
        network_mode=opts.get("--network", opts.get("--net", "")), origin=ORIGIN_DOCKER_RUN, host_shm=host_shm,
        # Every variable a run sets is on its line, unless it reads a file of them (or the paste cuts the line or
        # hides options in a shell variable).
        env_whole="--env-file" not in opts and not (cut and not image) and not hidden,
        excerpt=(cut and not image) or hidden, command_whole=hidden and bool(image), published=tuple(published),
    )


# A shell variable among docker's options (`$args`, `${DOCKER_OPTS}`, `"$@"`) followed by an image reference that
# names a registry path or a tag (`ghcr.io/huggingface/text-generation-inference:2.0`, corpus 2564): options the paste
# does not show, expanded by the shell; not the image (`docker run --gpus all $IMAGE python3 ...` keeps it: no image
# reference follows). A run whose options hide there is an excerpt of its options: an absent --gpus or --shm-size is
# not shown, not Docker's default; the image's argv after it is whole.
_SHELL_VARIABLE = re.compile(r"""^["']?\$(?:\{[A-Za-z_@*][\w]*\}|[A-Za-z_@*][\w]*)["']?$""")


def _hides_options(words: list[str], i: int) -> bool:
    """Whether words[i] is a shell variable in docker's options, an image reference after it (_SHELL_VARIABLE)."""
    if i + 1 >= len(words) or not _SHELL_VARIABLE.match(words[i]):
        return False
    after = words[i + 1]
    return (not after.startswith(("-", "/", "$")) and ("/" in after or ":" in after)
            and _PROSE_IMAGE.match(after) is not None)


def docker_run_lines(text: str) -> list[str]:
    """The `docker run` command lines of a text, each with its `\\` continuations joined."""
    return [line for line in join_continued(text).splitlines() if DOCKER_RUN_START.search(line)]


@parser(DOCKER_RUN, feeds="docker_containers", kind=DockerContainers, rank=22)
def containers_from_docker_run(text: str) -> DockerContainers:
    """Containers as pasted `docker run` lines start them (flags, environment, the engine's argv).

    Input (tests/data/captures/276)::

        docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data \\
            ghcr.io/huggingface/text-generation-inference:2.0.4 --model-id $model
    """
    return _containers(text.split(PIECE_SEPARATOR), (_run_lines,), "no `docker run` line with an image")


def _run_lines(text: str) -> tuple[DockerContainer, ...]:
    """The containers of a piece's `docker run` lines (a line that does not parse left out)."""
    out = []
    cut = text.startswith(RUN_CUT_MARK)
    for line in docker_run_lines(text):
        try:
            out.append(parse_docker_run(line, cut))
        except ParseError:
            continue
    if not out:
        raise ParseError("no `docker run` line with an image")
    return tuple(out)


def _containers(pieces: Iterable[str], parses: tuple[Callable[[str], Iterable[DockerContainer]], ...],
                none: str) -> DockerContainers:
    """The containers of each piece of a pasted document, by the first parse that reads it (a piece none
    reads is left out); ParseError `none` when no piece holds one."""
    out: list[DockerContainer] = []
    for piece in pieces:
        cut = piece.startswith(SPEC_CUT_MARK)
        body = piece.removeprefix(SPEC_CUT_MARK)
        unanswered = body.startswith(PROBE_NO_GPU_MARK)
        for parse in parses:
            try:
                read = tuple(parse(body.removeprefix(PROBE_NO_GPU_MARK)))
            except ParseError:
                continue
            if unanswered:
                read = tuple(dataclasses.replace(c, probe_lists_no_gpu=True) for c in read)
            # A piece the paste cuts at its end: its containers are excerpts, and their env is whole only where the
            # reader found the env list closed by a key after it (a piece that was an excerpt already).
            out.extend(dataclasses.replace(c, excerpt=True, env_whole=c.env_whole and c.excerpt, command_whole=False)
                       if cut else c
                       for c in read)
            break
    if not out:
        raise ParseError(none)
    return DockerContainers(tuple(out))


# --- YAML, bounded ---------------------------------------------------------------------------------


# A scalar that is only asterisks, after a key or a list dash: what users paste in place of a secret or a name.
_MASKED = re.compile(r"^([ \t]*(?:- )?[\w.\-/\"']*:[ \t]+|[ \t]*- )(\*{2,})[ \t]*$", re.MULTILINE)


def load_yaml_documents(text: str) -> list[Any]:
    """YAML documents with the safe loader (no tags executed), refusing aliases (no expansion bombs),
    nesting deeper than MAX_YAML_DEPTH and texts over MAX_SPEC_BYTES."""
    import yaml

    if len(text) > MAX_SPEC_BYTES:
        raise ParseError(f"a spec over {MAX_SPEC_BYTES // 1024} KiB is not a pasted spec")

    class BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
        depth = 0
        nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise ParseError("YAML aliases are not read in a pasted spec")
            self.depth += 1
            self.nodes += 1
            if self.depth > MAX_YAML_DEPTH or self.nodes > MAX_YAML_NODES:
                raise ParseError("the YAML is nested too deep or too large for a pasted spec")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    # A value masked with asterisks (`value: ******`, `image: ****`) is a redaction, not a YAML alias.
    text = _MASKED.sub(r'\1"\2"', text)
    try:
        return [doc for doc in yaml.load_all(text, Loader=BoundedLoader) if doc is not None]  # a SafeLoader: no tags run
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise YamlError(f"not YAML: {str(exc).splitlines()[0]}", mark.line if mark is not None else None) from exc


class YamlError(ParseError):
    """A text that is not YAML, with the 0-based line where the YAML parser stopped when it says one."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def _str_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value if v is not None)
    return ()


def _command(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    if isinstance(value, str):
        return tuple(_split_command(value))
    return ()


def _env_pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """compose `environment:` as a list of KEY=VALUE or a mapping; Kubernetes `env:` as name/value items."""
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        out.extend((str(k), "" if v is None else str(v)) for k, v in value.items())
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and "name" in item:
                if "value" in item:  # valueFrom (a secret, a field) is not in the paste
                    out.append((str(item["name"]), str(item["value"])))
            elif isinstance(item, str) and "=" in item:
                key, _, val = item.partition("=")
                out.append((key, val))
    return tuple(out)


# The first line the importer gives a piece of a compose file (a service pasted without its `services:` line, the lines
# above a stray key): its services may go on past what the paste shows.
COMPOSE_PIECE_MARK = "# a piece of a compose file\n"
# The extension key (compose ignores `x-` keys) under which the importer records the env files pasted beside a compose
# file: `{file name: [KEY=VALUE, ...]}`.
PASTED_ENV_FILES = "x-pasted-env-files"
# A line of a docker env file: `KEY=VALUE` (https://docs.docker.com/compose/how-tos/environment-variables/variable-interpolation/#env-file-syntax).
ENV_FILE_LINE = re.compile(r"^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=.*$")


def _env_files(value: Any) -> tuple[str, ...]:
    """A service's `env_file:`: one path, a list of paths, or a list of `{path: ...}` items."""
    items = value if isinstance(value, list) else [value] if value is not None else []
    return tuple(str(v.get("path") if isinstance(v, dict) else v) for v in items)


def compose_services(texts: Iterable[str]) -> dict[str, dict[Any, Any]]:
    """The services of compose texts by name (none from a text that is not YAML)."""
    out: dict[str, dict[Any, Any]] = {}
    for text in texts:
        try:
            docs = load_yaml_documents(text)
        except ParseError:
            continue
        out.update((str(k), svc) for doc in docs if isinstance(doc, dict) and isinstance(doc.get("services"), dict)
                   for k, svc in doc["services"].items() if isinstance(svc, dict))
    return out


def compose_env_files(text: str) -> tuple[str, ...]:
    """The env files a compose file's services name, each once."""
    return tuple(dict.fromkeys(f for svc in compose_services((text,)).values() for f in _env_files(svc.get("env_file"))))


def _compose_env(svc: dict[Any, Any], pasted: dict[str, tuple[tuple[str, str], ...]]
                 ) -> tuple[tuple[tuple[str, str], ...], bool]:
    """A service's environment, its env files' lines the paste shows first and its `environment:` after (which
    overrides them, as compose does), and whether that is every variable the service sets: an env file the paste
    does not show may set any."""
    files = _env_files(svc.get("env_file"))
    shown = [pair for f in files for pair in pasted.get(f, ())]
    return (*shown, *_env_pairs(svc.get("environment"))), all(f in pasted for f in files)


def _compose_ulimits(value: Any) -> tuple[Ulimit, ...]:
    out = []
    for name, limit in (value.items() if isinstance(value, dict) else ()):
        if isinstance(limit, int):
            out.append(Ulimit(str(name), limit, limit))
        elif isinstance(limit, dict) and isinstance(limit.get("soft"), int) and isinstance(limit.get("hard"), int):
            out.append(Ulimit(str(name), limit["soft"], limit["hard"]))
    return tuple(out)


# The service's `gpus:` key: `all`, or a list of devices as `deploy.resources.reservations.devices` writes them, each a
# device request with the `gpu` capability implied (https://docs.docker.com/reference/compose-file/services/#gpus).
COMPOSE_GPUS_KEY = "gpus"


def _compose_requests(service: dict[str, Any]) -> tuple[DeviceRequest, ...]:
    deploy = service.get("deploy")
    resources = deploy.get("resources") if isinstance(deploy, dict) else None
    reservations = resources.get("reservations") if isinstance(resources, dict) else None
    devices = reservations.get("devices") if isinstance(reservations, dict) else None
    gpus = service.get(COMPOSE_GPUS_KEY)
    out = [DeviceRequest("", -1, (), (("gpu",),))] if gpus == "all" else []
    listed = [(dev, False) for dev in devices] if isinstance(devices, list) else []
    listed += [(dev, True) for dev in gpus] if isinstance(gpus, list) else []
    for dev, gpu in listed:
        if not isinstance(dev, dict):
            continue
        count = dev.get("count")
        if isinstance(count, str) and count.strip().isdecimal():
            count = int(count)  # compose reads a quoted number as the number (`count: "1"`)
        caps = _str_list(dev.get("capabilities"))
        caps = (*caps, "gpu") if gpu and "gpu" not in caps else caps
        out.append(DeviceRequest(str(dev.get("driver") or ""), -1 if count == "all" else count if isinstance(
            count, int) else (-1 if gpu and not dev.get("device_ids") else 0), _str_list(dev.get("device_ids")),
            (caps,) if caps else ()))
    return tuple(out)


def _mounts(svc: dict[Any, Any]) -> list[Any]:
    """A service's `volumes:` entries, short (strings) and long (mappings) syntax."""
    volumes = svc.get("volumes")
    return volumes if isinstance(volumes, list) else []


def _named_volume(volume: Any) -> str:
    """The volume name of a mount: short syntax (`name:/path`) or long (`type: volume`, `source: name`); "" for a
    bind mount, a tmpfs or a bare path."""
    if isinstance(volume, dict):
        return str(volume.get("source") or "") if volume.get("type") == "volume" else ""
    if not isinstance(volume, str):
        return ""
    source, sep, _ = volume.partition(":")
    if not sep or source.startswith((".", "/", "~", "$")):
        return ""
    return source


def parse_compose(text: str) -> tuple[DockerContainer, ...]:
    """The services of a compose file, as the containers they start."""
    try:
        return _parse_compose(text)
    except (TypeError, AttributeError, ValueError, OverflowError) as exc:  # a YAML of unexpected shapes
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"not a compose file: {exc}") from exc


def _cut_open(svc: object) -> bool:
    """Whether a service holds a key with no value where nobody writes one empty: a paste cut there.

    Such a key is the last of the service's definition (`reservations:` and nothing below), or one of `deploy:`,
    `resources:`, `reservations:` and `devices:` (each holds a mapping or a list)."""
    node = svc
    for key in ("deploy", "resources", "reservations", "devices"):
        if not isinstance(node, dict) or key not in node:
            break
        node = node[key]
        if node is None:
            return True
    node = svc
    while isinstance(node, dict) and node:
        node = node[list(node)[-1]]
        if node is None:
            return True
    return False


def _command_closed(svc: dict[Any, Any]) -> bool:
    """Whether a compose service shows a key below its `command:` and `entrypoint:`: YAML ends a value (a folded
    `>` block, a list) where the next key begins, so a cut below that key leaves the command whole."""
    keys = [str(k) for k in svc]
    at = [i for i, k in enumerate(keys) if k in ("command", "entrypoint")]
    return "command" in keys and max(at) < len(keys) - 1


def _cut_service(text: str) -> str:
    """The service a compose text the paste cuts at its end (SPEC_CUT_MARK) is cut in: its last document's last
    service, where `services:` is that document's last top-level key (a cut below it, in `volumes:`, leaves every
    service whole); "" where there is none."""
    try:
        docs = load_yaml_documents(text)
    except ParseError:
        return ""
    last = docs[-1] if docs else None
    if not isinstance(last, dict) or not last or list(last)[-1] != "services" or not isinstance(last["services"], dict):
        return ""
    names = list(last["services"])
    return str(names[-1]) if names else ""


def _parse_compose(text: str) -> tuple[DockerContainer, ...]:
    services: dict[Any, Any] = {}
    declared: set[str] = set()
    pasted: dict[str, tuple[tuple[str, str], ...]] = {}
    split = text.split(PIECE_SEPARATOR)
    pieces = set(compose_services(c.removeprefix(SPEC_CUT_MARK) for c in split
                                  if c.removeprefix(SPEC_CUT_MARK).startswith(COMPOSE_PIECE_MARK)))
    cut_off = {name for c in split if c.startswith(SPEC_CUT_MARK) and (name := _cut_service(c))}
    for doc in load_yaml_documents(text):  # pieces pasted apart are joined as YAML documents
        if isinstance(doc, dict) and isinstance(doc.get("services"), dict):
            services.update(doc["services"])
        if isinstance(doc, dict) and isinstance(doc.get(PASTED_ENV_FILES), dict):
            pasted.update((str(k), _env_pairs([str(v).strip().removeprefix("export ").strip() for v in lines]))
                          for k, lines in doc[PASTED_ENV_FILES].items() if isinstance(lines, list))
        if isinstance(doc, dict) and isinstance(doc.get("volumes"), dict):
            declared.update(str(k) for k in doc["volumes"])
    # A named volume a service mounts must be declared at the top level (compose refuses the file
    # otherwise): one that is not shows the paste was cut before its `volumes:` section.
    cut = any(_named_volume(v) not in ("", *declared) for svc in services.values() if isinstance(svc, dict)
              for v in _mounts(svc)) or any(_cut_open(svc) for svc in services.values())
    if not services:
        raise ParseError("no `services:` mapping: not a compose file")
    out = []
    for name, svc in services.items():
        if not isinstance(svc, dict):
            continue
        shm = svc.get("shm_size")
        cpus = svc.get("cpus")
        env, env_whole = _compose_env(svc, pasted)
        out.append(DockerContainer(
            id=str(svc.get("container_name") or name), name=str(svc.get("container_name") or name),
            image=str(svc.get("image") or ""),
            argv=(*_command(svc.get("entrypoint")), *_command(svc.get("command"))),
            env=env, env_whole=env_whole and not cut and str(name) not in pieces | cut_off,
            shm_size=parse_size_bytes(str(shm)) if shm is not None else None, ipc_mode=str(svc.get("ipc") or ""),
            ulimits=_compose_ulimits(svc.get("ulimits")), cap_add=_str_list(svc.get("cap_add")),
            cap_drop=_str_list(svc.get("cap_drop")), security_opt=_str_list(svc.get("security_opt")),
            privileged=svc.get("privileged") is True, device_requests=_compose_requests(svc),
            devices=tuple(d.split(":", 1)[0] for d in _str_list(svc.get("devices"))),
            cpuset_cpus=str(svc.get("cpuset") or ""),
            nano_cpus=int(float(cpus) * 1e9) if isinstance(cpus, (int, float, str)) and re.fullmatch(
                r"\d+(?:\.\d+)?", str(cpus)) else 0,
            runtime=str(svc.get("runtime") or ""), pid_mode=str(svc.get("pid") or ""),
            network_mode=str(svc.get("network_mode") or ""), origin=ORIGIN_COMPOSE, excerpt=cut or str(name) in cut_off,
            command_whole=_command_closed(svc),
            host_shm=any(volume_binds_host_shm(v) if isinstance(v, str) else isinstance(v, dict) and v.get(
                "type") == "bind" and binds_host_shm(str(v.get("source", "")), str(v.get("target", "")))
                for v in _mounts(svc)),
        ))
    if not out:
        raise ParseError("no service in the compose file")
    return tuple(out)


@parser(COMPOSE_FILE, feeds="docker_containers", kind=DockerContainers, rank=24)
def containers_from_compose(text: str) -> DockerContainers:
    """Containers as a pasted compose file starts them (every service).

    Input (tests/data/captures/54, four of its lines)::

        services:
          vllm-server:
            image: vllm-intel-xpu:2026-07-06_09-14-3d7f357eb
            ipc: host
    """
    return DockerContainers(parse_compose(text))


# --- Kubernetes ------------------------------------------------------------------------------------


def _pod_specs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The pod spec of a Pod, or of a workload's template (Deployment, StatefulSet, Job, ...); a LeaderWorkerSet's
    two (its leader's and its workers' templates under spec.leaderWorkerTemplate)."""
    spec = _dict(doc.get("spec"))
    if "containers" in spec:
        return [spec]
    group = _dict(spec.get("leaderWorkerTemplate"))
    templates = [_dict(group.get("leaderTemplate")), _dict(group.get("workerTemplate"))] if group else [
        _dict(spec.get("template")) or _dict(_dict(_dict(spec.get("jobTemplate")).get("spec")).get("template"))]
    return [inner for t in templates if (inner := _dict(t.get("spec")))]


# The node labels a pod's nodeSelector pins it to nodes of one GPU model by: the `accelerator` of Kubernetes' GPU
# scheduling page (`accelerator: nvidia-tesla-p100`, https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/),
# a cloud's own (GKE sets `cloud.google.com/gke-accelerator: nvidia-tesla-t4`; `eks.amazonaws.com/accelerator`), and
# GPU feature discovery's product (`nvidia.com/gpu.product: Tesla-T4`). The value names a model only where the GPU
# table reads it as one (facts/gpus.gpus_from_node_selector): AKS's `nvidia`, or `true`, names none.
NODE_GPU_LABEL = re.compile(r"^(?:[\w.-]+/)?(?:\w+-)?accelerator$|^nvidia\.com/gpu\.product$")


def selected_gpu_labels(text: str) -> list[tuple[str, int]]:
    """(label value, GPUs asked) for each pod spec of a manifest whose nodeSelector holds a GPU model's label
    (NODE_GPU_LABEL) and whose containers ask for GPUs (their nvidia.com/gpu limits, summed): the GPUs the pod gets
    are of the nodes so labelled. [] where none does (a spec without GPUs asked is pinned for another reason)."""
    out = []
    for doc in load_yaml_documents(text):
        for pod in _pod_specs(doc) if isinstance(doc, dict) else ():
            labels = [str(v) for k, v in _dict(pod.get("nodeSelector")).items() if NODE_GPU_LABEL.match(str(k))]
            asked = [str(_dict(_dict(c.get("resources")).get("limits")).get(K8S_GPU_RESOURCE, "")).strip()
                     for c in pod.get("containers") or [] if isinstance(c, dict)]
            count = sum(int(n) for n in asked if n.isdecimal())
            if labels and count:
                out.append((labels[0], count))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _volume_name(value: Any) -> str:
    """A pod volume's name as its mounts refer to it, less quotes a paste leaves stuck to it (`name: shm'`, corpus
    2380): Kubernetes takes only a DNS label there (lower-case letters, digits and '-'), so no quote belongs to one."""
    return str(value).strip().strip("'\"")


def _memory_dir(volume: Any) -> dict[str, Any] | None:
    """A pod volume's `emptyDir` where its medium is Memory (a tmpfs); None for any other volume."""
    empty = _dict(volume).get("emptyDir")
    return empty if isinstance(empty, dict) and str(empty.get("medium", "")) == "Memory" else None


def _k8s_nano_cpus(value: Any) -> int:
    """A Kubernetes CPU quantity (`1`, `"2"`, `500m`, `1.5`) in nano-CPUs; 0 when absent or not a quantity."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(m?)", str(value).strip()) if value is not None else None
    if not m:
        return 0
    return int(float(m.group(1)) * (1e6 if m.group(2) else 1e9))


def _unscheduled(doc: dict[str, Any], pod: dict[str, Any]) -> bool:
    """Whether a pod's status shows it not placed on a node: its PodScheduled condition False, or phase Pending with
    no node (`Node: <none>` of `kubectl describe pod`)."""
    status = _dict(doc.get("status"))
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if any(c.get("type") == "PodScheduled" and str(c.get("status")) == "False" for c in conditions):
        return True
    return status.get("phase") == "Pending" and "nodeName" in pod and not pod["nodeName"]


# The first line of a pod manifest built around a container's keys or env list pasted alone: the pod's volumes
# (and so its /dev/shm) are not shown.
K8S_PIECE_MARK = "# a container's piece of a pod spec\n"
# The first line of a container's piece that holds its whole env list (its `env:` key, then the keys after it).
K8S_ENV_WHOLE_MARK = "# a container's piece of a pod spec, its env list whole\n"
# The first line of a pod spec's `containers:` list pasted without the pod's other keys (corpus 1405): a piece whose
# containers' command and args lists are shown to their end (DockerContainer.command_whole). Their resources may not
# be: a poster trims a list's keys (1405 shows no `resources:` for a pod on a T4).
K8S_CONTAINERS_MARK = "# a pod spec's containers list, the pod's other keys not shown\n"
# The first line of the manifest of a `kubectl describe pod` the paste cuts after its Containers section (corpus 2189:
# cut inside its Volumes): kubectl prints each container's fields in full, so its Limits and Requests are shown to
# their end (DockerContainer.resources_whole); the pod's later sections may be cut.
K8S_DESCRIBED_CONTAINERS_MARK = "# a described pod's containers, the pod cut after them\n"


def parse_k8s(text: str, excerpt: bool = False) -> tuple[DockerContainer, ...]:
    """The containers of the pod specs in a Kubernetes manifest (one or more documents)."""
    try:
        piece = text.startswith((K8S_PIECE_MARK, K8S_ENV_WHOLE_MARK, K8S_CONTAINERS_MARK, K8S_DESCRIBED_CONTAINERS_MARK))
        out = _parse_k8s(text, excerpt or piece, text.startswith(K8S_ENV_WHOLE_MARK))
        if not excerpt and text.startswith(K8S_DESCRIBED_CONTAINERS_MARK):
            return tuple(dataclasses.replace(c, resources_whole=True) for c in out)
        return tuple(dataclasses.replace(c, command_whole=bool(c.argv)) for c in out) \
            if not excerpt and text.startswith(K8S_CONTAINERS_MARK) else out
    except (TypeError, AttributeError, ValueError, OverflowError) as exc:  # a YAML of unexpected shapes
        if isinstance(exc, ParseError):
            raise
        raise ParseError(f"not a Kubernetes manifest: {exc}") from exc


def _parse_k8s(text: str, excerpt: bool, env_whole: bool = False) -> tuple[DockerContainer, ...]:
    out = []
    for doc in load_yaml_documents(text):
        if not isinstance(doc, dict):
            continue
        for pod in _pod_specs(doc):
            out.extend(_pod_containers(doc, pod, excerpt, env_whole))
    if not out:
        raise ParseError("no pod spec with containers in the manifest")
    return tuple(out)


def _pod_containers(doc: dict[str, Any], pod: dict[str, Any], excerpt: bool, env_whole: bool) -> list[DockerContainer]:
    """The containers of one pod spec (a Pod's, or a workload template's)."""
    out = []
    meta = _dict(doc.get("metadata"))
    unscheduled = _unscheduled(doc, pod)
    volumes = {_volume_name(v.get("name")): v for v in pod.get("volumes") or [] if isinstance(v, dict)}
    mounted = {_volume_name(m.get("name")) for c in (*(pod.get("containers") or []), *(pod.get("initContainers") or []))
               if isinstance(c, dict) for m in c.get("volumeMounts") or [] if isinstance(m, dict)}
    # A memory emptyDir that no container shown mounts: the paste was cut before the mounts that use it.
    memory_unmounted = any(_memory_dir(v) is not None and n not in mounted for n, v in volumes.items())
    for ctr in pod.get("containers") or []:
        if not isinstance(ctr, dict):
            continue
        shm_size: int | None = None
        shm_mounted = cut = host_shm = False
        for mount in ctr.get("volumeMounts") or []:
            if isinstance(mount, dict) and str(mount.get("mountPath", "")).rstrip("/") == "/dev/shm":
                # A volume mounted but not declared: the paste was cut before the pod's `volumes:`.
                cut = _volume_name(mount.get("name")) not in volumes
                vol = volumes.get(_volume_name(mount.get("name")), {})
                host_shm = binds_host_shm(str(_dict(vol.get("hostPath")).get("path", "")), "/dev/shm")
                empty = _memory_dir(vol)
                if empty is not None:
                    shm_mounted = True
                    limit = empty.get("sizeLimit")
                    # No sizeLimit: a memory emptyDir may grow to the pod's memory limit.
                    shm_size = parse_size_bytes(str(limit), decimal_si=True) if limit is not None else None
        limits = _dict(_dict(ctr.get("resources")).get("limits"))
        gpus = limits.get(K8S_GPU_RESOURCE)
        # A limit of 0 asks the device plugin for no GPU (kubernetes/kubernetes#59629, corpus 1980): no request.
        requests = (DeviceRequest(K8S_GPU_RESOURCE, int(gpus) if str(gpus).isdecimal() else 0, (),
                                  (("gpu",),)),) if gpus is not None and str(gpus).strip() != "0" else ()
        ipc = "host" if pod.get("hostIPC") is True else ""
        name = str(ctr.get("name") or meta.get("name") or "")
        # A pod without a memory emptyDir at /dev/shm (and no hostIPC) gets the runtime's 64 MiB.
        out.append(DockerContainer(
            id=f"{meta.get('name', '')}/{name}".strip("/"), name=name, image=str(ctr.get("image") or ""),
            argv=(*_command(ctr.get("command")), *_command(ctr.get("args"))), env=_env_pairs(ctr.get("env")),
            shm_size=shm_size if shm_mounted else None, ipc_mode=ipc, device_requests=requests,
            privileged=_dict(ctr.get("securityContext")).get("privileged") is True, unscheduled=unscheduled,
            cap_add=_str_list(_dict(_dict(ctr.get("securityContext")).get("capabilities")).get("add")),
            gpu_shares=tuple((str(k), str(v)) for k, v in limits.items() if k in GPU_SHARE_RESOURCES),
            rdma_requested=tuple(f"{k}: {v}" for k, v in limits.items()
                                 if K8S_RDMA_RESOURCE.match(str(k)) and str(v).strip() not in ("0", "")),
            nano_cpus=_k8s_nano_cpus(limits.get("cpu")), origin=ORIGIN_K8S, host_shm=host_shm,
            env_whole=env_whole or not excerpt,
            # Kubernetes refuses a container without an image: one that shows none is a piece of a spec.
            excerpt=excerpt or cut or (shm_mounted and shm_size is None) or not ctr.get("image")
            or (memory_unmounted and "volumeMounts" not in ctr),
        ))
    return out


# The resources of the Kubernetes RDMA shared device plugin (Mellanox/k8s-rdma-shared-dev-plugin, its default prefix
# `rdma/`: `rdma/rdma_shared_device_a`, `rdma/hca_shared_devices_a`, `rdma/hca`), which hand a pod an RDMA NIC.
K8S_RDMA_RESOURCE = re.compile(r"rdma/\w")


# A manifest whose line breaks a chat box ate (`apiVersion: apps/v1 kind: Deployment metadata: ...` on one
# line): its nesting is lost, so only unambiguous pieces are read, for a single container.
FLAT_MANIFEST = re.compile(r"apiVersion:\s*\S+\s+kind:\s*(?:Pod|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job)\b")
_FLAT_KEYS = r"(?:name|image|env|args|command|resources|ports|volumeMounts|volumes|readinessProbe|livenessProbe)"


def parse_flat_k8s(text: str) -> tuple[DockerContainer, ...]:
    """One container of a manifest pasted on one line: image, env name/value pairs, a `[...]` args list,
    the nvidia.com/gpu limit, and whether a memory emptyDir is mounted at /dev/shm."""
    line = " ".join(text.split())
    if not FLAT_MANIFEST.search(line) or line.count(" containers: ") != 1:
        raise ParseError("not a one-line manifest with one containers: list")
    head, _, body = line.partition(" containers: ")
    image = re.search(r"\bimage:\s*[\"']?([^\s\"']+)", body)  # a YAML scalar: its quotes are not the name's
    if not image:
        raise ParseError("the one-line manifest names no image")
    env = tuple((m.group(1), m.group(2).strip("'\"")) for m in re.finditer(
        r"- name:\s*([A-Z_][A-Z0-9_]*)\s+value:\s*(\S+)", body))
    argv: tuple[str, ...] = ()
    for key in ("command", "args"):
        m = re.search(rf"\b{key}:\s*(\[[^\]]*\])", body)
        if m:
            try:
                argv += tuple(str(a) for a in load_json(m.group(1), f"the {key} list"))
            except ValueError as exc:
                raise ParseError(f"the {key} list is not a flow list") from exc
    gpus = re.search(r"limits:(?:(?!requests:).)*?nvidia\.com/gpu:\s*'?(\d+)", body)
    mounts = re.search(rf"volumeMounts:(.*?)(?:\s{_FLAT_KEYS}:\s(?!\S+\s+name:)|$)", body)
    shows_mounts = bool(mounts)
    shm_mounted = bool(mounts and re.search(r"mountPath:\s*/dev/shm\b", mounts.group(1)))
    memory_dir = re.search(r"emptyDir:\s*\{?\s*medium\s*:\s*Memory(?:,?\s*sizeLimit:\s*(\S+?))?[\s}]", line)
    size = parse_size_bytes(memory_dir.group(1), decimal_si=True) if memory_dir and memory_dir.group(1) else None
    name = re.match(r"-\s*name:\s*(\S+)", body.strip())
    return (DockerContainer(
        id=name.group(1) if name else image.group(1), name=name.group(1) if name else image.group(1),
        image=image.group(1), argv=argv, env=env,
        shm_size=size if shm_mounted and memory_dir else None,
        ipc_mode="host" if re.search(r"\bhostIPC:\s*true\b", head + body) else "",
        device_requests=(DeviceRequest(K8S_GPU_RESOURCE, int(gpus.group(1)), (), (("gpu",),)),) if gpus else (),
        origin=ORIGIN_K8S,
        # Without the mounts (or with a memory emptyDir at /dev/shm of no stated size) the size is not shown.
        excerpt=not shows_mounts or (shm_mounted and size is None),
    ),)


@parser(K8S_SPEC, feeds="docker_containers", kind=DockerContainers, rank=26)
def containers_from_k8s(text: str) -> DockerContainers:
    """Containers of a pasted Kubernetes pod / deployment spec (a one-line paste read in part).

    Input (tests/data/captures/273, the start of its pod spec)::

        spec:
          containers:
          - command:
            - /bin/bash
            args:
            - -c
    """
    read = _containers(text.split(PIECE_SEPARATOR), (parse_k8s, parse_flat_k8s),
                       "no pod spec with containers in the manifest").containers
    # A pod its status shows not scheduled (`kubectl describe pod`'s `Node: <none>`, cut before its containers'
    # limits too) leaves unplaced every container of that pod, those of its manifest pasted beside it too (one name).
    waiting = {c.id.partition("/")[0] for c in read if c.unscheduled and "/" in c.id}
    return DockerContainers(tuple(dataclasses.replace(c, unscheduled=True) if c.id.partition("/")[0] in waiting
                                  and "/" in c.id else c for c in read))


# --- docker inspect excerpts -----------------------------------------------------------------------


def close_json(text: str) -> Any:
    """A cut JSON object or fragment read as far as it goes: the lines that parse are kept, open
    brackets closed, elision lines (`...`) and the key cut at the end dropped. ParseError when
    nothing parses."""
    kept: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or re.fullmatch(r"\s*(?:\.{3,}|…+|\[\.\.\.\]|<\.\.\.>)\s*", line):
            continue
        kept.append(line)
    # Cut at line ends, from the last: a paste ends inside a key or a value (at most MAX_CUTS tries).
    for end in range(len(kept), max(len(kept) - MAX_CUTS, 0), -1):
        candidate = "\n".join(kept[:end]).rstrip().rstrip(",")
        opened = _open_brackets(candidate)
        closed = _close_brackets(opened + candidate) if opened is not None else None
        if closed is None:
            continue
        try:
            return load_json(closed, "docker inspect excerpt")
        except ValueError:
            continue
    raise ParseError("no JSON in the excerpt")


# The key given to an object or list an excerpt opens above its first line (its own key is cut away): one per level.
CUT_KEY = "(cut above the excerpt)"
# The most levels an excerpt may start below its top (a `docker inspect` object nests about six deep).
MAX_CUT_LEVELS = 8
_KEY_START = re.compile(r'\s*"(?:[^"\\]|\\.)*"\s*:')


def _open_brackets(text: str) -> str | None:
    """The openers an excerpt that starts inside an object or list needs above its first line: one per bracket it
    closes that it never opened (each under CUT_KEY where its parent is an object), and an object around all where
    the text at its top level goes on with `"key":` lines. None where it starts more than MAX_CUT_LEVELS deep."""
    unopened: list[str] = []
    depth = 0
    top = 0  # where the text's top level starts: after the last bracket closed that it never opened
    for i, ch in json_brackets(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            if depth:
                depth -= 1
            else:
                unopened.append("{" if ch == "}" else "[")
                top = i + 1
    if len(unopened) > MAX_CUT_LEVELS:
        return None
    rest = text[top:].lstrip().lstrip(",").lstrip()
    levels = [*(["{"] if _KEY_START.match(rest) else ["["] if rest and unopened else []), *reversed(unopened)]
    if not unopened and not rest.startswith(("{", "[")):
        levels = ["{"]  # a fragment of one object's keys
    return "".join(f"{json.dumps(CUT_KEY)}: {ch}" if n and levels[n - 1] == "{" else ch
                   for n, ch in enumerate(levels))


def _close_brackets(text: str) -> str | None:
    """The text with its open brackets closed (a cut excerpt), or None where that cannot give JSON."""
    stack: list[str] = []
    for _, ch in json_brackets(text):
        if ch == '"':  # ends inside a string
            return None
        if ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif not stack:
            return None
        else:
            stack.pop()
    if text.endswith(":"):
        return None
    return text + "".join(reversed(stack))


def parse_inspect_excerpt(text: str) -> tuple[DockerContainer, ...]:
    """The container objects a cut `docker inspect` shows (a HostConfig fragment counts as one)."""
    lines = text.splitlines()
    # From the first line, else from each line that opens an object (an image's inspect tail before it).
    starts = [0] + [n for n, line in enumerate(lines) if n and re.fullmatch(r"\s*(?:\[\s*)?\{\s*", line)]
    for start in starts[:MAX_CUTS]:
        part = "\n".join(lines[start:])
        try:
            found = _containers_in(close_json(part))
        except ParseError:
            continue
        if found:
            # Config.Env holds the image's ENV and the run's -e both: a list the excerpt shows to its `]` is all of it;
            # so is HostConfig.DeviceRequests, every GPU request the container has.
            whole, requests = _lists_closed(part, "Env"), _lists_closed(part, "DeviceRequests")
            return tuple(dataclasses.replace(c, env_whole=whole, requests_whole=requests) for c in found) \
                if whole or requests else found
    raise ParseError("no container object in the excerpt")


def _lists_closed(text: str, key: str) -> bool:
    """Whether the text opens some `"KEY": [` list and shows each one it opens to its closing `]`."""
    opens = [m.end() - 1 for m in re.finditer(rf'"{key}"\s*:\s*\[', text)]
    if not opens:
        return False
    for at in opens:
        depth = 0
        for _, ch in json_brackets(text, at):
            if ch == '"':
                return False
            depth += 1 if ch in "[{" else -1
            if depth == 0:
                break
        else:
            return False
    return True


# Keys that only HostConfig holds in a `docker inspect` object: an excerpt that starts below `"HostConfig": {` shows
# some of them at its top level (the Docker Engine API's HostConfig; not Config's or NetworkSettings' keys).
_HOSTCONFIG_KEYS = frozenset(("ShmSize", "Ulimits", "DeviceRequests", "IpcMode", "PidMode", "Runtime", "Privileged",
                              "CapAdd", "Binds", "PortBindings", "RestartPolicy", "SecurityOpt", "UsernsMode"))

# Keys of a container's Config in `docker inspect` (the Docker Engine API's ContainerConfig): an object is read as a
# container by its Config only where that holds three of them.
_CONFIG_KEYS = frozenset(("Hostname", "Domainname", "User", "AttachStdin", "AttachStdout", "AttachStderr", "Tty",
                          "OpenStdin", "StdinOnce", "Env", "Cmd", "Image", "Volumes", "WorkingDir", "Entrypoint",
                          "OnBuild", "Labels", "ExposedPorts", "StopSignal"))
# Keys only an image's `docker inspect` holds at its top level: such an object is no container.
_IMAGE_KEYS = frozenset(("RepoTags", "RepoDigests", "RootFS", "ContainerConfig", "DockerVersion", "VirtualSize"))


def _containers_in(data: Any) -> tuple[DockerContainer, ...]:
    from stackaudit.facts.docker import parse_docker_inspect

    objects = data if isinstance(data, list) else [data]
    out = []
    for obj in objects:
        if not isinstance(obj, dict) or not _IMAGE_KEYS.isdisjoint(obj):
            continue  # an image's inspect (its Config is the image's, not a container's)
        cut = obj.get(CUT_KEY)
        if "HostConfig" not in obj and isinstance(cut, dict) and not _HOSTCONFIG_KEYS.isdisjoint(cut):
            obj = {**obj, "HostConfig": cut}  # HostConfig opened above the excerpt, its key cut away
        if "HostConfig" not in obj and not _HOSTCONFIG_KEYS.isdisjoint(obj):
            obj = {"HostConfig": obj}  # the inside of HostConfig, its key above the cut
        if not isinstance(obj.get("HostConfig"), dict):
            config = obj.get("Config")
            if "Args" not in obj and not (isinstance(config, dict) and len(_CONFIG_KEYS.intersection(config)) >= 3):
                continue
            obj = {**obj, "HostConfig": {}}
        try:
            (ctr,) = parse_docker_inspect(json.dumps([obj]))
        except (ParseError, ValueError):
            continue
        host = obj["HostConfig"]
        out.append(DockerContainer(**{**ctr.__dict__, "shm_size": ctr.shm_size if "ShmSize" in host else None,
                                      "origin": ORIGIN_INSPECT_EXCERPT, "excerpt": True}))
    return tuple(out)


@parser(DOCKER_INSPECT_EXCERPT, feeds="docker_containers", kind=DockerContainers, rank=28)
def containers_from_inspect_excerpt(text: str) -> DockerContainers:
    """What a pasted `docker inspect` excerpt shows of its containers (the rest unknown).

    Input (tests/data/captures/53)::

                    "Ulimits": [
                        {
                            "Name": "nofile",
                            "Hard": 4096,
                            "Soft": 1024
                        }
    """
    return _containers(text.split(PIECE_SEPARATOR), (parse_inspect_excerpt,), "no container object in the pasted excerpt")
