"""container: the user's words that name the engine's image as the container they worked in (`I entered my
ollama/ollama container terminal`) put the pasted engine log in a container; its llama.cpp backend at work on CUDA0
then shows the GPUs reached it (CTR-GPU-ACCESS ok)."""

from __future__ import annotations

from corpus import capture_checks
from stackaudit.facts.container import stated_container


def test_image_named_container_words() -> None:
    assert stated_container("When I entered my ollama/ollama container terminal and ran deepseek-r1:32b")[0] \
        == "container"
    # Modelled: an image with a tag, and the same words undone.
    assert stated_container("inside the vllm/vllm-openai:latest container the model loads")[0] == "container"
    assert stated_container("I run it natively, not in the ollama container")[0] == ""


def test_ollama_container_log_reaching_cuda0() -> None:
    # ollama/ollama#9989 (corpus 1165): the runner offloads 25/25 layers and allocates its buffers on CUDA0.
    r = capture_checks("1165", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok"
    assert "CUDA0" in r.message
