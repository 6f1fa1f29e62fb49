"""The loaded module's banner pasted anywhere settles DRV-OPEN-MODULE's flavour (importers/evidence.py).

`NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08 ...` is the first line of
/proc/driver/nvidia/version; pasted in a version list, a tool's system summary or a `cat` in prose, the evidence
reader records it as that file, and the file's reader (facts/nvidia.parse_proc_version) reads version and
flavour. Real pastes are verbatim (the public thread beside each) or corpus captures; counter-examples are
modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.errors import InputError
from stackaudit.facts.nvidia import PROC_VERSION_BANNER

# https://github.com/nix-community/nixGL/issues/186 (phirsch: `cat /proc/driver/nvidia/version` on Ubuntu 24.04)
NIXGL_OPEN = """On Ubuntu 24.04 with the `nvidia-driver-565-open` driver, `cat /proc/driver/nvidia/version` yields

```
NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  (dvs-builder@U16-A24-9-2)  Thu Oct 10 12:15:00 UTC 2024
GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)
```
"""

# https://github.com/hyprwm/Hyprland/pull/6715 (UjinT34: `hyprctl systeminfo`'s GPU section, a Russian-locale date)
HYPRCTL_OPEN = """GPU information:
01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3080] [10de:2206] (rev a1) (prog-if 00 [VGA controller])
NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58  Release Build  (portage@localhost)  Сб 29 июн 2024 14:36:22 MSK
"""

# https://github.com/dylanaraps/neofetch/issues/876 (techtonik: the proprietary module of 2017)
NEOFETCH_PROPRIETARY = """$ cat /proc/driver/nvidia/version
NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 15:16:01 PDT 2017
GCC version:  gcc version 7.2.0 (Ubuntu 7.2.0-8ubuntu3)
"""

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/171 (ptr1337 quoting NVIDIA's README): the banner's form
# with `[...]` for the version, no host's banner.
README_TEMPLATE = """The open flavor will report:

    # modinfo nvidia | grep license
    license:        Dual MIT/GPL

    # cat /proc/driver/nvidia/version
    NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  [...]
"""


def _open_module(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]


def test_the_banner_in_a_version_list_on_b200() -> None:
    # Corpus 430 (vllm-project/vllm#20862): a numbered version list under a docker run, no kind for the banner.
    result = capture_checks("430", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "ok", result.message
    assert "575.57.08" in result.message
    assert any("Open Kernel Module" in line for line in result.evidence)


@pytest.mark.parametrize(("text", "version"), [(NIXGL_OPEN, "565.57.01"), (HYPRCTL_OPEN, "555.58")])
def test_an_open_banner_pasted_anywhere(tmp_path: Path, text: str, version: str) -> None:
    result = _open_module(tmp_path, text)
    assert result.status == "ok", result.message
    assert result.actual == "open"
    assert version in result.message


def test_a_proprietary_banner_before_r515(tmp_path: Path) -> None:
    result = _open_module(tmp_path, NEOFETCH_PROPRIETARY)
    assert result.status == "not-an-issue", result.message
    assert result.actual == "proprietary"
    assert "384.98" in result.message


def test_the_readme_form_without_a_version_is_no_banner(tmp_path: Path) -> None:
    assert not PROC_VERSION_BANNER.search(README_TEMPLATE)
    with pytest.raises(InputError):
        _open_module(tmp_path, README_TEMPLATE)


def test_prose_naming_the_banner_is_no_banner(tmp_path: Path) -> None:
    # Modelled: a sentence that names the banner's words, beside an nvidia-smi field the reader takes.
    text = ("Check that NVRM version: NVIDIA UNIX Open Kernel Module appears in the file.\n"
            "Driver Version : 575.57.08\n")
    assert not PROC_VERSION_BANNER.search(text)
    assert _open_module(tmp_path, text).status == "unknown"
