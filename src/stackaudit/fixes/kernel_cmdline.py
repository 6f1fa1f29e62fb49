"""Every kernel-command-line change of a fix, in the form the host's distribution and boot loader take.

One function, `cmdline_forms`, writes them for every check (the `cmdline_tool` fact says which tool the
host has, facts/boot_loader.py):

- Debian, Ubuntu (GRUB): the parameter in GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub, then
  `update-grub` (https://www.gnu.org/software/grub/manual/grub/html_node/Simple-configuration.html);
- RHEL, Fedora, Rocky, Alma: `grubby --update-kernel=ALL --args=…` / `--remove-args=…` (grubby(8));
- Pop!_OS: `kernelstub -a …` / `kernelstub -d …`;
- systemd-boot elsewhere: the parameter on the one line of /etc/kernel/cmdline, then the entries rebuilt;
- a host whose tool the source does not show: every form, each labelled with the systems it is for.
"""

from __future__ import annotations

from stackaudit.fixes.model import Persist, cmd, keep_cmd, keep_line, keep_text
from stackaudit.fixes.shell_quote import bash_word

GRUB_FILE = "/etc/default/grub"
_FAMILY = {"update-grub": "Debian/Ubuntu", "grubby": "RHEL/Fedora/Rocky/Alma", "kernelstub": "Pop!_OS",
           "systemd-boot": "systemd-boot"}


def systemd_boot_form(params: str) -> Persist:
    """The systemd-boot form: the same parameters on /etc/kernel/cmdline."""
    return keep_line(params, "/etc/kernel/cmdline", label="systemd-boot",
                     text="appended to its one line; then proxmox-boot-tool refresh (Proxmox) or kernel-install "
                     "add for the running kernel, and reboot")


def _form(tool: str, params: str, remove: bool, label: str) -> Persist:
    if tool == "grubby":
        flag = "--remove-args=" if remove else "--args="
        return keep_cmd(cmd(f"grubby --update-kernel=ALL {bash_word(flag + params)}"), label=label, text="then reboot")
    if tool == "kernelstub":
        return keep_cmd(cmd(f"kernelstub {'-d' if remove else '-a'} {bash_word(params)}"), label=label,
                        text="then reboot")
    if tool == "systemd-boot":
        if remove:
            return keep_text(f"remove {params} from the one line of /etc/kernel/cmdline, rebuild the entries "
                             "(proxmox-boot-tool refresh or kernel-install add), and reboot", label=label)
        return systemd_boot_form(params)
    if remove:
        return keep_text(f"remove {params} from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT in {GRUB_FILE}, "
                         "then update-grub and reboot", label=label)
    quoted = f'\\"{params}\\"' if ";" in params else params  # `;` separates GRUB commands
    return keep_line(f'GRUB_CMDLINE_LINUX_DEFAULT="... {quoted}"', GRUB_FILE, label=label,
                     text="then update-grub and reboot" + ("; quoted: `;` separates GRUB commands" if ";" in params
                                                           else ""))


def cmdline_forms(params: str, tool: str = "", *, remove: bool = False) -> tuple[Persist, ...]:
    """How to add (or `remove`) kernel parameters for good on a host whose tool is `tool` (CMDLINE_TOOLS
    of facts/boot_loader.py); every form, each labelled with its systems, when `tool` is ""."""
    if tool in _FAMILY:
        return (_form(tool, params, remove, "GRUB" if tool == "update-grub" else tool),)
    return tuple(_form(t, params, remove, f"GRUB, {family}" if t == "update-grub" else f"{t}, {family}")
                 for t, family in _FAMILY.items() if t != "systemd-boot")
