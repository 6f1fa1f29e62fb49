"""The container checks' unknown paths where the source shows where the ranks run:

- CTR-SHM-SIZE not applicable where the program runs on the machine itself, outside any container
  (facts/container.ContainerInfo.on_host), no container spec and no /dev/shm size shown: TGI's issue form ticking
  `The CLI directly` beside an empty `Docker` box (facts/container.form_cli_directly), a Python env of the user's own.
- CTR-IPC-ISOLATION ok where Ray's own log says the program started a local instance (facts/ray_log.LOCAL_INSTANCE)
  for an engine of two ranks or more: the raylet spawns every worker on this machine, beside the driver.
- CTR-IPC-ISOLATION ok where every rank of an NCCL job logs from one container id and the log settles the job on that
  host, before any channel line (facts/serving_logs.ServingLog.container_whole).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.container import form_cli_directly

# Real: https://github.com/huggingface/text-generation-inference/issues/899 (the issue body, as posted).
TGI_899 = """\
### System Info

text-generation-launcher 1.0.0  how to use  multi gpu cards?

### Information

- [ ] Docker
- [X] The CLI directly

### Tasks

- [X] An officially supported command
- [ ] My own modifications

### Reproduction

CUDA_VISIBLE_DEVICES=0,1,2,3 text-generation-launcher --model-id falcon-40b-instruct --sharded true --num-shard 1 --quantize bitsandbytes-fp4  does not used multi gpu A10 card. Error with GPU 0 OutOfMemoryError: CUDA out of memory.
"""

# Real: https://github.com/huggingface/text-generation-inference/issues/1456 (the issue body's form): Docker ticked.
TGI_1456_FORM = """\
### Information

- [X] Docker
- [ ] The CLI directly
"""


def test_the_tgi_form_ticking_the_cli_runs_on_the_host(tmp_path: Path) -> None:
    checks = paste_checks(tmp_path, TGI_899, "CTR-SHM-SIZE", "CTR-GPU-ACCESS")
    assert checks["CTR-SHM-SIZE"].status == "not-applicable", checks["CTR-SHM-SIZE"].message
    assert "The CLI directly" in checks["CTR-SHM-SIZE"].message
    assert checks["CTR-GPU-ACCESS"].status == "not-applicable", checks["CTR-GPU-ACCESS"].message


def test_the_tgi_form_ticking_docker_is_no_host_statement() -> None:
    lines = TGI_1456_FORM.splitlines()
    assert not any(form_cli_directly(lines, i) for i in range(len(lines)))
    # Both boxes ticked (modelled): the form says both, so neither is read.
    both = ["- [X] Docker", "- [X] The CLI directly"]
    assert not form_cli_directly(both, 1)
    assert form_cli_directly(TGI_899.splitlines(), TGI_899.splitlines().index("- [X] The CLI directly"))


def test_the_tgi_nsys_thread() -> None:
    # Real: https://github.com/huggingface/text-generation-inference/issues/1014, corpus 1644.
    checks = capture_checks("1644", "CTR-SHM-SIZE", "CTR-GPU-ACCESS")
    assert checks["CTR-SHM-SIZE"].status == "not-applicable", checks["CTR-SHM-SIZE"].message
    assert checks["CTR-GPU-ACCESS"].status == "not-applicable", checks["CTR-GPU-ACCESS"].message


def test_a_python_env_of_the_users_own_is_the_host() -> None:
    # Real: corpus 1276, sglang launched from /home/my/.opt/anaconda3/envs/sglang-source/bin/python.
    result = capture_checks("1276", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "not-applicable", result.message


def test_a_shm_failure_still_proves_the_issue_on_the_host() -> None:
    # Real: corpus 1610 (NCCL cannot create its /dev/shm segment): the symptom stands whatever the container says.
    result = capture_checks("1610", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "issue", result.message


def test_a_local_ray_instance_keeps_every_rank_on_one_machine() -> None:
    # Real: corpus 1693 (vLLM TP 8 from `python test.py`, Ray: `Started a local Ray instance.`), 897 and 364.
    for name in ("1693", "897", "364"):
        result = capture_checks(name, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
        assert result.status == "ok", (name, result.message)
        assert "Started a local Ray instance." in result.message


# Modelled (marked so): vLLM TP 2 joining a Ray cluster that was already running: its workers may sit on other nodes.
MODELLED_EXISTING_CLUSTER = """\
2024-04-07 00:57:30,511 INFO worker.py:1431 -- Connecting to existing Ray cluster at address: 10.0.0.5:6379...
INFO 04-07 00:57:31 llm_engine.py:87] Initializing an LLM engine with config: model='facebook/opt-125m', tokenizer='facebook/opt-125m', tensor_parallel_size=2, seed=0)
"""


def test_joining_an_existing_ray_cluster_is_not_a_local_instance(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MODELLED_EXISTING_CLUSTER, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert result.status != "ok", result.message


def test_a_containers_whole_nccl_job_before_any_channel() -> None:
    # Real: corpus 1702 (horovod/horovod, three ranks under Open MPI in container edc6f559242d, cut after init).
    result = capture_checks("1702", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert result.status == "ok", result.message
    assert "edc6f559242d" in result.message


def test_host_ipc_containers_with_a_logged_communicator_of_two() -> None:
    # Real: corpus 1616 (Xinference's master and worker run with --ipc=host; node53's NCCL lines show `rank 1 nranks 2`
    # of its vLLM pipeline): every rank on the host sees the host's one /dev/shm.
    result = capture_checks("1616", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert result.status == "ok", result.message
    # Real: corpus 790 (a private IPC namespace): stays not applicable.
    assert capture_checks("790", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"].status == "not-applicable"


def test_tgi_told_to_shard_keeps_its_shards_in_its_container() -> None:
    # Real: corpus 1662 (huggingface/text-generation-inference, `-e SHARDED=true --gpus all`, the command cut).
    result = capture_checks("1662", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert result.status == "ok", result.message
    assert "TGI sharded" in result.message
