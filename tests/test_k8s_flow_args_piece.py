"""A container's `command:` / `args:` flow lists pasted out of their container (issue 28, corpus 1817): read as a
piece of a pod spec (importers/container_specs._flow_args_fragment), their items over several lines, a YAML comment
after an item, a quoted item folded over lines, the paste cut inside the last. Real lines are corpus captures or
quoted from the public threads named beside them, as the stored copies hold them; counter-examples are modelled and
say so."""

from __future__ import annotations

import pytest
import yaml

from corpus import body
from stackaudit.facts.container_specs import K8S_PIECE_MARK
from stackaudit.facts.sources import K8S_SPEC
from stackaudit.importers.recognition import recognise

# https://github.com/triton-inference-server/server/issues/3479 (the issue body by audrey-siqueira, 2021-10-18): the
# shell's command, a blank line, then one quoted item over lines, the stored excerpt cut inside it.
ARGS_3479 = ("I am trying to create the deployment.yaml file as follows:\n\n"
             '          command: ["/bin/sh", "-c"]\n\n'
             '          args: ["tritonserver \n'
             "          --model-repository=/models \n"
             "          --log-verbose=1 \n"
             "          --strict-model-config=false\n"
             "          --")
# https://github.com/triton-inference-server/server/issues/1835 (comment by svetlana41, 2021-02-08): the args alone,
# a Helm template inside, at the end of inline code.
ARGS_1835 = """And this in deployment.yaml:

          args: ["trtserver", "--model-store={{ .Values.image.modelRepositoryPath }}"]`
"""


def _containers(text: str) -> list[dict[str, object]]:
    doc = recognise(text).record.docs.get(K8S_SPEC.name, "")
    pods = [d for d in yaml.safe_load_all(doc.replace(K8S_PIECE_MARK, "")) if d] if doc else []
    return [c for p in pods for c in p["spec"]["containers"]]


def test_corpus_1817_command_and_commented_args_cut_at_the_end() -> None:
    (ctr,) = _containers(body("1817"))
    assert ctr["command"] == ["tritonserver"]
    assert ctr["args"] == ["--http-port=8501", "--model-repository=gs://xxxx", "--model-control-mode=none",
                           "--strict-readiness=true", "--exit-on-error=true"]  # `"--log-warning=true` is cut


@pytest.mark.parametrize(("text", "command", "args"), [
    (ARGS_3479, ["/bin/sh", "-c"], []),
    (ARGS_1835, None, ["trtserver", "--model-store={{ .Values.image.modelRepositoryPath }}"]),
])
def test_real_flow_lists_are_a_pod_piece(text: str, command: list[str] | None, args: list[str]) -> None:
    (ctr,) = _containers(text)
    assert ctr.get("command") == command
    assert ctr["args"] == args


def test_a_folded_quoted_item_is_one_argument() -> None:
    """Modelled on 3479, its item closed: the lines of one quoted item are one argument, as YAML folds them."""
    (ctr,) = _containers(ARGS_3479 + ' --backend-config=tensorflow,version=2"]\n')
    assert ctr["args"] == ["tritonserver --model-repository=/models --log-verbose=1 --strict-model-config=false "
                           "-- --backend-config=tensorflow,version=2"]


def test_a_command_list_alone_or_an_open_list_with_more_lines_is_no_pod() -> None:
    """Modelled: `command:` alone is a compose service's as much as a pod's; a list left open with prose after it is
    no list the paste cuts."""
    assert _containers('My service:\n    command: ["vllm", "serve", "m"]\n') == []
    assert _containers('    args: ["--port=8000",\n      "--tp=2"\nThen it fails.\n') == []


def test_corpus_1817_triton_count_without_glog_prefix_is_read() -> None:
    """Corpus 1817: GKE's log viewer shows Triton's messages in quotes without glog's prefix; the NVML count is
    Triton's metrics line, so the VM shows one GPU (FW-VM not-an-issue, as both readers say)."""
    from corpus import capture_result, fact, pasted
    from stackaudit.facts.gpus import TRITON_METRICS_TITLE

    assert dict(fact(pasted(body("1817")), "gpus").counts) == {TRITON_METRICS_TITLE: 1}
    assert capture_result("1817", "FW-VM").status == "not-an-issue"


def test_the_count_in_a_sentence_is_no_triton_line() -> None:
    """Modelled: the user's sentence quoting the message is no log line of Triton's."""
    from stackaudit.facts.serving_logs import console_engine

    assert console_engine('"found 1 GPUs supporting NVML metrics') == "triton"
    assert console_engine("it says found 1 GPUs supporting NVML metrics but then fails") == ""
