"""RT-ENV-VLLM from a pasted pod spec where no process is read (checks/rt._spec_vllm_env): the VLLM_* variables of
a container whose env list the spec shows whole (DockerContainer.env_whole) are judged; a cut list only by a slow value
it shows.

Real pastes: corpus 330 (vllm#17676: the env list from its `env:` key to `image:`, vLLM's own variables none of the
slow ones), corpus 137 (a k8s PD pod's env cut above its first item: unknown), and a disaggregated-prefill pod's env
list from a public repository's manifest (VLLM_ENABLE_V1_MULTIPROCESSING=0: an issue). The counter-example is
modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# A public repository's pod manifest (a vLLM P/D worker; found by its text), the container's env list whole.
PD_POD_ENV = """```yaml
                env:
                  - name: PYTHONHASHSEED
                    value: "1047"
                  - name: VLLM_SERVER_DEV_MODE
                    value: "1"
                  - name: VLLM_NIXL_SIDE_CHANNEL_HOST
                    value: "0.0.0.0"
                  - name: VLLM_WORKER_MULTIPROC_METHOD
                    value: spawn
                  - name: VLLM_ENABLE_V1_MULTIPROCESSING
                    value: "0"
                  - name: NCCL_SOCKET_IFNAME
                    value: eth0
                image: vllm/vllm-openai:v0.10.1
                resources:
                  limits:
                    nvidia.com/gpu: "1"
```
"""


def test_330_whole_env_list_sets_no_slow_variable() -> None:
    result = capture_checks("330", "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "not-an-issue"
    assert "VLLM_LOGGING_LEVEL=DEBUG" in result.message


def test_137_cut_env_list_is_not_judged() -> None:
    assert capture_checks("137", "RT-ENV-VLLM")["RT-ENV-VLLM"].status == "unknown"


def test_pd_pod_env_with_v1_multiprocessing_off_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, PD_POD_ENV, "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "issue"
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" in result.subjects


def test_modelled_cut_env_list_with_a_slow_variable_is_still_an_issue(tmp_path: Path) -> None:
    # Modelled: the same items pasted without their `env:` key. The list may go on above, so it is not judged whole,
    # but the slow value it shows is set: a later item of a pod's env wins over an earlier one.
    text = PD_POD_ENV.replace("                env:\n", "")
    result = paste_checks(tmp_path, text, "RT-ENV-VLLM")["RT-ENV-VLLM"]
    assert result.status == "issue" and list(result.subjects) == ["VLLM_ENABLE_V1_MULTIPROCESSING"]
