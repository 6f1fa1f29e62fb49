"""Secrets never reach a report or a snapshot (docs/design.md).

Redaction happens at the host boundary, so every source (live, snapshot, pasted) and every
consumer (facts, reports, captures) sees the same redacted bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Callable
from typing import Any, TypeVar

from stackaudit.host.limits import load_json

_T = TypeVar("_T")

REDACTED = "<redacted>"
# The modules whose code decides what is redacted: this one and the host wrapper that applies it per source.
_RULE_MODULES = ("redact.py", "recording.py")


@functools.lru_cache(maxsize=1)
def rules_fingerprint() -> str:
    """SHA-256 of the redaction rules' source, as this installation has them ("" when the source is absent).

    `capture` writes it into a snapshot's meta.json; a snapshot whose manifest verifies and whose fingerprint
    is this one was redacted by these very rules, and redacting is idempotent (tests/test_redaction_trust.py),
    so replaying it need not redact every member again (docs/security.md). Any change to the rules changes
    the fingerprint, and older snapshots are redacted again. Read through the package's loader (pkgutil), so a
    zipapp's copy hashes the same bytes as an installed one."""
    import pkgutil

    digest = hashlib.sha256()
    try:
        for name in _RULE_MODULES:
            data = pkgutil.get_data(__package__ or "stackaudit.host", name)
            if data is None:
                return ""
            digest.update(data)
    except (OSError, ModuleNotFoundError, TypeError):
        return ""
    return "sha256:" + digest.hexdigest()

# TOKEN but not TOKENS/TOKENIZER (max_num_batched_tokens, TOKENIZERS_PARALLELISM are settings) nor TOKEN_ID
# (bos_token_id, eos_token_id: vocabulary ids every Hugging Face config.json holds; the headline ceiling reads it);
# KEY only as a word part (API_KEY, api-key, apikey), not inside another word (MONKEY), nor KEY_VALUE
# (num_key_value_heads, another config.json field).
_SECRET_NAME = re.compile(
    r"(TOKEN(?!S\b|S_|IZER|_IDS?\b)|(?:^|[_.-])KEY(?:$|[_.-])(?!VALUE)|APIKEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL)",
    re.IGNORECASE,
)
# Names that contain KEY but are not secrets and that checks need (e.g. CUDA_DEVICE_ORDER is fine anyway).
_NOT_SECRET_NAMES = frozenset({"KEYTIMEOUT", "PYTHONHASHSEED"})
SECRET_FLAGS = (
    "--api-key",
    "--api_key",
    "--hf-token",
    "--hf_token",
    "--token",
    "--auth-token",
    "--password",
    "--secret",
    "--access-token",
    "--admin-api-key",
)
_SECRET_FLAG_RE = "|".join(re.escape(f) for f in sorted(SECRET_FLAGS, key=len, reverse=True))
# user:password@, :password@ (an empty user, as redis://:pw@host) and user@.
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<cred>[^/\s:@\"']+(?::[^/\s@\"']*)?|:[^/\s@\"']+)@")
# Secrets known by their shape, whatever name they are stored under (each vendor's documented prefix):
# GitHub (https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/),
# Hugging Face `hf_`, OpenAI/Anthropic `sk-`, AWS access key IDs `AKIA`/`ASIA`, NVIDIA NGC/API `nvapi-`,
# JWTs (three base64url parts, the first two JSON objects: `eyJ`), PEM blocks, chat webhook URLs.
# Judged by prefix before any entropy rule (their `-` and `_` would rule that out): Slack bot, user,
# app-level and refresh tokens (`xox[abposr]-`, `xapp-`), Stripe live and test keys (`sk_live_`,
# `rk_live_`, `sk_test_`), GitLab `glpat-`, npm `npm_`, PyPI `pypi-AgE` (a macaroon), SendGrid
# `SG.<id>.<secret>`, Google API keys `AIza`, DigitalOcean `dop_v1_`, Shopify `shpat_`.
_SECRET_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|hf_[A-Za-z0-9]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}|nvapi-[A-Za-z0-9_-]{20,}"
    r"|eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|(?:sk|rk)_live_[A-Za-z0-9]{10,}|sk_test_[A-Za-z0-9]{10,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|pypi-AgE[A-Za-z0-9_-]{20,}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|AIza[A-Za-z0-9_-]{30,}|dop_v1_[a-f0-9]{32,}|shpat_[a-fA-F0-9]{20,})"
    r"|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}"
)
_PEM_BLOCK = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{1,64})-----.*?(?:-----END (?P=label)-----|\Z)", re.DOTALL)
_WEBHOOK = re.compile(
    r"(?P<base>https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)|(?:[a-z0-9-]+\.)?discord(?:app)?\.com/api/webhooks"
    r"|[A-Za-z0-9.-]*webhook\.office\.com/webhookb2|outlook\.office\.com/webhook|chat\.googleapis\.com/v1/spaces))"
    r"/[^\s\"'<>]+"
)
# A flag whose name says it holds a secret: *password*, *secret*, *token* (not tokens/tokenizer), *key*, auth.
_SECRET_FLAG_NAME = re.compile(
    r"passw(?:or)?d|secret|token(?!s|izer)|key|auth(?!or)|credential|cookie", re.IGNORECASE)
