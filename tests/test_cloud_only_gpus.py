"""Issue 28, name-implied facts: a GPU model that only one cloud's VMs carry, and whose VMs give it no P2P, names the
VM's GPU paths (facts/platform.py CLOUD_ONLY_GPUS: the A10G of EC2 G5). A VM with two or more of them runs a
tensor-parallel all-reduce through host memory (FW-VM issue); with one there is no pair to lose (not-an-issue).

The GPU count may come from the user's words where a cut table shows one GPU: a count before a model number in the
plural ("I have 4 A10Gs") is a statement (facts/gpus.py stated_gpus)."""

from __future__ import annotations

from corpus import load_corpus
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.facts.gpus import stated_gpus
from stackaudit.facts.platform import CLOUD_ONLY_GPUS, cloud_only_gpu
from stackaudit.importers.pasted import load_pasted

CHECK = "FW-VM"


def corpus_result(prefix: str, check_id: str) -> Result:
    entry = next(e for e in load_corpus() if e.path.name.startswith(prefix))
    return run_checks(load_pasted([str(entry.path)]), [check_id])[check_id]


def test_vllm_9373_four_a10gs_in_words_beside_a_cut_table_is_an_issue() -> None:
    # Real: https://github.com/vllm-project/vllm/issues/9373 (corpus 408): "I have 4 A10Gs" over a `watch nvidia-smi`
    # cut after GPU 0 (bus 00:1B.0, a hypervisor's root bus).
    r = corpus_result("408-", CHECK)
    assert r.status == "issue" and "4 A10G GPUs" in r.message and "host memory" in r.message
    assert any("TensorRT-LLM/issues/1034" in e for e in r.evidence)


def test_trtllm_1487_two_a10gs_in_a_vm_is_an_issue() -> None:
    # Real: https://github.com/NVIDIA/TensorRT-LLM/issues/1487 (corpus 277): two A10Gs on bus 00, the thread's
    # "Device 0 peer access Device 1 is not available".
    r = corpus_result("277-", CHECK)
    assert r.status == "issue" and "A10G" in r.message


def test_tgi_four_a10gs_table_is_an_issue() -> None:
    # Real: corpus 153 (TGI, 4x A10G nvidia-smi cut after two GPUs on bus 00).
    assert corpus_result("153-", CHECK).status == "issue"


def test_one_a10g_vm_loses_nothing() -> None:
    # Real counter-examples: corpus 352 (collect_env, one A10G, `-aws` kernel) and 382 (g5.8xlarge, one A10G).
    for prefix in ("352-", "382-"):
        r = corpus_result(prefix, CHECK)
        assert r.status == "not-an-issue" and "1 GPU" in r.message, prefix


def test_the_table_names_only_whole_sets_of_one_model() -> None:
    assert [row.model for row in CLOUD_ONLY_GPUS] == ["A10G"]
    assert cloud_only_gpu(["NVIDIA A10G", "NVIDIA A10G"]) is not None
    # Modelled: the A10 (sold to anyone, bare metal too) and a mixed set name no cloud.
    assert cloud_only_gpu(["NVIDIA A10", "NVIDIA A10"]) is None
    assert cloud_only_gpu(["NVIDIA A10G", "NVIDIA L4"]) is None
    assert cloud_only_gpu([]) is None


def test_plural_model_numbers_are_counts() -> None:
    assert stated_gpus("I have 4 A10Gs, each with 24GiB of GDDR6 Memory:") == [(4, "A10G")]  # vllm#9373
    # Real: https://github.com/spectrocloud/CanvOS/pull/700 (corpus 237), a health table's row.
    assert stated_gpus("| Node capacity | ✅ `nvidia.com/gpu: 8` (all 8 B200s discoverable) |") == [(8, "B200")]
    assert stated_gpus("2 RTX 3090s on x8 slots") == [(2, "RTX 3090")]  # modelled
    # Modelled counter-examples: a plural without a model number states no GPU set.
    assert stated_gpus("I have 4 GPUs") == [] and stated_gpus("16 cores and 2 weeks of logs") == []
