"""A pasted LXC container config: Proxmox `/etc/pve/lxc/<id>.conf` (`key: value`, also `pct config`)
or native LXC `/var/lib/lxc/<name>/config` (`key = value`).

Recorded as that file plus the directory listing the lxc fact reads. The file's name comes from
the path or `pct config <id>` line shown above it where there is one (else `pasted<n>`). A cut-off last line (`l`) is kept: the parser then
marks the copy as truncated, so missing rules are "unknown", not "absent".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.lxc import LXC_DIR, PVE_DIR
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import Scan, strip_prompt
from stackaudit.importers.registry import Found, importer, record_file

_PVE_KEYS = (r"arch|cmode|console|cores|cpulimit|cpuunits|description|dev\d+|digest|entrypoint|env|features|"
             r"hookscript|hostname|lock|memory|mp\d+|nameserver|net\d+|onboot|ostype|parent|protection|rootfs|"
             r"searchdomain|snaptime|startup|swap|tags|template|timezone|tty|unprivileged|unused\d+|lxc\.[\w.]+")
_PVE_LINE = re.compile(rf"^(?:{_PVE_KEYS}):\s?.*$")
_PVE_CORE = re.compile(r"^(arch|rootfs|ostype|hostname|memory|unprivileged|cores):")
_LXC_LINE = re.compile(r"^lxc\.[\w.]+\s*=\s*.*$")
_COMMENT = re.compile(r"^#")
_PARTIAL = re.compile(r"^[a-z][\w.]*$")  # a line cut off in the middle of a key
# The container's ID or name where the paste shows it: the file's path (after `cat`, an editor, or in the
# user's words: "my /etc/pve/lxc/101.conf:") or a `pct config 101` line.
_CAT_PVE = re.compile(r"/etc/pve/(?:nodes/[^/\s]+/)?lxc/(\d+)\.conf\b|\bpct\s+config\s+(\d+)\b")
_CAT_LXC = re.compile(r"/var/lib/lxc/([^/\s]+)/config\b")
_LOOK_BACK = 6  # lines above a config where its path or command may stand (prose, a fence, blank lines)


def _apply(path: str, directory: str, entry: str, text: str, rec: HostRecord) -> None:
    record_file(rec, path, text)
    rec.dirs[directory] = sorted(set(rec.dirs.get(directory, [])) | {entry})


def _name_from(lines: list[str], start: int) -> tuple[str, str] | None:
    """(flavour, id or name) from the path or `pct config` line nearest above the config, within a few
    lines and not past another config's settings."""
    for k in range(start - 1, max(-1, start - 1 - _LOOK_BACK), -1):
        text = strip_prompt(lines[k])
        m = _CAT_PVE.search(text)
        if m:
            return "proxmox", m.group(1) or m.group(2)
        m = _CAT_LXC.search(text)
        if m:
            return "lxc", m.group(1)
        if _PVE_LINE.match(text.strip()) or _LXC_LINE.match(text.strip()):
            break  # another config's lines: what stands above them names that one
    return None


# Not per line: a config starts at any of its many keys (`net0:`, `mp1:` are everywhere in other outputs);
# but one is only taken with a core key of Proxmox's or `lxc.` settings.
@importer("lxc config", "an LXC or Proxmox container config (`cat /etc/pve/lxc/<id>.conf`)",
          needles=("arch:", "rootfs:", "ostype:", "hostname:", "memory:", "unprivileged:", "cores:", "lxc."))
def lxc_config(lines: list[str]) -> Iterator[Found]:
    count = 0
    for i in (scan := Scan(lines, None)):
        line = lines[i].strip()
        pve = bool(_PVE_LINE.match(line)) and not _LXC_LINE.match(line)
        native = bool(_LXC_LINE.match(line))
        if not (pve or native):
            continue
        rx = _PVE_LINE if pve else _LXC_LINE
        j = i
        body: list[str] = []
        while j < len(lines):
            cur = lines[j].strip()
            if (rx.match(cur) and not (pve and _LXC_LINE.match(cur))) or _COMMENT.match(cur) or (
                    native and not cur and j + 1 < len(lines) and _LXC_LINE.match(lines[j + 1].strip())):
                body.append(cur)
                j += 1
                continue
            break
        settings = [b for b in body if b and not b.startswith("#")]
        core = pve and any(_PVE_CORE.match(b) for b in settings)
        if len(settings) < 3 or (pve and not core and sum(b.startswith("lxc.") for b in settings) < 2):
            scan.skip(j)
            continue
        if j < len(lines) and _PARTIAL.match(lines[j].strip()) and (j + 1 == len(lines) or not lines[j + 1].strip()):
            body.append(lines[j].strip())  # the copy ends in the middle of a line
            j += 1
        named = _name_from(lines, i)
        count += 1
        if pve:
            ident = named[1] if named and named[0] == "proxmox" else f"pasted{count}"
            apply = partial(_apply, f"{PVE_DIR}/{ident}.conf", PVE_DIR, f"{ident}.conf", "\n".join(body) + "\n")
        else:
            ident = named[1] if named and named[0] == "lxc" else f"pasted{count}"
            apply = partial(_apply, f"{LXC_DIR}/{ident}/config", LXC_DIR, ident, "\n".join(body) + "\n")
        yield Found("lxc config", i, j, apply)
        scan.skip(j)