_ANY_FLAG_VALUE = re.compile(
    r"(?P<flag>(?<![A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9_-]*)(?P<sep>=|[ \t]+|\x00|\"\s*,\s*\")(?P<value>[^\s\"'\x00-][^\s\"'\x00]*)"
)
_ENV_ASSIGNMENT = re.compile(
    r"(?P<pre>(?:^|[\s\"'\[,;]|\x00)(?:export\s+)?)(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'\x00,;\]]*)",
    re.MULTILINE,
)
_FLAG_VALUE = re.compile(
    rf"(?P<flag>(?:{_SECRET_FLAG_RE}))(?P<sep>=|\s+|\x00|\"\s*,\s*\")(?P<value>[^\s\"'\x00]+)",
)
# JSON and Python-repr pairs: "api_key": "x", 'hf_token': 'x', 'api_key': ['x'] (vLLM logs its args as a dict).
_JSON_SECRET_PAIR = re.compile(
    r"(?P<head>(?P<q>[\"'])(?P<name>[A-Za-z0-9_\-]+)(?P=q)\s*:\s*\[?\s*)(?P<vq>[\"'])(?P<value>[^\"'\n]*)(?P=vq)"
)
# YAML / INI style `name: value` lines (engine --config files, compose files).
_YAML_SECRET_LINE = re.compile(r"^(?P<pre>[ \t]*-?[ \t]*[\"']?)(?P<name>[A-Za-z0-9_.-]+)(?P<sep>[\"']?[ \t]*:[ \t]+)(?P<value>[^\s#][^\n]*)$",
                               re.MULTILINE)


def is_secret_name(name: str) -> bool:
    return name.upper() not in _NOT_SECRET_NAMES and bool(_SECRET_NAME.search(name))


# A value that looks random: 24+ characters of one base64-like run with upper case, lower case and digits
# and near the entropy of random text. Separators (`-`, `_`, `.`, `/`, `:`) rule it out, so UUIDs (GPU,
# MIG, boot_id), hex digests and container IDs (lower-case hex), versions, paths and model names
# (`DeepSeek-R1-Distill-Qwen-32B`) are never taken for one.
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+=]{24,4096}")
_MIN_ENTROPY_BITS = 3.9  # per character; 24 random base62 characters measure 4.1-4.4, English words ~3.5


def looks_random(value: str) -> bool:
    """A high-entropy value with no known non-secret shape (see _RANDOM_RUN)."""
    value = value.strip("\"'")
    if not _RANDOM_RUN.fullmatch(value) or value == REDACTED:
        return False
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value) and sum(c.isdigit() for c in value) >= 2):
        return False
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= _MIN_ENTROPY_BITS


def is_secret_flag(flag: str) -> bool:
    """`--api-key`, `--ssl-keyfile-password`, `--hf-token`, `--db-secret`; not `--max-num-batched-tokens`."""
    if not flag.startswith("-"):
        return False
    return flag in SECRET_FLAGS or bool(_SECRET_FLAG_NAME.search(flag.lstrip("-")))


_PREFIXES = (r"gh[pousr]_|github_pat_|hf_|sk-|AKIA|ASIA|nvapi-|eyJ|xox[abposr]-|xapp-|[sr]k_live_|sk_test_|glpat-"
             r"|npm_|pypi-|SG\.|AIza|dop_v1_|shpat_")
_SHAPE_PREFIX = re.compile(_PREFIXES)


