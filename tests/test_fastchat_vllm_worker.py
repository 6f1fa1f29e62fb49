"""FastChat's vLLM worker logging vLLM's engine arguments (issue 28, blind run WW: corpus 935).

`2023-08-01 00:41:32 | INFO | __main__ | engine_args.tensor_parallel_size: 4` is vLLM's server log
(facts/serving_logs.KEY_PHRASES): the engine is vLLM and its TP size is read.

Real lines are corpus captures; counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.serving_logs import ServingLog, is_log_line


def test_engine_args_lines_are_vllm_935() -> None:
    log = fact(pasted(body("935")), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "vllm" and log.tp_size == 4
    results = capture_checks("935", "IC-TOPOLOGY-PLACEMENT", "DRV-CUDA-COMPAT")
    assert {r.status for r in results.values()} == {"unknown"}


def test_an_attribute_in_prose_is_no_log_line() -> None:
    """Modelled counter-example: a sentence naming the attribute without its value after `: `."""
    assert not is_log_line("I changed engine_args.tensor_parallel_size in the worker and it still hangs")
