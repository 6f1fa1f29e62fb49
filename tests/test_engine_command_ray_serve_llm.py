"""vLLM's engine arguments read from a Ray Serve LLM model config (issue 28, corpus 1772).

An item of `llm_configs:` (a Serve config file, or a KubeRay RayService's serveConfigV2) hands its `engine_kwargs:` to
vLLM's AsyncEngineArgs, beside the model its `model_loading_config:` names. Real lines are corpus captures or quoted
from the public sources named beside them; counter-examples are modelled and say so.
"""

from __future__ import annotations

import pytest

from corpus import capture_result, fact, pasted
from stackaudit.facts.engine_command import EngineCommand, EngineCommands

# https://github.com/ray-project/ray/issues/52499 (a maintainer's config.yaml, 2025-04-23): engine_kwargs before
# model_loading_config, whose model_source is a bucket.
CONFIG_52499 = """```
# config.yaml
applications:
- args:
    llm_configs:
        - accelerator_type: L40S
          engine_kwargs:
            max_model_len: 8192
            load_format: "runai_streamer"  # enable to use runai streamer for loading
          model_loading_config:
            model_id: my_llama
            model_source:
              bucket_uri: s3://anonymous@air-example-data/rayllm-ossci/meta-Llama-3.2-1B-Instruct
  import_path: ray.serve.llm:build_openai_app
  name: llm_app
  route_prefix: "/"
```
"""
# ray-project/kuberay ray-operator/config/samples/ray-service.deepseek.yaml (kuberay#3838, ray#54850), its serve config.
DEEPSEEK_SAMPLE = """apiVersion: ray.io/v1
kind: RayService
metadata:
  name: deepseek-r1
spec:
  serveConfigV2: |
    applications:
    - args:
        llm_configs:
          - model_loading_config:
              model_id: "deepseek"
              model_source: "deepseek-ai/DeepSeek-R1"
            accelerator_type: "H100"
            runtime_env:
              env_vars:
                VLLM_USE_V1: "1"
            engine_kwargs:
              tensor_parallel_size: 8
              pipeline_parallel_size: 2
              gpu_memory_utilization: 0.92
              dtype: "auto"
              max_num_seqs: 40
              max_model_len: 16384
              enable_chunked_prefill: true
              enable_prefix_caching: true
              trust_remote_code: true
      import_path: ray.serve.llm:build_openai_app
      name: llm_app
      route_prefix: "/"
"""
# Modelled: an `engine_kwargs:` mapping in some other program's config, with no model_loading_config beside it.
OTHER_CONFIG = """models:
  - name: summariser
    engine_kwargs:
      enforce_eager: true
      max_model_len: 2048
"""


def _command(text: str) -> EngineCommand | None:
    value = fact(pasted(text), "engine_commands")
    if not isinstance(value, EngineCommands):
        return None
    (command,) = value.commands
    return command


@pytest.mark.parametrize(("text", "model", "flags"), [
    (CONFIG_52499, "my_llama", ("--max-model-len", "8192", "--load-format", "runai_streamer")),
    (DEEPSEEK_SAMPLE, "deepseek-ai/DeepSeek-R1", ("--tensor-parallel-size", "8", "--pipeline-parallel-size", "2")),
])
def test_engine_kwargs_are_vllm_engine_arguments(text: str, model: str, flags: tuple[str, ...]) -> None:
    command = _command(text)
    assert command is not None
    assert command.engine == "vllm"
    assert command.argv[1:3] == ("--model", model)
    assert " ".join(flags) in " ".join(command.argv)


def test_engine_kwargs_without_a_model_loading_config_not_read() -> None:
    assert _command(OTHER_CONFIG) is None


def test_rayservice_1772_enforce_eager() -> None:
    """Corpus 1772: `enforce_eager: true` in engine_kwargs runs vLLM without CUDA graphs; data parallelism 2 without
    tensor parallelism puts each replica on one GPU."""
    assert capture_result("1772", "RT-CUDA-GRAPHS").status == "issue"
    assert capture_result("1772", "IC-CUSTOM-ALLREDUCE").status == "not-applicable"
    assert capture_result("1772", "IC-TOPOLOGY-PLACEMENT").status == "not-applicable"
