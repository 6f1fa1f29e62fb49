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
# Groups: container-host, undo-container-host.
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
  # then, in the container, these checks must pass:
  #   stackaudit audit --select KERN-CSTATES,KERN-NUMA-BALANCING
}

undo_container_host() {
  # -- KERN-CSTATES: undo Disable idle states with exit latency >= 100 µs
  #    observed: 'CPU 0 idle states (acpi_idle): POLL 0µs, C1 1µs, C2 100µs'
  cpupower idle-set -E
  # -- KERN-NUMA-BALANCING: undo Turn off automatic NUMA balancing
  #    observed: 1
  sysctl -w kernel.numa_balancing=1
}

case "${1:-}" in
  container-host) group_container_host ;;
  undo-container-host) undo_container_host ;;
  *) echo "usage: bash $0 GROUP, one at a time, after reading the plan; groups: container-host, undo-container-host" >&2
     exit 2 ;;
esac
