#!/usr/bin/env bash
# stackaudit fix plan (stackaudit <version>)
# source: snapshot rtx-pro-6000-lxc.tar.gz, host sglang-ct
# audited inside a container (lxc): host-level steps go on the Proxmox node
# audit: <time>; plan: <time>
# boot loader: GRUB (/proc/cmdline has BOOT_IMAGE=)
#
# Read it before running anything. Running the whole file runs nothing: each group is a
# function; run one group at a time, as root, on the machine it names, e.g.
#   bash plan.sh container-host
# Groups: container-host, restart, undo-container-host.
set -euo pipefail

# == container-host: on the container's host: the Proxmox node ==
# Run on the Proxmox node, before the container's own steps; not in the container (lxc) sglang-ct this plan was made in.
group_container_host() {
  # -- KERN-NUMA-BALANCING (P2): Turn off automatic NUMA balancing
  #    takes: runtime
  #    observed: 1
  #    changes: kernel.numa_balancing
  sysctl -w kernel.numa_balancing=0
  # keep, in /etc/sysctl.d/90-llm-serving.conf:
  #   kernel.numa_balancing = 0
  # undo (from the observed value): bash "$0" undo-container-host
  # -- KERN-CSTATES (P2): Disable idle states with exit latency >= 100 µs
  #    takes: runtime
  #    observed: 'CPU 0 idle states (acpi_idle): POLL 0µs, C1 1µs, C2 100µs'
  #    changes: the enabled cpuidle states
  cpupower idle-set -D 100
  # keep (tuned):
  #   tuned-adm profile latency-performance
  #   or accelerator-performance
  # keep (BIOS): the C-state limit
  # keep (GRUB, Debian/Ubuntu), in /etc/default/grub:
  #   GRUB_CMDLINE_LINUX_DEFAULT="... processor.max_cstate=1"
  #   then update-grub and reboot
  # keep (grubby, RHEL/Fedora/Rocky/Alma):
  #   grubby --update-kernel=ALL --args=processor.max_cstate=1
  #   then reboot
  # keep (kernelstub, Pop!_OS):
  #   kernelstub -a processor.max_cstate=1
  #   then reboot
  # undo (as the fix gives it): bash "$0" undo-container-host
  # -- FW-ACS-P2P (P2): Clear ACS P2P redirect (ReqRedir, CmpltRedir, EgressCtrl) on the bridges between the GPUs, before the engine starts; lost at reboot and after hotplug/reset
  #    takes: runtime
  #    observed: '0000:00:01.1 0x001d, 0000:20:01.1 0x001d, 0000:40:01.1 0x001d, 0000:60:01.1 0x001d, 0000:80:01.1 0x001d, 0000:a0:01.1 0x001d, 0000:c0:01.1 0x001d, 0000:e0:01.1 0x001d'
  #    changes: ACS Control bits 2, 3 and 5 of 0000:00:01.1, 0000:20:01.1, 0000:40:01.1, 0000:60:01.1, 0000:80:01.1, 0000:a0:01.1, 0000:c0:01.1, 0000:e0:01.1
  setpci -s 0000:00:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:20:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:40:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:80:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:a0:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:c0:01.1 ECAP_ACS+0x6.w=0000:002c
  setpci -s 0000:e0:01.1 ECAP_ACS+0x6.w=0000:002c
  # keep (GRUB, Debian/Ubuntu), in /etc/default/grub:
  #   GRUB_CMDLINE_LINUX_DEFAULT="... \"pci=disable_acs_redir=0000:00:01.1;0000:20:01.1;0000:40:01.1;0000:60:01.1;0000:80:01.1;0000:a0:01.1;0000:c0:01.1;0000:e0:01.1\""
  #   then update-grub and reboot; quoted: `;` separates GRUB commands
  # keep (grubby, RHEL/Fedora/Rocky/Alma):
  #   grubby --update-kernel=ALL '--args=pci=disable_acs_redir=0000:00:01.1;0000:20:01.1;0000:40:01.1;0000:60:01.1;0000:80:01.1;0000:a0:01.1;0000:c0:01.1;0000:e0:01.1'
  #   then reboot
  # keep (kernelstub, Pop!_OS):
  #   kernelstub -a 'pci=disable_acs_redir=0000:00:01.1;0000:20:01.1;0000:40:01.1;0000:60:01.1;0000:80:01.1;0000:a0:01.1;0000:c0:01.1;0000:e0:01.1'
  #   then reboot
  # keep (BIOS): "ACS Control" / "PCIe ACS" disabled
  # keep (systemd): a systemd oneshot unit Before=nvidia-persistenced.service running the setpci commands
  # note: ACS isolates devices for VFIO: on a host that passes these GPUs (or devices behind these bridges) to VMs, clearing it merges their IOMMU groups — keep ACS there; `pci=noacs` is not a mainline parameter and `pcie_acs_override=` does not clear ACS bits
  # undo (as the fix gives it): bash "$0" undo-container-host
  # then, in the container, these checks must pass:
  #   stackaudit audit --select KERN-CSTATES,KERN-NUMA-BALANCING
}

undo_container_host() {
  # -- FW-ACS-P2P: undo Clear ACS P2P redirect (ReqRedir, CmpltRedir, EgressCtrl) on the bridges between the GPUs, before the engine starts; lost at reboot and after hotplug/reset
  #    observed: '0000:00:01.1 0x001d, 0000:20:01.1 0x001d, 0000:40:01.1 0x001d, 0000:60:01.1 0x001d, 0000:80:01.1 0x001d, 0000:a0:01.1 0x001d, 0000:c0:01.1 0x001d, 0000:e0:01.1 0x001d'
  setpci -s 0000:00:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:20:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:40:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:80:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:a0:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:c0:01.1 ECAP_ACS+0x6.w=000c:002c
  setpci -s 0000:e0:01.1 ECAP_ACS+0x6.w=000c:002c
  # -- KERN-CSTATES: undo Disable idle states with exit latency >= 100 µs
  #    observed: 'CPU 0 idle states (acpi_idle): POLL 0µs, C1 1µs, C2 100µs'
  cpupower idle-set -E
  # -- KERN-NUMA-BALANCING: undo Turn off automatic NUMA balancing
  #    observed: 1
  sysctl -w kernel.numa_balancing=1
}

# == restart: restart the serving engine ==
group_restart() {
  # -- FW-ACS-P2P (P2): Restart the engine
  #    observed: '0000:00:01.1 0x001d, 0000:20:01.1 0x001d, 0000:40:01.1 0x001d, 0000:60:01.1 0x001d, 0000:80:01.1 0x001d, 0000:a0:01.1 0x001d, 0000:c0:01.1 0x001d, 0000:e0:01.1 0x001d'
  #    nothing to run: a person does this
  # after the engine restarts, these checks must pass:
  #   stackaudit audit --select FW-ACS-P2P
  :  # nothing here runs by itself
}

case "${1:-}" in
  container-host) group_container_host ;;
  restart) group_restart ;;
  undo-container-host) undo_container_host ;;
  *) echo "usage: bash $0 GROUP, one at a time, after reading the plan; groups: container-host, restart, undo-container-host" >&2
     exit 2 ;;
esac