def redact_shapes(text: str) -> str:
    """Secrets recognised by their shape (tokens, keys, JWTs, PEM blocks, webhook URLs) under any name."""
    if "-----BEGIN " in text:
        text = _PEM_BLOCK.sub(lambda m: f"-----BEGIN {m.group('label')}-----{REDACTED}-----END {m.group('label')}-----",
                              text)
    if "://" in text:
        text = _WEBHOOK.sub(lambda m: f"{m.group('base')}/{REDACTED}", text)
    if not _SHAPE_PREFIX.search(text):  # one quick scan for the prefixes before the full pattern
        return text
    return _SECRET_SHAPES.sub(REDACTED, text)


def redact_url_credentials(text: str) -> str:
    """`scheme://user:pw@`, `scheme://:pw@` and `scheme://user@` lose their credentials."""
    if "://" not in text:
        return text
    return _URL_CREDENTIALS.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)


def _sub_changed(rx: re.Pattern[str], repl: Callable[[re.Match[str]], str], text: str) -> str:
    """`rx.sub(repl, text)` that builds a new text only when some match is replaced by something else:
    most matches of the assignment and flag patterns in a long log are kept as they are, and `sub` would
    copy the whole text (20 MB for a pasted kernel log) once per pattern to say so."""
    pieces: list[str] = []
    pos = 0
    for m in rx.finditer(text):
        new = repl(m)
        if new != m.group(0):
            pieces += (text[pos:m.start()], new)
            pos = m.end()
    if not pieces:
        return text
    pieces.append(text[pos:])
    return "".join(pieces)


def redact_text(text: str) -> str:
    """Redact credentials in URLs, secret-named assignments, secret flags' values and secret shapes.

    A text with nothing to redact comes back as the very same object: a 20 MB pasted log is then
    held once, not once more for each reader."""
    out = _settled(_redact_text, text)
    return text if out == text else out


def _redact_text(text: str) -> str:
    text = redact_url_credentials(redact_shapes(text))

    def _assignment(m: re.Match[str]) -> str:
        if (is_secret_name(m.group("name")) or looks_random(m.group("value"))) and m.group("value") not in ("", REDACTED):
            return f"{m.group('pre')}{m.group('name')}={REDACTED}"
        return m.group(0)

    text = _sub_changed(_ENV_ASSIGNMENT, _assignment, text)
    text = _FLAG_VALUE.sub(_flag_value, text)

    def _flag(m: re.Match[str]) -> str:
        if is_secret_flag(m.group("flag")) and m.group("value") != REDACTED:
            return f"{m.group('flag')}{m.group('sep')}{REDACTED}"
        return m.group(0)

    text = _sub_changed(_ANY_FLAG_VALUE, _flag, text)

    def _json_pair(m: re.Match[str]) -> str:
        if ((is_secret_name(m.group("name")) or looks_random(m.group("value"))) and m.group("value")
                and m.group("value") != REDACTED):
            quote = m.group("vq")
            return f"{m.group('head')}{quote}{REDACTED}{quote}"
        return m.group(0)

    text = _sub_changed(_JSON_SECRET_PAIR, _json_pair, text)

    def _yaml_line(m: re.Match[str]) -> str:
        value = m.group("value").strip()
        if (is_secret_name(m.group("name")) or looks_random(value)) and value not in (REDACTED, f'"{REDACTED}"'):
            return f"{m.group('pre')}{m.group('name')}{m.group('sep')}{REDACTED}"
        return m.group(0)

    return _sub_changed(_YAML_SECRET_LINE, _yaml_line, text)


def _takes_secret(arg: str) -> bool:
    """`--hf-token` or `--hf-token=x`: a flag whose own value is a secret, so not another flag's value."""
    return arg.startswith("-") and is_secret_flag(arg.partition("=")[0])


def _flag_value(m: re.Match[str]) -> str:
    """A known secret flag's value withheld; unless the "value" is itself a secret flag (`--api-key
    --hf-token T`: the first has none), whose own value the next pattern (_ANY_FLAG_VALUE) withholds."""
    if _takes_secret(m.group("value")):
        return m.group(0)
    return f"{m.group('flag')}{m.group('sep')}{REDACTED}"


