"""CTR-GPU-ACCESS where a spec's GPU request is shown beside the user's words that the workload runs on the CPU
(issue 28, h81a).

The user's words (facts/trouble.ON_CPU: `using CPU instead of GPU`, `GPU remains at 0%`) put the request itself in
question: where nothing from the container's side is shown (no engine log, nothing typed inside it), the request is no
proof the GPU reached the container: unknown (corpus 1809). An engine log or a command run inside the container
decides as before. Real pastes are cited by their public threads; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks, pasted
from stackaudit.facts.sources import USER_TROUBLE
from stackaudit.facts.trouble import ON_CPU

ACCESS = "CTR-GPU-ACCESS"

# ollama/ollama#9819: the whole `docker run` as its issue body gives it.
DOCKER_RUN = ("docker run -d \\\n    --gpus all \\\n    -v ollama:/root/.ollama \\\n    -p 11434:11434 \\\n"
              "    --name ollama \\\n    -e OLLAMA_FLASH_ATTENTION=1 \\\n    ollama/ollama\n")


def test_the_users_words_of_the_cpu() -> None:
    # Real sentences: LocalAI#1108 (corpus 1809), ollama/ollama#3024, #10061.
    for said in ("LocalAI using CPU instead of GPU. CUDA remains 0% When calling chat completeion.",
                 "For a llama2 model, my CPU utilization is at 100% while GPU remains at 0%.",
                 "Ollama reserve a GPU place but then using the CPU instead of the GPU."):
        assert ON_CPU.search(said), said
    # Real sentences that do not say it: corpus 1163 (`not utilizing the GPU enough?`, a rate question) and 1006
    # (`use GPU 1 instead of GPU 0`, which GPU).
    for said in ("Is this misconfiguration or vLLM is not utilizing the GPU enough?",
                 "But it decides to use GPU 1 instead of GPU 0"):
        assert not ON_CPU.search(said), said


def test_compose_request_with_cpu_words_is_unknown() -> None:
    # Corpus 1809 (mudler/LocalAI#1108): a compose reservation of one GPU, and the user's `using CPU instead of GPU`.
    result = capture_checks("1809", ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "using CPU instead of GPU" in result.message and "api (1)" in result.message


def test_docker_run_request_with_cpu_words_is_unknown(tmp_path: Path) -> None:
    # Modelled: ollama/ollama#9819's `docker run --gpus all` with #3024's words, and no log.
    text = "For a llama2 model, my CPU utilization is at 100% while GPU remains at 0%.\n\n" + DOCKER_RUN
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "unknown", result.message
    assert "runs on the CPU" in result.message
    # The same run without the words: the request alone shows no GPU inside either (issue 28 h121c), without the words.
    result = paste_checks(tmp_path, DOCKER_RUN, ACCESS)[ACCESS]
    assert result.status == "unknown" and "runs on the CPU" not in result.message


def test_engine_log_decides_over_the_words(tmp_path: Path) -> None:
    # Modelled on ollama/ollama#3024: the words beside the server's own log, which shows the container's side.
    text = ("For a llama2 model, my CPU utilization is at 100% while GPU remains at 0%.\n\n" + DOCKER_RUN + "\n"
            'time=2024-03-09T10:00:00.000Z level=INFO source=routes.go:1019 msg="Listening on [::]:11434 '
            '(version 0.1.28)"\n')
    assert USER_TROUBLE.name in pasted(text).record.docs  # the words are read
    result = paste_checks(tmp_path, text, ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_words_that_name_the_engine_stay_the_engines() -> None:
    # ollama/ollama#10061's sentence names ollama: the engine's reader (importers/prose_engine.py) takes it, as before.
    host = pasted("Ollama reserve a GPU place but then using the CPU instead of the GPU.\n\n" + DOCKER_RUN)
    assert USER_TROUBLE.name not in host.record.docs


def test_words_alone_are_not_read() -> None:
    # Modelled: the words with no engine, workload or GPU request beside them are not recorded.
    host = pasted("My app is using CPU instead of GPU.\n\nnvidia-smi -L\nGPU 0: NVIDIA GeForce GTX 1070 (UUID: GPU-1)\n")
    assert USER_TROUBLE.name not in host.record.docs


def test_gpu_listing_shown_keeps_the_request() -> None:
    # Corpus 567 (ollama/ollama, an RTX 3050 under WSL 2): `it's clearly not using the GPU` beside nvidia-smi, which the
    # user ran inside the container: the words do not turn the request unknown where a GPU listing is shown.
    result = capture_checks("567", ACCESS)[ACCESS]
    assert result.status == "ok", result.message


def test_a_model_never_loaded_into_vram_leaves_the_request_unknown() -> None:
    # Corpus 2157 (mudler/LocalAI#1109): a compose reservation of one GPU, the user's words that the model was not
    # even loaded into VRAM, and the GPU named only in the issue form's `GPU:` row (no listing).
    result = capture_checks("2157", ACCESS)[ACCESS]
    assert result.status == "unknown" and "VRAM" in result.message, result.message
    # A real sentence (LocalAI#1109), then two modelled wordings of the same claim.
    for said in ("ends with errors and the model not even being loaded into VRAM.",
                 "the model is not loaded into the GPU, it only uses RAM",
                 "the model was never offloaded to the GPU"):
        assert ON_CPU.search(said), said
    # Modelled counter-examples: a model loaded into VRAM, and one not loaded for lack of VRAM.
    for said in ("The model is loaded into VRAM and then it hangs.", "Not enough VRAM to load the model."):
        assert not ON_CPU.search(said), said
