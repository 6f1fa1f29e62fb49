#!/usr/bin/env bash
# Read-only capture on a real NVIDIA GPU host (issue 3, "On a real GPU"): run from the repository
# root with OUT set to an empty folder. It changes no GPU setting: no nvidia-smi -pm/-pl/-ac/-r,
# no setpci writes. Everything it runs is a read.
#
#   OUT="$(mktemp -d)" bash scripts/device_capture.sh
set -u
OUT=${OUT:?set OUT to an empty folder}
mkdir -p "$OUT"
log() { printf '%s\n' "$*" | tee -a "$OUT/steps.log"; }
run() { # run NAME TIMEOUT CMD...: stdout to $OUT/NAME, stderr and rc to steps.log
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name" 2>>"$OUT/steps.log"
  log "$name: rc=$? in $((SECONDS - start)) s: $*"
}
python3 -m venv "$OUT/.venv" >/dev/null 2>&1 && "$OUT/.venv/bin/pip" install -q -e . >>"$OUT/steps.log" 2>&1
SA="$OUT/.venv/bin/stackaudit"
[ -x "$SA" ] || SA="python3 -m stackaudit"
run nvidia-smi-q-x.xml 120 nvidia-smi -q -x
run nvidia-smi-q.txt 120 nvidia-smi -q
run nvidia-smi.txt 60 nvidia-smi
run topo-m.txt 60 nvidia-smi topo -m
run topo-p2p-rw.txt 60 nvidia-smi topo -p2p rw
run nvlink-s.txt 60 nvidia-smi nvlink -s
run lspci-vvv.txt 60 lspci -D -nn -vvv
run uname.txt 10 uname -a
run audit-time.txt 120 bash -c "time $SA audit --format json --output $OUT/audit.json"
run audit.txt 120 $SA audit
run audit-sample.json 180 $SA audit --sample 10 --format json
run capture.log 180 $SA capture -o "$OUT/capture.tar.gz"
run replay.json 120 $SA audit --from "$OUT/capture.tar.gz" --format json
rm -rf "$OUT/.venv"
log "done"
