"""Issue 28 (h75b): TensorRT-LLM's commands under a launcher of several ranks, and its custom all-reduce's own failures.

- A command wrapped in `mpirun -n N` / `-np N` (mpiexec, orterun, prterun, Slurm's `srun -n N`) is read as the engine
  command inside it (facts/engine_command._launched), with the launcher's words and its rank count beside it.
- The Red Hat family's bash prompt (`[root@host dir]# `) and its tail alone (` ]# `) are prompts (importers/_scan).
- TensorRT-LLM's own lines for peer access its custom all-reduce was refused (`[TensorRT-LLM][ERROR] CUDA runtime
  error in error: peer access is not supported ...`, `... in cudaIpcOpenMemHandle(...)`, the Python runtime's
  `Can't enable access between nodes 0 and 1`) prove RT-TRTLLM-ALLREDUCE (facts/symptoms.py).

Real pastes are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted, symptom_names
from stackaudit.facts.engine_command import built_for_one_gpu, parse_command_line, parse_engine_commands
from stackaudit.importers._scan import strip_prompt

ALLREDUCE, GRAPHS, P2P = "RT-TRTLLM-ALLREDUCE", "RT-CUDA-GRAPHS", "IC-P2P-FUNCTIONAL"

# https://github.com/NVIDIA/TensorRT-LLM/issues/1625 (Fred-cell, 2024-05-19): the whole issue body, corpus 1737.
SESSION_1625 = (" ]# mpirun -n 2 --allow-run-as-root  /app/tensorrt_llm/benchmarks/cpp/gptSessionBenchmark --engine_dir "
                "./examples/qwen/trtModel/fp16 --warm_up 2 --batch_size $batch_size --duration 0 --num_runs 3 "
                "--input_output_len $in_out_dims --log_level info")
ERROR_1625 = ("[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in error: peer access is not supported "
              "between these two devices")
# https://github.com/NVIDIA/TensorRT-LLM/issues/1498 (liu21yd, 2024-04-25): Triton's TensorRT-LLM backend, TP 2.
ERROR_1498 = ("E0425 10:43:31.433641 841 backend_model.cc:691] ERROR: Failed to create instance: unexpected error when "
              "creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaIpcOpenMemHandle( "
              "reinterpret_cast<void**>(&foreignBuffer), handles[nodeId], cudaIpcMemLazyEnablePeerAccess): peer access "
              "is not supported between these two devices (/app/TensorRT-LLM/TensorRT-LLM/cpp/tensorrt_llm/runtime/"
              "ipcUtils.cpp:90)")
# https://github.com/NVIDIA/TensorRT-LLM/issues/1374 (bnuzhanyu, 2024-03-29, 0.8.0 on two A10s) and #2066
# (EASTERNTIGER, 2024-07-31, T5 at TP 4): the Python runtime's error, as the titles quote it.
ERROR_1374 = "RuntimeError: Can't enable access between nodes 0 and 1"
ERROR_2066 = "RuntimeError: Can't enable access between nodes 1 and 0"
# https://github.com/NVIDIA/TensorRT-LLM/issues/2813 (jasonngap1, 2025-02-23): Triton started as four MPI ranks.
TRITON_2813 = "mpirun -n 4 --allow-run-as-root tritonserver --model-repository=MODEL_REPO"
# https://github.com/NVIDIA/TensorRT-LLM/issues/1021 (TobyGE): the runtime's warning where a pair has no peer access;
# it then all-reduces without it, so the line is no failure.
WARNING_1021 = "[TensorRT-LLM][WARNING] Device 0 peer access Device 7 is not available."
# https://github.com/sgl-project/sglang/issues/1509 (jerryzh168, 2024-09-25): SGLang's own custom all-reduce.
SGLANG_1509 = ("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:307 'peer access is not supported between "
               "these two devices'")


def test_the_red_hat_prompt_and_its_tail_are_prompts() -> None:
    assert strip_prompt(SESSION_1625).startswith("mpirun -n 2 ")
    # Modelled: the whole prompt of a Red Hat host's bash (PS1 `[\u@\h \W]\$ `), root's and a user's.
    assert strip_prompt("[root@gpu01 tensorrt_llm]# mpirun -n 2 x") == "mpirun -n 2 x"
    assert strip_prompt("[alice@gpu01 ~]$ trtllm-serve m") == "trtllm-serve m"
    # Modelled: an index in brackets is not a prompt.
    assert strip_prompt("a[0]# x") == "a[0]# x"


def test_mpirun_runs_the_engine_inside_it_with_its_rank_count() -> None:
    command = parse_command_line(strip_prompt(SESSION_1625))
    assert command is not None and command.engine == "trtllm"
    assert command.argv[0].endswith("/gptSessionBenchmark")
    assert command.launcher == ("mpirun", "-n", "2", "--allow-run-as-root") and command.ranks == 2
    assert command.line.startswith("mpirun -n 2 ")  # quoted as pasted
    triton = parse_command_line(TRITON_2813)
    assert triton is not None and (triton.engine, triton.argv[0], triton.ranks) == ("triton", "tritonserver", 4)


def test_mpirun_continued_onto_run_py_is_read_through_the_launcher() -> None:
    # Corpus 578 (NVIDIA/TensorRT-LLM#1034): `mpirun -n 4 --allow-run-as-root \` over `python3 ../run.py ...`.
    (command,) = fact(pasted(body("578")), "engine_commands").commands
    assert command.engine == "trtllm" and command.argv[:2] == ("python3", "../run.py")
    assert command.ranks == 4 and command.engine_dir == "./trt_engines/mpt-7b/fp16_tp4"
    # Corpus 1631 (mpirun -n 8 over run.py, a TP 8 Llama 3 70B): eight ranks.
    ranks = {c.ranks for c in fact(pasted(body("1631")), "engine_commands").commands if c.launcher}
    assert ranks == {8}


def test_srun_counts_tasks_not_cpus_and_mpirun_passes_its_variables() -> None:
    # Modelled: srun's `-c` is CPUs per task; `--ntasks` is the rank count.
    command = parse_command_line("srun -N 2 --ntasks=8 -c 4 trtllm-serve m --tp_size 8")
    assert command is not None and command.ranks == 8 and command.argv[0] == "trtllm-serve"
    # Modelled: Open MPI's `-x NAME=value` sets NAME in the program's environment; `--mca KEY VALUE` is skipped.
    command = parse_command_line("mpirun -np 2 -x NCCL_P2P_DISABLE=1 --mca btl tcp,self python3 run.py "
                                 "--engine_dir /e/tp2")
    assert command is not None and dict(command.env) == {"NCCL_P2P_DISABLE": "1"} and command.ranks == 2


def test_a_launcher_over_no_engine_is_no_engine_command() -> None:
    # Modelled: nccl-tests under mpirun (the nccl-tests reader's) and a launcher with no program.
    assert parse_command_line("mpirun -np 8 --allow-run-as-root ./build/all_reduce_perf -b 8 -e 128M -g 1") is None
    assert parse_command_line("mpirun -n 2 --allow-run-as-root") is None


def test_a_one_gpu_build_run_under_several_ranks_is_not_one_gpu() -> None:
    # Modelled on corpus 1262's build.py line: a one-GPU engine, run as two ranks, then as one.
    build = ("python3 examples/llama/build.py --model_dir m --dtype float16 --use_gpt_attention_plugin float16 "
             "--output_dir out/fp16_1gpu")
    two = parse_engine_commands(f"{build}\nmpirun -n 2 python3 run.py --engine_dir out/fp16_1gpu\n").commands
    one = parse_engine_commands(f"{build}\nmpirun -n 1 python3 run.py --engine_dir out/fp16_1gpu\n").commands
    assert built_for_one_gpu(two) == ""
    assert built_for_one_gpu(one).startswith("the 1 engine build(s) shown")


def test_trtllm_own_peer_access_failures_are_its_custom_allreduce() -> None:
    for line in (ERROR_1625, ERROR_1498):
        names = symptom_names(line)
        assert "trtllm-custom-ar-peer-refused" in names and "p2p-unsupported" in names, line
    for line in (ERROR_1374, ERROR_2066):
        assert symptom_names(line) == ["trtllm-custom-ar-peer-refused-py"], line


def test_other_peer_access_lines_are_not_trtllm_failures() -> None:
    assert symptom_names(WARNING_1021) == []  # a warning: the runtime goes on without peer access
    assert symptom_names(SGLANG_1509) == ["p2p-unsupported"]  # SGLang's all-reduce, not TensorRT-LLM's


def test_1737_two_ranks_refused_peer_access_and_no_graph_switch() -> None:
    results = capture_checks("1737", ALLREDUCE, GRAPHS, P2P)
    assert results[ALLREDUCE].status == "issue", results[ALLREDUCE].message
    assert "tensor-parallel ranks" in results[ALLREDUCE].message
    assert results[GRAPHS].status == "issue" and "--enable_cuda_graph" in results[GRAPHS].message
    assert results[P2P].status == "issue"


def test_the_triton_backend_line_alone_proves_the_check(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, ERROR_1498 + "\n", ALLREDUCE)[ALLREDUCE]
    assert result.status == "issue", result.message


def test_a_warning_alone_leaves_the_check_open(tmp_path: Path) -> None:
    # Modelled: the run warns of a pair without peer access and goes on (NVIDIA/TensorRT-LLM#1021's warning twice).
    text = f"{SESSION_1625.strip()}\n{WARNING_1021}\n[TensorRT-LLM][WARNING] Device 1 peer access Device 0 is not available.\n"
    result = paste_checks(tmp_path, text, ALLREDUCE)[ALLREDUCE]
    assert result.status == "unknown", result.message


def test_only_engines_that_take_their_ranks_from_the_launcher_are_unwrapped() -> None:
    # Modelled: vLLM under mpirun starts a whole server per rank; the line is not read as vLLM's TP group.
    assert parse_command_line("mpirun -np 2 python -m vllm.entrypoints.openai.api_server --model m") is None


def test_one_rank_runs_an_engine_of_world_size_one(tmp_path: Path) -> None:
    # Modelled: gptSessionBenchmark as one MPI rank; TensorRT-LLM's WorldConfig::mpi makes TP x PP the MPI size.
    text = "mpirun -n 1 --allow-run-as-root ./benchmarks/gptSessionBenchmark --engine_dir ./engines/fp16 --batch_size 1\n"
    result = paste_checks(tmp_path, text, ALLREDUCE)[ALLREDUCE]
    assert result.status == "not-applicable", result.message
    # Two ranks leave the split open (TP 2 or PP 2, corpus 1667) and say so.
    result = paste_checks(tmp_path, text.replace("-n 1", "-n 2"), ALLREDUCE)[ALLREDUCE]
    assert result.status == "unknown" and "2 ranks under mpirun" in result.message, result.message
