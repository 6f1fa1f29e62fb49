#!/usr/bin/env bash
# stackaudit fix plan (stackaudit <version>)
# source: snapshot proxmox-lxc.tar.gz, host llm-lxc
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
# Run on the Proxmox node, before the container's own steps; not in the container (lxc) llm-lxc this plan was made in.
group_container_host() {
  # -- CTR-LXC-DEVICES (P1): Find the nvidia-uvm device major on the host
  #    takes: nothing to change
  #    observed: $'user-space driver 550.120 != host kernel module 550.127.05: install the same version without the kernel module (`--no-kernel-module`)'
  grep nvidia-uvm /proc/devices
  # -- CTR-LXC-DEVICES (P1): Pass the NVIDIA devices into the container in its config (/etc/pve/lxc/<id>.conf `key: value` or /var/lib/lxc/<name>/config `key = value`), then restart the container
  #    takes: restart the container
  #    observed: $'user-space driver 550.120 != host kernel module 550.127.05: install the same version without the kernel module (`--no-kernel-module`)'
  #    changes: the container's cgroup device list and mounts
  #    nothing to run: a person does this
  # keep (LXC), in /etc/pve/lxc/<id>.conf:
  #   lxc.cgroup2.devices.allow: c 195:* rwm
  # keep (LXC), in /etc/pve/lxc/<id>.conf:
  #   lxc.cgroup2.devices.allow: c <nvidia-uvm major>:* rwm
  # keep (LXC), in /etc/pve/lxc/<id>.conf:
  #   lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
  #   likewise nvidia0.., nvidia-uvm, nvidia-uvm-tools
  # keep (Proxmox >= 8.1), in /etc/pve/lxc/<id>.conf:
  #   devN: /dev/nvidia-uvm
  # -- CTR-LXC-HOST-SCOPE (P1): Raise the container's limits in its config, then restart it
  #    takes: restart the container
  #    observed: 'open files hard limit 4096 < 65536 (set lxc.prlimit.nofile on the host)'
  #    nothing to run: a person does this
  # keep (LXC), in the container's LXC config:
  #   lxc.prlimit.nofile = 1048576
  # keep (LXC, RDMA), in the container's LXC config:
  #   lxc.prlimit.memlock = unlimited
  # keep (only if required), in the container's LXC config:
  #   lxc.apparmor.profile = unconfined
  #   a security trade-off
  # note: apply the host-level knobs (numa_balancing, THP, cpufreq, PCI) on the LXC host
  # -- KERN-NUMA-BALANCING (P2): Turn off automatic NUMA balancing
  #    takes: runtime
  #    observed: 1
  #    changes: kernel.numa_balancing
  sysctl -w kernel.numa_balancing=0
  # keep, in /etc/sysctl.d/90-llm-serving.conf:
  #   kernel.numa_balancing = 0
  # undo (from the observed value): bash "$0" undo-container-host
  # then, in the container, these checks must pass:
  #   stackaudit audit --select CTR-LXC-HOST-SCOPE,KERN-NUMA-BALANCING
}

undo_container_host() {
  # -- KERN-NUMA-BALANCING: undo Turn off automatic NUMA balancing
  #    observed: 1
  sysctl -w kernel.numa_balancing=1
}

# == restart: restart the serving engine ==
group_restart() {
  # -- CTR-LXC-DEVICES (P1): Pin the host's and the container's driver packages to the same version
  #    takes: restart the container
  #    observed: $'user-space driver 550.120 != host kernel module 550.127.05: install the same version without the kernel module (`--no-kernel-module`)'
  #    nothing to run: a person does this
  # -- RT-ULIMIT-NOFILE (P1): Raise the API server's open-file limit
  #    observed: 'pid 731 (vLLM api-server): hard 4096'
  #    changes: RLIMIT_NOFILE of the API server
  prlimit --pid 731 --nofile=1048576:1048576
  # keep (Docker), in docker run:
  #   --ulimit nofile=1048576:1048576
  # keep (systemd), in the engine's systemd unit:
  #   LimitNOFILE=1048576
  # keep (LXC), in the container's LXC config:
  #   lxc.prlimit.nofile = 1048576
  # keep (limits.d), in /etc/security/limits.d/:
  #   * - nofile 1048576
  # after the engine restarts, these checks must pass:
  #   stackaudit audit --select CTR-LXC-DEVICES,RT-ULIMIT-NOFILE
}

case "${1:-}" in
  container-host) group_container_host ;;
  restart) group_restart ;;
  undo-container-host) undo_container_host ;;
  *) echo "usage: bash $0 GROUP, one at a time, after reading the plan; groups: container-host, restart, undo-container-host" >&2
     exit 2 ;;
esac
