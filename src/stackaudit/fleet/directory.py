"""`stackaudit fleet --from DIR`: the snapshots a Slurm job or a Kubernetes DaemonSet wrote, one per node.

Each entry of DIR is one node, named by its file stem (`node-07.tar.gz`, `node-07.tgz`, `node-07.tar`, or a
snapshot directory `node-07/`): the recipes in docs/fleet.md write `$(hostname).tar.gz`. Nothing in DIR is
skipped silently: an entry that is no snapshot (an empty directory, a FIFO) is a failed node with the reason,
and a file that is not one is handed on, to be refused with its reason by the analysis. Only names starting
with a dot are left out (an editor's or a half-written upload's temporary files: `.node-07.tar.gz.part`),
and the report counts them.

Root reads DIR, and the nodes (or anyone) may write it. An entry is looked at without following a link: a
symbolic link is a failed node, never opened (it could lead to a root-only file). A DIR that users other than
its owner can write is refused unless `--allow-shared-dir` says it is meant to be shared: there, an entry
can be swapped for a link between the look and the read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

from stackaudit.errors import InputError
from stackaudit.fleet.outcome import Gatherer, NodeOutcome, Progress

_SUFFIXES = (".tar.gz", ".tgz", ".tar")
# A fleet directory of more entries than this is refused rather than listed into memory unbounded.
MAX_ENTRIES = 100_000


def node_name(entry: str) -> str:
    for suffix in _SUFFIXES:
        if entry.endswith(suffix) and len(entry) > len(suffix):
            return entry[: -len(suffix)]
    return entry


def list_entries(directory: str, allow_shared: bool = False) -> tuple[list[str], int]:
    """(the entries that are nodes, sorted; how many hidden entries were left out); InputError on a bad DIR."""
    try:
        st = os.stat(directory)
        if not stat.S_ISDIR(st.st_mode):
            raise InputError(f"--from {directory}: not a directory (a directory of snapshots, one per node)")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not allow_shared:
            raise InputError(f"--from {directory}: writable by users other than its owner (mode "
                             f"{stat.S_IMODE(st.st_mode):o}): pass --allow-shared-dir to read it anyway")
        with os.scandir(directory) as it:
            names = []
            for n, entry in enumerate(it):
                if n >= MAX_ENTRIES:
                    raise InputError(f"--from {directory}: over {MAX_ENTRIES} entries")
                names.append(entry.name)
    except FileNotFoundError:
        raise InputError(f"--from {directory}: no such directory") from None
    except OSError as exc:
        raise InputError(f"--from {directory}: {exc.strerror or exc}") from None
    hidden = sum(1 for n in names if n.startswith("."))
    nodes = sorted(n for n in names if not n.startswith("."))
    if not nodes:
        raise InputError(f"--from {directory}: no snapshots in it (one per node: `stackaudit capture --output "
                         f"{directory}/$(hostname).tar.gz` on each node)")
    return nodes, hidden


def directory_outcomes(directory: str, entries: list[str]) -> Iterator[NodeOutcome]:
    from stackaudit.host.snapshot_reader import is_snapshot

    for entry in entries:
        path = os.path.join(directory, entry)
        name = node_name(entry)
        try:
            st = os.lstat(path)
        except OSError as exc:
            yield NodeOutcome(name, error=f"{entry}: {exc.strerror or exc}")
            continue
        if stat.S_ISLNK(st.st_mode):
            yield NodeOutcome(name, error=f"{entry}: a symbolic link: not followed (copy the snapshot itself)")
        elif stat.S_ISDIR(st.st_mode):
            if not os.listdir(path):
                yield NodeOutcome(name, error=f"{entry}/: an empty directory, no snapshot (the capture wrote nothing)")
            elif not is_snapshot(path):
                yield NodeOutcome(name, error=f"{entry}/: a directory without meta.json: not a stackaudit snapshot")
            else:
                yield NodeOutcome(name, snapshot=path)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size == 0:
                yield NodeOutcome(name, error=f"{entry}: an empty file, no snapshot (the capture was cut short)")
            else:
                yield NodeOutcome(name, snapshot=path)
        else:
            yield NodeOutcome(name, error=f"{entry}: not a regular file or directory")


def directory_gatherer(directory: str, allow_shared: bool = False) -> tuple[Gatherer, int, int]:
    """The gatherer for DIR (its snapshots are already here: `dest` is not used), how many nodes it names
    and how many hidden entries it left out."""
    entries, hidden = list_entries(directory, allow_shared)

    def gather(dest: str, progress: Progress | None = None) -> Iterator[NodeOutcome]:
        for n, outcome in enumerate(directory_outcomes(directory, entries), 1):
            if progress is not None:
                progress(outcome, n)
            yield outcome

    return gather, len(entries), hidden
