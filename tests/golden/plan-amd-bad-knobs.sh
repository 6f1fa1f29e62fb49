#!/usr/bin/env bash
# stackaudit fix plan (stackaudit <version>)
# source: snapshot amd-bad-knobs.tar.gz, host gpu-amd-01
# audit: <time>; plan: <time>
# boot loader: GRUB (/proc/cmdline has BOOT_IMAGE=)
#
# Read it before running anything. Running the whole file runs nothing: each group is a
# function; run one group at a time, as root, on the machine it names, e.g.
#   bash plan.sh now
# Groups: now, restart, reboot, undo-now, undo-reboot.
set -euo pipefail

# == now: runtime, no disruption ==
group_now() {
  # -- CTR-SHM-SIZE (P0): Keep the engine's shared memory across logouts, then restart logind
  #    observed: 'systemd-logind RemoveIPC=yes and the engine runs as uid 1000: its /dev/shm segments are deleted when that user logs out'
  #    changes: logind's RemoveIPC
  systemctl restart systemd-logind
  # keep, in /etc/systemd/logind.conf:
  #   RemoveIPC=no
  #   or run the engine as a system user / systemd service
  # -- KERN-CPUFREQ-GOVERNOR (P0): Set the performance governor on every CPU
  #    observed: 'driver acpi-cpufreq, governor powersave on 128 CPUs (all 128 CPUs)'
  #    changes: scaling_governor of every CPU
  cpupower frequency-set -g performance
  # keep (tuned):
  #   tuned-adm profile throughput-performance
  #   or latency-performance / accelerator-performance
  # keep (kernel command line), in /etc/default/grub:
  #   GRUB_CMDLINE_LINUX_DEFAULT="... cpufreq.default_governor=performance"
  # keep (systemd): a systemd oneshot running the command
  # -- KERN-CPU-BOOST (P1): Turn turbo/boost on and lift the frequency caps found here
  #    observed: 'boost disabled (cpufreq/boost = 0)'
  #    changes: turbo/boost and scaling_max_freq
  echo 1 > /sys/devices/system/cpu/cpufreq/boost
  # keep: a tuned profile or a systemd oneshot running the same commands
  # keep (BIOS): 'Turbo Boost' / 'Core Performance Boost' enabled if it is off there
  # -- KERN-SWAP (P1): Free memory, then lower swappiness (`swapoff -a` too, if RAM allows)
  #    observed: 'pid 4101 api-server VmSwap 1843200 kB; pid 4180 engine-core VmSwap 512000 kB'
  #    changes: vm.swappiness
  sysctl -w vm.swappiness=10
  # keep, in /etc/sysctl.d/90-llm-serving.conf:
  #   vm.swappiness = 10
  #   or 1
  # note: size RAM for model loading + CPU KV offload
  # -- KERN-NUMA-BALANCING (P2): Turn off automatic NUMA balancing
  #    observed: 1
  #    changes: kernel.numa_balancing
  sysctl -w kernel.numa_balancing=0
  # keep, in /etc/sysctl.d/90-llm-serving.conf:
  #   kernel.numa_balancing = 0
  # undo (from the observed value): bash "$0" undo-now
  # -- KERN-SCHED-KNOBS (P2): Move batch jobs off the serving cores; give the engine a larger CPU weight
  #    observed: 'sysctl config sets kernel.sched_migration_cost_ns, kernel.sched_min_granularity_ns, which moved to /sys/kernel/debug/sched in Linux 5.13: these lines fail silently'
  #    changes: cgroup CPU weights
  # fill in <batch unit>, <weight>, then run:
  #   systemctl set-property <batch unit> CPUWeight=<weight>
  # keep: drop obsolete kernel.sched_* lines from /etc/sysctl.d (they moved to /sys/kernel/debug/sched in Linux 5.13)
  # -- KERN-THP (P2): Make THP defrag defer to khugepaged (or madvise)
  #    observed: 'enabled=always, defrag=always'
  #    changes: /sys/kernel/mm/transparent_hugepage/defrag
  echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag
  # keep, in /etc/tmpfiles.d/thp-defrag.conf:
  #   w /sys/kernel/mm/transparent_hugepage/defrag - - - - defer+madvise
  # keep: or a systemd oneshot unit
  # note: `transparent_hugepage=` on the command line sets `enabled`, not `defrag`
  # -- KERN-CSTATES (P2): Disable idle states with exit latency >= 400 µs
  #    observed: 'CPU 0 idle states (acpi_idle): POLL 0µs, C1 1µs, C2 400µs'
  #    changes: the enabled cpuidle states
  cpupower idle-set -D 400
  # keep (tuned):
  #   tuned-adm profile latency-performance
  #   or accelerator-performance
  # keep (BIOS): the C-state limit
  # keep (acpi_idle, reboot), in /etc/default/grub:
  #   GRUB_CMDLINE_LINUX_DEFAULT="... processor.max_cstate=1"
  # undo (as the fix gives it): bash "$0" undo-now
  # afterwards these checks must pass:
  stackaudit audit --select CTR-SHM-SIZE,KERN-CPU-BOOST,KERN-CPUFREQ-GOVERNOR,KERN-CSTATES,KERN-NUMA-BALANCING,KERN-SCHED-KNOBS,KERN-SWAP,KERN-THP
}

