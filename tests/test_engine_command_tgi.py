"""Issue 28 (recognition, blind YW 1515): Hugging Face TGI's launcher is an engine command.

`text-generation-launcher --model-id M --num-shard N` on a shell, and the same arguments after TGI's image in a
docker run (the image's entrypoint is the launcher), are read as TGI's engine: `--num-shard` is its TP size
(`--sharded false` one shard; neither: the devices its environment lists, not shown), and RT-CUDA-GRAPHS reads
`--cuda-graphs` (`0`: none captured). A TGI command that does not turn graphs off leaves them open: TGI skips a
capture that fails at warmup and serves without graphs, which only its log shows. `text-generation-launcher --env`
(the environment TGI's issue form asks for) is no engine command.

Real lines are quoted from the threads named beside each (verbatim); the `--sharded false` and `--cuda-graphs 1,2`
lines are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import sizes_from_argv
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.parallelism import ServingEngine
from stackaudit.importers.recognition import recognise

# https://github.com/huggingface/text-generation-inference/issues/814 (comment by luefei, 2023-08-24: four A10).
TGI_814 = ("the same issue, but i used cmd with A10 4 cards\n"
           "`text-generation-launcher --model-id Model/falcon-40b-instruct --sharded true --num-shard 4 "
           "--disable-custom-kernels --quantize bitsandbytes-nf4 --master-port 30000 --port 30001`\n")
# https://github.com/huggingface/text-generation-inference/issues/2053 (issue body by fxmarty, 2024-06-11).
TGI_2053 = ("Comparing `text-generation-launcher --model-id openai-community/gpt2 --num-shard 1 --cuda-graphs 0 "
            "--port 8885` on H100 vs MI300X, it is clear the generation on MI300X is not correct\n")
# https://github.com/huggingface/text-generation-inference/issues/3140 (issue body by mgujral, 2025-03-26).
TGI_3140 = ("text-generation-launcher --max-input-tokens 1024 --max-total-tokens 2048 --model-id "
            "meta-llama/Llama-3.1-8B-Instruct --hostname 10.10.19.123\n")
# https://github.com/huggingface/text-generation-inference/issues/1458 (issue body by swapnil3597, 2024-01-19).
TGI_1458 = ("docker run --gpus all -e HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN -p 8080:80 -v /data "
            "ghcr.io/huggingface/text-generation-inference:latest --model-id TheBloke/Mixtral-8x7B-v0.1-GPTQ "
            "--quantize gptq --num-shard 4\n")


def _engine_lines(text: str) -> list[tuple[int, int]]:
    return [(start, end) for kind, start, end in recognise(text).recognised if kind == "engine command"]


def test_corpus_1515_launcher_is_tgi_with_four_shards() -> None:
    line = body("1515").splitlines()[0]
    command = parse_command_line(line)
    assert command is not None and command.engine == "tgi" and sizes_from_argv(command.argv)[0] == 4
    assert _engine_lines(body("1515")) == [(1, 1)]


def test_corpus_1515_graphs_asked_but_not_shown_captured() -> None:
    result = capture_checks("1515", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "unknown" and "--enable-cuda-graphs" in result.message
    assert "Decode cuda graph warmup failed" in result.message


def test_launcher_in_inline_code_is_read(tmp_path: Path) -> None:
    assert _engine_lines(TGI_814) == [(2, 2)]
    result = paste_checks(tmp_path, TGI_814, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "unknown" and "TGI" in result.message


def test_cuda_graphs_zero_is_graphs_off_and_one_shard_one_gpu(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, TGI_2053, "RT-CUDA-GRAPHS", "IC-TOPOLOGY-PLACEMENT")
    assert results["RT-CUDA-GRAPHS"].status == "issue" and "--cuda-graphs 0" in results["RT-CUDA-GRAPHS"].message
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"
    assert "text-generation-launcher runs TP 1" in results["IC-TOPOLOGY-PLACEMENT"].message


def test_capture_sizes_capped_low_are_low_severity(tmp_path: Path) -> None:
    # Modelled: TGI #1703's own example of restricting the sizes (`--cuda-graphs "1,2"`).
    result = paste_checks(tmp_path, "text-generation-launcher --model-id m --num-shard 2 --cuda-graphs 1,2\n",
                          "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "issue" and result.severity == "low" and "--cuda-graphs 2" in result.message


def test_no_num_shard_leaves_the_tp_unread() -> None:
    command = parse_command_line(TGI_3140)
    assert command is not None and command.engine == "tgi"
    # Without --num-shard TGI shards over the devices its environment lists, which the line does not show.
    assert ServingEngine("", None, command=command.as_process()).shown_tp is None
    one = parse_command_line("text-generation-launcher --model-id m --sharded false")  # modelled
    assert one is not None and ServingEngine("", None, command=one.as_process()).shown_tp == 1
    env = parse_command_line("NUM_SHARD=2 text-generation-launcher --model-id m")  # modelled: the launcher's env
    assert env is not None and ServingEngine("", None, command=env.as_process()).shown_tp == 2


def test_env_query_is_no_engine_command() -> None:
    # corpus 246: TGI's issue form asks for `text-generation-launcher --env`.
    assert parse_command_line("text-generation-launcher --env") is None
    assert _engine_lines(body("246")) == []


def test_docker_run_of_tgi_image_is_tgi(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, TGI_1458, "RT-CUDA-GRAPHS", "CTR-SHM-SIZE")
    assert results["RT-CUDA-GRAPHS"].status == "unknown" and "TGI arguments" in results["RT-CUDA-GRAPHS"].message
    # No --shm-size: Docker's 64 MiB under four shards, which TGI's docs ask 1g for (NCCL between shards).
    assert results["CTR-SHM-SIZE"].status == "issue"


def test_mirrored_image_and_graphs_off_in_a_container(tmp_path: Path) -> None:
    # corpus 300: TGI's image under another registry's path is TGI's launcher too.
    result = capture_checks("300", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "unknown" and "TGI arguments" in result.message
    # Modelled: #1458's run with `--cuda-graphs 0` after the image.
    off = TGI_1458.replace("--num-shard 4", "--num-shard 4 --cuda-graphs 0")
    result = paste_checks(tmp_path, off, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "issue" and "--cuda-graphs 0" in result.message


def test_every_gpu_container_sharded_over_all_of_them() -> None:
    # corpus 248: `--gpus all ... text-generation-inference:0.8.2 ... --sharded=true --num-shard=8` on `8xA100 80GB`.
    result = capture_checks("248", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "not-an-issue" and "runs TP 8 on every GPU it is given" in result.message
