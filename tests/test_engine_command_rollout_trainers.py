"""RL trainers that start vLLM engines for their rollouts, read as those engines' command
(facts/engine_command.VLLM_ROLLOUT_TRAINERS): OpenRLHF's PPO behind `ray job submit ... --`. Only the flags the trainer
passes to vLLM are the engine's (`--vllm_tensor_parallel_size` is its TP); the trainer's own ranks run on other GPUs,
so its engines' TP 1 does not make the job one GPU's (facts/parallelism.one_gpu_engine).

Real text: corpus 2360 (OpenRLHF/OpenRLHF#951); the other commands are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.engine_command import parse_command_line


def test_openrlhf_ppo_behind_ray_job_submit_is_its_vllm_engines() -> None:
    (command,) = fact(pasted(body("2360")), "engine_commands").commands
    assert command.engine == "vllm"
    # The trainer's own flags (`--ref_num_nodes`, `--vllm_num_engines`, `--colocate_critic_reward`) are left out.
    assert command.argv == ("openrlhf.cli.train_ppo_ray", "--tensor-parallel-size", "1")
    checks = capture_checks("2360", "IC-CUSTOM-ALLREDUCE", "IC-NCCL-ENV", "IC-TOPOLOGY-PLACEMENT")
    assert checks["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    # The engines' TP 1 is no one-GPU job: the actor, critic and reference train on the other GPUs.
    assert checks["IC-NCCL-ENV"].status == "unknown"
    # The user's `两张A100` (two A100s) is the whole host: a group of its GPUs is both, no other placement to choose.
    assert checks["IC-TOPOLOGY-PLACEMENT"].status == "not-an-issue", checks["IC-TOPOLOGY-PLACEMENT"].message


def test_its_vllm_flags_are_renamed_with_their_values() -> None:
    # Modelled on OpenRLHF's README (PPO with Ray and vLLM), one line, flags in `=` and spaced forms.
    command = parse_command_line("python3 -m openrlhf.cli.train_ppo_ray --pretrain OpenRLHF/Llama-3-8b-sft-mixture "
                                 "--vllm_num_engines 4 --vllm_tensor_parallel_size=2 --enforce_eager "
                                 "--vllm_gpu_memory_utilization 0.5 --micro_train_batch_size 8")
    assert command is not None and command.engine == "vllm"
    assert command.argv == ("openrlhf.cli.train_ppo_ray", "--model", "OpenRLHF/Llama-3-8b-sft-mixture",
                            "--tensor-parallel-size=2", "--enforce-eager", "--gpu-memory-utilization", "0.5")


def test_other_ray_jobs_and_trainers_are_no_engine() -> None:
    # Modelled: a Ray job of another program, and OpenRLHF's SFT trainer, which starts no vLLM engine.
    assert parse_command_line('ray job submit --address="http://127.0.0.1:8265" -- python3 train.py --epochs 3') is None
    assert parse_command_line("python3 -m openrlhf.cli.train_sft --pretrain m --max_len 2048") is None


def test_verifiers_vf_vllm_is_a_vllm_server_that_syncs_weights() -> None:
    # Real: corpus 2617 (verifiers#139), the command with NCCL's P2P and SHM turned off on a host of NVLink pairs.
    (command,) = fact(pasted(body("2617")), "engine_commands").commands
    assert command.engine == "vllm" and command.argv[0] == "vf-vllm"
    assert dict(command.env)["NCCL_P2P_DISABLE"] == "1"
    checks = capture_checks("2617", "IC-NCCL-ENV", "IC-CUSTOM-ALLREDUCE", "IC-P2P-FUNCTIONAL")
    assert checks["IC-NCCL-ENV"].status == "issue", checks["IC-NCCL-ENV"].message
    assert checks["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    # Its one GPU is not the workload's: the weights come from the trainer's GPU over NCCL.
    assert checks["IC-P2P-FUNCTIONAL"].status == "unknown", checks["IC-P2P-FUNCTIONAL"].message


def test_vf_vllm_with_only_nccl_debug_is_ok() -> None:
    # Real: corpus 2618 (verifiers#181): NCCL_DEBUG=INFO is a logging switch; TP 1 leaves no custom all-reduce.
    checks = capture_checks("2618", "IC-NCCL-ENV", "IC-CUSTOM-ALLREDUCE")
    assert checks["IC-NCCL-ENV"].status == "ok", checks["IC-NCCL-ENV"].message
    assert checks["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_modelled_plain_vllm_on_one_gpu_stays_one_gpu_and_other_vf_programs_are_no_engine(tmp_path) -> None:
    # Modelled counter-examples: vLLM's own server on one GPU moves nothing between GPUs; verifiers' evaluator and
    # installer (`vf-eval`, `vf-install`) start no engine.
    checks = paste_checks(tmp_path, "```\nCUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen2.5-1.5B-Instruct "
                                    "--tensor-parallel-size 1\n```\n", "IC-P2P-FUNCTIONAL")
    assert checks["IC-P2P-FUNCTIONAL"].status == "not-applicable"
    assert parse_command_line("vf-eval vf-gsm8k --model Qwen/Qwen2.5-1.5B-Instruct") is None
    assert parse_command_line("vf-install vf-gsm8k -p ./environments") is None
