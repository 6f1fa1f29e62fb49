"""A whole vLLM bug report (collect_env + server log + NCCL INFO lines) through `stackaudit audit --from`.

Every IC result the text supports is given; the rest is unknown. Also the shared captures' IC
verdicts (capture 09: GPU2 without NVLink on an HGX B200).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stackaudit.cli.main import main
from test_collect_env_reports import COLLECT_ENV_OLD

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"

SERVER_LOG = """\
INFO 11-20 09:12:01 api_server.py:585] vLLM API server version 0.6.4.post1
INFO 11-20 09:12:09 llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: model='meta-llama/Llama-3.1-70B-Instruct', tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, seed=0
(VllmWorkerProcess pid=3317) INFO 11-20 09:12:31 pynccl.py:69] vLLM is using nccl==2.21.5
h100-node:3316:3316 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>
h100-node:3316:3316 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
h100-node:3316:3410 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1
h100-node:3316:3410 [0] NCCL INFO NET/IB : No device found.
h100-node:3316:3410 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct
h100-node:3317:3411 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via SHM/direct/direct
h100-node:3318:3412 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via SHM/direct/direct
h100-node:3319:3413 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via SHM/direct/direct
INFO 11-20 09:13:40 model_runner.py:1404] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static.
INFO 11-20 09:13:40 model_runner.py:1408] CUDA graphs can take additional 1~3 GiB memory per GPU.
INFO 11-20 09:14:02 model_runner.py:1523] Graph capturing finished in 22 secs, took 0.85 GiB
"""

BUG_REPORT = f"""\
### Your current environment

<details>
<summary>The output of `python collect_env.py`</summary>

```text
{COLLECT_ENV_OLD}```

</details>

### 🐛 Describe the bug

Decode is much slower than I expect on 4x H100 with TP=4. Server log:

```
{SERVER_LOG}```

### Before submitting a new issue...

- [x] Make sure you already searched for relevant issues.
"""


def _ic(cli_out: str) -> dict[str, dict[str, object]]:
    data = json.loads(cli_out)
    return {r["id"]: r for r in data["results"] if r["id"].startswith("IC-")}


def test_whole_vllm_bug_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "issue.md"
    path.write_text(BUG_REPORT, encoding="utf-8")
    rc = main(["audit", "--from", str(path), "--format", "json"])
    out = capsys.readouterr().out
    assert rc == 0
    ic = _ic(out)
    assert len(ic) == 8
    # What the text supports:
    assert ic["IC-TOPO-READ"]["status"] == "ok" and "NV18" in str(ic["IC-TOPO-READ"]["message"])
    nccl = ic["IC-NCCL-ENV"]
    assert nccl["status"] == "issue" and nccl["severity"] == "high" and nccl["priority"] == "P0"
    assert "NCCL_P2P_DISABLE=1" in str(nccl["message"])
    assert ic["IC-CUSTOM-ALLREDUCE"]["status"] == "ok"  # TP=4 on NVLink, no "disabled" line in the log
    assert ic["IC-P2P-FUNCTIONAL"]["status"] == "not-applicable"  # NVLink between every pair
    assert ic["IC-TOPOLOGY-PLACEMENT"]["status"] == "ok"  # every pair NVLinked: placement does not matter
    # What it does not: RDMA NICs, the workers' CPU affinity.
    assert "via SHM" in str(nccl["message"])
    # NCCL found no IB device and kept every channel on SHM, and the report does not show the module:
    # nvidia_peermem plays no part, and there is no myth to correct (issue 10: not-applicable).
    assert ic["IC-NVIDIA-PEERMEM"]["status"] == "not-applicable"
    assert ic["IC-NIC-GPU-AFFINITY"]["status"] == "not-applicable"  # one host in the NCCL log
    # What it does not tell: the workers' CPU affinity.
    assert ic["IC-NUMA-AFFINITY"]["status"] == "unknown"
    recognised = json.loads(out)["source"]["recognised"]
    assert {r.split(" ")[0] for r in recognised} >= {"collect_env", "lscpu", "server"}


def test_collect_env_without_log_leaves_engine_results_unknown(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "env.txt"
    path.write_text(COLLECT_ENV_OLD.replace("NCCL_P2P_DISABLE=1\n", ""), encoding="utf-8")
    main(["audit", "--from", str(path), "--format", "json"])
    ic = _ic(capsys.readouterr().out)
    assert ic["IC-NCCL-ENV"]["status"] == "unknown"  # collect_env's shell is not the engine
    assert ic["IC-CUSTOM-ALLREDUCE"]["status"] == "unknown"
    assert ic["IC-TOPO-READ"]["status"] == "ok"


def test_capture_09_gpu2_without_nvlink(capsys: pytest.CaptureFixture[str]) -> None:
    main(["audit", "--from", str(CAPTURES / "09-8x-b200-gpu2-nvlink-missing-topo.txt"), "--format", "json"])
    ic = _ic(capsys.readouterr().out)
    r = ic["IC-TOPO-READ"]
    assert r["status"] == "issue" and r["severity"] == "high" and r["subjects"] == ["GPU2"]