undo_now() {
  # -- KERN-CSTATES: undo Disable idle states with exit latency >= 400 µs
  #    observed: 'CPU 0 idle states (acpi_idle): POLL 0µs, C1 1µs, C2 400µs'
  cpupower idle-set -E
  # -- KERN-NUMA-BALANCING: undo Turn off automatic NUMA balancing
  #    observed: 1
  sysctl -w kernel.numa_balancing=1
}

# == restart: restart the serving engine ==
group_restart() {
  # -- RT-CUDA-GRAPHS (P0): Restart the engine without the flag: remove --enforce-eager (vLLM) / --disable-cuda-graph (SGLang) / `cuda_graph_config: null` (TensorRT-LLM) from the launch command or config
  #    observed: 'pid 4101 (vLLM api-server): --enforce-eager'
  #    nothing to run: a person does this
  # note: to save memory, lower the capture sizes instead
  # -- RT-ULIMIT-NOFILE (P1): Raise the API server's open-file limit
  #    observed: 'pid 4101 (vLLM api-server): hard 4096'
  #    changes: RLIMIT_NOFILE of the API server
  prlimit --pid 4101 --nofile=1048576:1048576
  # keep (Docker), in docker run:
  #   --ulimit nofile=1048576:1048576
  # keep (systemd), in the engine's systemd unit:
  #   LimitNOFILE=1048576
  # keep (LXC), in the container's LXC config:
  #   lxc.prlimit.nofile = 1048576
  # keep (limits.d), in /etc/security/limits.d/:
  #   * - nofile 1048576
  # -- RT-FLASHINFER (P1): Install flashinfer-python, flashinfer-cubin and flashinfer-jit-cache at one version; point CUDA_HOME to a CUDA toolkit matching torch's (>= 12.9 for sm_120 JIT), or use the engine's official container
  #    observed: 'flashinfer-python 0.2.8, flashinfer-cubin 0.2.8, flashinfer-jit-cache 0.2.6+cu128'
  #    nothing to run: a person does this
  # -- RT-ENV-VLLM (P2): Unset the variable in the vLLM service/container environment
  #    observed: 'VLLM_USE_FLASHINFER_SAMPLER 0'
  #    nothing to run: a person does this
  # -- RT-OMP (P2): Unset OMP_NUM_THREADS (vLLM sets 1 in its workers) or set it to at most CPUs / workers
  #    observed: 'pid 4101 (vLLM api-server): 64'
  #    nothing to run: a person does this
  # -- RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS (P2): Unset CUDA_DEVICE_MAX_CONNECTIONS in the vLLM service/container environment unless a measurement says otherwise
  #    observed: 1
  #    nothing to run: a person does this
  # after the engine restarts, these checks must pass:
  #   stackaudit audit --select RT-CUDA-GRAPHS,RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS,RT-ENV-VLLM,RT-FLASHINFER,RT-OMP,RT-ULIMIT-NOFILE
}

# == reboot: reboot ==
group_reboot() {
  # -- FW-IOMMU-MODE (P1): Put the IOMMU in passthrough mode on the kernel command line, then reboot
  #    observed: '0000:01:00.0 DMA-FQ, 0000:21:00.0 DMA-FQ, 0000:41:00.0 DMA-FQ, 0000:61:00.0 DMA-FQ, 0000:81:00.0 DMA-FQ, 0000:a1:00.0 DMA-FQ, 0000:c1:00.0 DMA-FQ, 0000:e1:00.0 DMA-FQ'
  #    changes: the kernel command line
  grubby --update-kernel=ALL --args=iommu=pt
  # keep (GRUB), in /etc/default/grub:
  #   GRUB_CMDLINE_LINUX_DEFAULT="... iommu=pt"
  #   then update-grub (Debian/Ubuntu; grubby does it on RHEL)
  # note: at runtime `echo identity > /sys/kernel/iommu_groups/N/type` needs every device of the group unbound (stop all GPU work, unload nvidia); disabling VT-d/AMD-Vi in BIOS works if nothing needs the IOMMU
  # undo (as the fix gives it): bash "$0" undo-reboot
  # after the reboot, these checks must pass:
  #   stackaudit audit --select FW-IOMMU-MODE
}

undo_reboot() {
  # -- FW-IOMMU-MODE: undo Put the IOMMU in passthrough mode on the kernel command line, then reboot
  #    observed: '0000:01:00.0 DMA-FQ, 0000:21:00.0 DMA-FQ, 0000:41:00.0 DMA-FQ, 0000:61:00.0 DMA-FQ, 0000:81:00.0 DMA-FQ, 0000:a1:00.0 DMA-FQ, 0000:c1:00.0 DMA-FQ, 0000:e1:00.0 DMA-FQ'
  grubby --update-kernel=ALL --remove-args=iommu=pt
}

case "${1:-}" in
  now) group_now ;;
  restart) group_restart ;;
  reboot) group_reboot ;;
  undo-now) undo_now ;;
  undo-reboot) undo_reboot ;;
  *) echo "usage: bash $0 GROUP, one at a time, after reading the plan; groups: now, restart, reboot, undo-now, undo-reboot" >&2
     exit 2 ;;
esac