def _settled(redact: Callable[[_T], _T], item: _T) -> _T:
    """`redact` applied until it changes nothing (at most four times): one replacement can expose another
    (`--api-key API_KEY=` loses its value, and the rest then reads as an entry; a key redacted in
    `AKIA…hf_…` leaves the token after it standing alone), and a second pass over a snapshot must change nothing."""
    for _ in range(4):
        again = redact(item)
        if again == item:
            break
        item = again
    return item


def redact_argv(argv: list[str]) -> list[str]:
    """Redact the values of secret flags in an argument vector (`--api-key X`, `--api-key=X`)."""
    return _settled(_redact_argv_once, argv)


def redact_env_entries(entries: list[str]) -> list[str]:
    """Redact `NAME=value` entries whose name looks secret; credentials in other values."""
    return _settled(_redact_env_once, entries)


def _redact_argv_once(argv: list[str]) -> list[str]:
    out: list[str] = []
    hide_next = False
    for i, arg in enumerate(argv):
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        # The flag is read from what the text rules leave, so that a second pass decides the same.
        arg = redact_text(arg)
        flag, eq, _ = arg.partition("=")
        if is_secret_flag(flag):
            if eq:
                out.append(f"{flag}={REDACTED}")
            else:
                out.append(arg)
                # The next argument is the value, unless it is another flag (a boolean `--enable-auth`); a
                # known secret flag's value may start with "-", but is never a flag that holds a secret itself
                # (`--api-key --hf-token T`: T is hidden as --hf-token's value).
                following = redact_text(argv[i + 1]) if i + 1 < len(argv) else ""
                hide_next = (flag in SECRET_FLAGS and not _takes_secret(following)) or (
                    bool(following) and not following.startswith("-"))
            continue
        out.append(arg)
    return out


def _redact_env_once(entries: list[str]) -> list[str]:
    out = []
    for entry in entries:
        name, eq, value = entry.partition("=")
        if eq and (is_secret_name(name) or looks_random(value)):
            out.append(f"{redact_text(name)}={REDACTED}")  # a name may itself have a token's shape
        else:
            out.append(redact_text(entry) if eq else entry)
    return out


def _redact_nul_list(data: bytes, kind: str) -> bytes:
    text = data.decode("utf-8", errors="surrogateescape")
    trailing = text.endswith("\x00")
    items = text.split("\x00")
    if trailing:
        items = items[:-1]
    items = redact_env_entries(items) if kind == "environ" else redact_argv(items)
    joined = "\x00".join(items) + ("\x00" if trailing else "")
    return joined.encode("utf-8", errors="surrogateescape")


_SHAPE_HINT = re.compile((_PREFIXES + "|-----BEGIN ").encode())


def redact_file(path: str, data: bytes) -> bytes:
    """Redact one file's content according to what the file is."""
    if path.startswith("/proc/") and path.endswith("/environ"):
        return _redact_nul_list(data, "environ")
    if path.startswith("/proc/") and path.endswith("/cmdline"):
        return _redact_nul_list(data, "cmdline")
    if (b"@" not in data and b"=" not in data and b"--" not in data and b":" not in data
            and not _SHAPE_HINT.search(data)):
        return data
    text = data.decode("utf-8", errors="surrogateescape")
    return redact_text(text).encode("utf-8", errors="surrogateescape")


def _redact_docker_object(obj: Any) -> Any:
    if isinstance(obj, dict):
        result: dict[str, Any] = {}
        for key, value in obj.items():
            if key == "Env" and isinstance(value, list):
                result[key] = redact_env_entries([str(v) for v in value])
            elif key in ("Args", "Cmd", "Entrypoint") and isinstance(value, list):
                result[key] = redact_argv([str(v) for v in value])
            elif key == "Labels" and isinstance(value, dict):
                # Labels carry any configuration (basic-auth hashes, tokens for proxies): values withheld,
                # names kept (no check reads a label's value).
                result[key] = {str(k): REDACTED if v else v for k, v in value.items()}
            else:
                result[key] = _redact_docker_object(value)
        return result
    if isinstance(obj, list):
        return [_redact_docker_object(v) for v in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj


def redact_command_output(argv: tuple[str, ...], stdout: str) -> str:
    """Redact a command's output; `docker inspect` JSON is redacted structurally."""
    if len(argv) >= 2 and argv[0].endswith("docker") and argv[1] == "inspect":
        try:
            return json.dumps(_redact_docker_object(load_json(stdout, "docker inspect")), indent=4)
        except ValueError:
            pass
    return redact_text(stdout)
