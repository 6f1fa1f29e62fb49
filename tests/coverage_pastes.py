"""Pastes for issue 28's coverage rule. MODELLED, and marked so: each is cut and joined from real captures in
tests/data/captures, with the changes listed below; nothing here is a paste a user made.

The essay's machine (8 GPUs, `nvidia-smi -q -i 0` and one GPU's `lspci -vvv`):
- `nvidia-smi -q -x -i 0`: the body of 04-… (one RTX PRO 6000 Blackwell at 00000000:61:00.0, verbatim XML) with
  `<attached_gpus>` changed from 1 to 8, as `-i 0` prints on an 8-GPU host (it keeps the host's count).
- `sudo lspci -vvv -nn -s 61:00.0`: the device of 05-… (an A100's header, BARs, DevCap and DevCtl, verbatim)
  renamed to the RTX PRO 6000 at 61:00.0, and its cut `Ln` line replaced by the LnkCap..CEMsk lines of 89-…
  (verbatim) behind a modelled LnkCap (32GT/s x16), with LnkSta at 16GT/s x16 (the Gen5 card in 04-…'s Gen4 host).
- the lspci list of the 8 GPUs: `lspci -nn` lines in the format of 05-…'s first line, at 04-…'s and
  tests/gap_pastes.py's bus numbers.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, parse_header

NAME = "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition] [10de:2bb4] (rev a1)"
BUSES = ["01", "21", "41", "61", "81", "a1", "c1", "e1"]


def body(prefix: str) -> str:
    """The verbatim capture of the corpus file whose name starts with `prefix`."""
    [path] = sorted(CAPTURES_DIR.glob(f"{prefix}*"))
    return parse_header(path).body


def nvidia_smi_q_i0(attached: int = 8) -> str:
    xml = body("04-").replace("<attached_gpus>1</attached_gpus>", f"<attached_gpus>{attached}</attached_gpus>")
    assert f"<attached_gpus>{attached}</attached_gpus>" in xml
    return f"$ nvidia-smi -q -x -i 0\n{xml}\n"


def lspci_vvv(bus: str = "61", width: int = 16) -> str:
    """One GPU's `lspci -vvv` (see the module docstring); `width` below 16: a link trained narrower than LnkCap."""
    head = [line for line in body("05-").splitlines() if not line.startswith("\t\tLn")]
    head[0] = f"{bus}:00.0 3D controller [0302]: {NAME}"
    tail = [line for line in body("89-").splitlines() if not line.startswith("```")]
    link = ["\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported"] + [
        line.replace("5GT/s (downgraded), Width x1 (downgraded)",
                     f"16GT/s (downgraded), Width x{width}" + (" (downgraded)" if width < 16 else ""))
        for line in tail]
    return f"$ sudo lspci -vvv -nn -s {bus}:00.0\n" + "\n".join(head + link) + "\n"


def lspci_list(buses: list[str] = BUSES) -> str:
    return "$ lspci -nn | grep -i nvidia\n" + "".join(f"{b}:00.0 3D controller [0302]: {NAME}\n" for b in buses)


def essay(tmp: Path, *parts: str) -> Path:
    """The essay's machine pasted as `nvidia-smi -q -i 0` and one GPU's `lspci -vvv`, then `parts`."""
    path = tmp / "essay-coverage.txt"
    path.write_text(nvidia_smi_q_i0() + "\n" + lspci_vvv() + "".join("\n" + p for p in parts), encoding="utf-8")
    return path
