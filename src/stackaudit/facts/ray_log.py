"""Ray's own log lines in a paste (`ray start`, `ray.init()`, `(raylet) ...`): the object store's
/dev/shm warning.

Ray puts its object store in /dev/shm and falls back to /tmp when /dev/shm has less free space than
the store asks for, warning "The object store is using /tmp instead of /dev/shm because /dev/shm has
only N bytes available". N is the free space of /dev/shm (Ray's `get_shared_memory_bytes`:
`f_bsize * f_bavail` of `fstatvfs("/dev/shm")`), so it bounds the size from below: the size itself
stays unknown.
"""

from __future__ import annotations

import re

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import parser
from stackaudit.facts.shm import ShmInfo
from stackaudit.facts.sources import RAY_LOG

SHM_WARNING = re.compile(r"because /dev/shm has only (\d+) bytes available")


@parser(RAY_LOG, feeds="shm", kind=ShmInfo, rank=90)
def shm_from_ray_log(text: str) -> ShmInfo:
    """/dev/shm's free space as Ray's object-store warning reports it (a pasted Ray log).

    Input (tests/data/captures/272)::

        2020-11-11 11:29:31,384\tINFO services.py:1166 -- View the Ray dashboard at http://localhost:8265
        2020-11-11 11:29:31,386\tWARNING services.py:1625 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 477999988736 bytes available. This may slow down performance! You may be able to free up space by deleting files in /dev/shm or terminating any running plasma_store_server processes. If you are inside a Docker container, you may need to pass an argument with the flag '--shm-size' to 'docker run'.
    """
    found = [(m.group(0), int(m.group(1))) for m in SHM_WARNING.finditer(text)]
    if not found:
        raise ParseError("no /dev/shm warning in the Ray log")
    line, available = found[-1]
    return ShmInfo(size_bytes=None, available_bytes=available, sources=(RAY_LOG.title,),
                   evidence=(f"Ray: {line}",))
