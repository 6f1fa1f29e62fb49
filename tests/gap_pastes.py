"""Pastes for issue 29 (where the throughput goes). Modelled, and marked so: the nvidia-smi tables follow the
driver-570 default table layout of the real captures in tests/data/captures (15-…, 92-…); the engine command
lines and log lines follow the engines' own format strings (vLLM v1 `LoggingStatLogger.log`, SGLang
`log_decode_stats`), with the figures of the issue's essay (8× RTX PRO 6000 Blackwell Server Edition, GLM-5-NVFP4
under SGLang TP8, 10.36 tok/s single stream) and of its Llama proof (1× H100, 142.7 tok/s)."""

from __future__ import annotations

import json
from pathlib import Path

from ceiling_published import CONFIGS

_HEAD = """Tue Jan 13 10:02:11 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""


def nvidia_smi_table(name: str, bus_ids: list[str], watts: int, mib: int) -> str:
    """A default `nvidia-smi` table of identical GPUs (name as nvidia-smi pads it to 22 characters)."""
    rows = []
    for i, bus in enumerate(bus_ids):
        rows.append(f"| {i:>3}  {name[:22]:<22}         On  |   {bus} Off |                    0 |\n"
                    f"| N/A   38C    P0            {watts // 5:>3}W / {watts:>4}W |   {mib - 2000:>5}MiB / {mib:>5}MiB |"
                    "      0%      Default |\n"
                    "|                                         |                        |             Disabled |\n"
                    "+-----------------------------------------+------------------------+----------------------+\n")
    return _HEAD + "".join(rows)


PRO_6000_BUSES = [f"00000000:{b}:00.0" for b in ("01", "21", "41", "61", "81", "A1", "C1", "E1")]
H100_BUS = ["00000000:18:00.0"]

# Two sockets of AMD Turin, NPS1 (the layout of tests/data/captures/26-…, a dual EPYC 9135's `numactl --hardware`).
NUMACTL = ("\n$ numactl --hardware\navailable: 2 nodes (0-1)\nnode 0 cpus: 0-63 128-191\nnode 0 size: 773561 MB\n"
           "node 0 free: 514825 MB\nnode 1 cpus: 64-127 192-255\nnode 1 size: 774092 MB\nnode 1 free: 516529 MB\n"
           "node distances:\nnode   0   1\n  0:  10  32\n  1:  32  10\n")
ESSAY_COMMAND = ("$ python3 -m sglang.launch_server --model-path lukealonso/GLM-5-NVFP4 --tp 8 "
                 "--host 0.0.0.0 --port 30000 --trust-remote-code --mem-fraction-static 0.9\n")
# SGLang's decode line at one running request (`log_decode_stats`, v0.5.x): 10.36 tok/s.
ESSAY_LOG = ("[2026-01-13 10:04:40 TP0] Decode batch. #running-req: 1, #token: 2312, token usage: 0.01, "
             "cuda graph: True, gen throughput (token/s): 10.36, #queue-req: 0, \n")


def nvidia_smi_q(name: str, bus_ids: list[str], watts: int, lost: int = 0) -> str:
    """An excerpt of `nvidia-smi -q`: banner, version keys and, per GPU, its name and power limit (the table
    cuts a name this long to 'NVIDIA RTX PRO 6000 Blac...'). `lost`: GPUs the driver no longer shows."""
    shown = bus_ids[: len(bus_ids) - lost]
    out = ["", "==============NVSMI LOG==============", "", "Timestamp                                 : "
           "Tue Jan 13 10:02:11 2026", "Driver Version                            : 570.133.20",
           "CUDA Version                              : 12.8", "", f"Attached GPUs                             : "
           f"{len(shown)}"]
    for bus in shown:
        out += [f"GPU {bus}", f"    Product Name                          : {name}",
                "    Persistence Mode                      : Enabled",
                "    GPU Power Readings",
                f"        Current Power Limit               : {watts}.00 W",
                f"        Default Power Limit               : {watts}.00 W", ""]
    return "\n".join(out) + "\n"


def topo_matrix(per_socket: int = 4, sockets: int = 2) -> str:
    """`nvidia-smi topo -m` of a switchless box: each GPU on its own root port (NODE within a socket, SYS
    across), the driver-570 layout of the real matrices in tests/data/captures (09-…, 11-…)."""
    count = per_socket * sockets
    names = [f"GPU{i}" for i in range(count)]
    lines = ["\t" + "\t".join(names) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for i in range(count):
        cells = [" X " if i == j else ("NODE" if i // per_socket == j // per_socket else "SYS") for j in range(count)]
        node = i // per_socket
        lines.append(f"GPU{i}\t" + "\t".join(cells) + f"\t{node * 64}-{node * 64 + 63}\t{node}\t\tN/A")
    return "\n$ nvidia-smi topo -m\n" + "\n".join(lines) + "\n"


def essay_paste(tmp: Path, numa_balancing: int = 1, with_log: bool = False, lost: int = 0,
                topology: bool = False) -> Path:
    """The essay's machine: 8× RTX PRO 6000 Server, SGLang TP8 serving GLM-5-NVFP4, numa_balancing on; `lost`
    GPUs gone from the driver (Xid 79 in the kernel log); `topology`: with its `nvidia-smi topo -m` (two
    sockets of four GPUs on root ports, no switch)."""
    xid = "".join(f"[ 8812.{i:06d}] NVRM: Xid (PCI:0000:{PRO_6000_BUSES[-1 - i][9:11].lower()}:00): 79, pid='<unknown>', "
                  "name=<unknown>, GPU has fallen off the bus.\n" for i in range(lost))
    text = (nvidia_smi_q("NVIDIA RTX PRO 6000 Blackwell Server Edition", PRO_6000_BUSES, 600, lost)
            + ("\n$ dmesg\n" + xid if lost else "") + "\n" + ESSAY_COMMAND + NUMACTL + "\n$ sysctl kernel.numa_balancing\n"
            f"kernel.numa_balancing = {numa_balancing}\n" + ("\n" + ESSAY_LOG if with_log else "")
            + (topo_matrix() if topology else ""))
    path = tmp / "essay.txt"
    path.write_text(text, encoding="utf-8")
    return path


def glm5_config(tmp: Path) -> Path:
    """GLM-5's published config.json values (the ceiling's validation set), as a file."""
    path = tmp / "GLM-5" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(CONFIGS["GLM-5"]), encoding="utf-8")
    return path


LLAMA_COMMAND = "$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
# vLLM v1's stats line (`LoggingStatLogger.log`), one request running, none waiting.
LLAMA_LOG = ("INFO 01-13 10:02:31 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
             "Avg generation throughput: 142.7 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%, "
             "Prefix cache hit rate: 0.0%\n")


def llama_paste(tmp: Path, log: str = LLAMA_LOG, command: str = LLAMA_COMMAND) -> Path:
    """1× H100 SXM, `vllm serve meta-llama/Llama-3.1-8B-Instruct`, and the engine's own throughput line."""
    text = nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559) + "\n" + command + "\n" + log
    path = tmp / "llama.txt"
    path.write_text(text, encoding="utf-8")
    return path
