"""An engine's own lines in the host's journal (`ollama[285585]:`) show it runs as a host process, not in a container.

journald tags a process's output with its own name and PID where it runs as a service of that machine (Ollama's Linux
install runs `ollama serve` as ollama.service); Docker's journald log driver tags a container's lines with the
container's ID. The view keeps the tag (importers/_paste.py), the recogniser records it (LOG_LINE_PROGRAMS) and the
container fact reads it as host-side evidence (facts/container.py `_HOST_ENGINE`), so CTR-GPU-ACCESS is not applicable.
Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

# https://github.com/ollama/ollama/issues/8532 (troed: a manual install under the user's own systemd unit)
OLLAMA_8532 = """\
```
jan 27 17:06:44 desktop ollama[1646734]: time=2025-01-27T17:06:44.420+01:00 level=INFO source=routes.go:1238 msg="Listening on [::]:11434 (version 0.5.7)"
jan 27 17:06:44 desktop ollama[1646734]: time=2025-01-27T17:06:44.421+01:00 level=INFO source=routes.go:1267 msg="Dynamic LLM libraries" runners=[cpu]
jan 27 17:06:44 desktop ollama[1646734]: time=2025-01-27T17:06:44.421+01:00 level=INFO source=gpu.go:226 msg="looking for compatible GPUs"
```
"""


@pytest.mark.parametrize("prefix", ["261", "244", "1233"])
def test_an_ollama_journal_is_a_host_service(prefix: str) -> None:
    # corpus 261 (ollama/ollama#9245) and 244 (its own thread): journalctl lines tagged ollama[PID]; 1233
    # (ollama/ollama#8845), quoted, in a Chinese locale (`2月 06`), with the host name cut and its two spaces left.
    res = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "not-applicable"


def test_a_manual_ollama_unit_is_a_host_service(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, OLLAMA_8532, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert res.status == "not-applicable"


def test_a_container_tagged_journal_line_says_nothing_of_where_it_ran(tmp_path: Path) -> None:
    # Modelled: the same line under Docker's journald log driver, tagged with the container's ID.
    text = OLLAMA_8532.replace("ollama[1646734]", "3f4e8a9b2c1d[1021]")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
