"""container: where the pasted outputs ran, from the paste's own shape and the user's words.

Inside: a shell prompt whose host is a container's id (`root@802f556c99c8:/# nvidia-smi`) puts the commands typed
there in a container, and nvidia-smi listing GPUs there shows them exposed (CTR-GPU-ACCESS ok).
On the host: an engine run from a build tree in the user's home, or the user's words that they ran `ollama serve`
themselves; the container checks about the engine's container are then not applicable. An absence proves neither.
"""

from __future__ import annotations

import pytest

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.container import ContainerInfo, stated_host
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers._paste import prompt_host, view

_SMI = """\
root@802f556c99c8:/# nvidia-smi
Tue Sep 24 12:52:58 2024
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA RTX A3000 Laptop GPU    Off | 00000000:01:00.0 Off |                  N/A |
| N/A   48C    P8              12W /  60W |      8MiB /  6144MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""


def test_prompt_host() -> None:
    assert prompt_host("root@802f556c99c8:/# nvidia-smi") == "802f556c99c8"
    assert prompt_host("[root@gpu-node ~]# lspci") == "gpu-node"
    assert prompt_host("$ nvidia-smi") == ""
    assert prompt_host("an email user@example.com in prose") == ""


def test_prompt_env_prefix() -> None:
    # The environment a conda or venv prompt names, with the prompt's user; none for a prompt without the prefix.
    shown = view("(deit92) [user@gpuhost deit]$ NCCL_DEBUG=INFO bash train.sh\n(vllm) root@box:~# nvidia-smi\n"
                 "root@802f556c99c8:/# nvidia-smi\n")
    assert shown.prompt_envs == {0: "deit92\tuser", 1: "vllm\troot", 2: "\troot"}
    # A `user@host` prompt without an environment keeps its user; a prompt that names no host names no user.
    assert view("kgk2@bock:~$ nvidia-smi\n$ nvidia-smi\n").prompt_envs == {0: "\tkgk2"}
    assert shown.prompt_hosts == {0: "gpuhost", 1: "box", 2: "802f556c99c8"}


def test_container_prompt_puts_nvidia_smi_inside() -> None:
    # ollama/ollama#6933 (corpus 411): nvidia-smi typed at root@802f556c99c8, the ollama container's prompt.
    info = fact(pasted(body("411")), "container")
    assert info.in_container
    assert "802f556c99c8" in info.evidence[0]
    assert info.ran_inside == ("nvidia-smi",)
    r = capture_checks("411", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok"
    assert "RTX A3000" in r.message


def test_modelled_host_prompt_is_no_container() -> None:
    # Modelled: the same output at a host's named prompt says nothing of a container.
    text = _SMI.replace("root@802f556c99c8:/#", "root@gpu-node-03:~#")
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


def test_modelled_nvidia_smi_at_both_prompts_is_not_attributed() -> None:
    # Modelled: nvidia-smi typed on the host and in the container: which table is whose is not shown.
    text = _SMI.replace("root@802f556c99c8:/#", "root@gpu-node-03:~#") + _SMI
    info = fact(pasted(text), "container")
    assert info.in_container
    assert info.ran_inside == ()


def test_home_build_tree_engine_runs_on_the_host() -> None:
    # ggml-org/llama.cpp#13197 (corpus 1111): llama-server from /home/user/llama.cpp/build/bin, cut mid-quote.
    info = fact(pasted(body("1111")), "container")
    assert isinstance(info, ContainerInfo) and not info.in_container
    assert "/home/user/llama.cpp/build/bin/llama-server" in info.evidence[0]
    assert capture_checks("1111", "CTR-CPU-LIMITS")["CTR-CPU-LIMITS"].status == "not-applicable"


def test_modelled_image_path_engine_says_nothing() -> None:
    # Modelled: an engine under /app (an image's layout) is no proof of a host.
    text = "CUDA_VISIBLE_DEVICES=0 /app/llama-server -m /models/x.gguf -ngl 99\n"
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


def test_command_cut_inside_its_last_quoted_word() -> None:
    command = parse_command_line('/home/user/llama.cpp/build/bin/llama-server -ngl 99 --override-tensor ".*ffn_.')
    assert command is not None and command.cut
    assert command.argv[-1] == "--override-tensor"
    # Modelled: an apostrophe in a sentence is no cut command.
    assert parse_command_line("I can't run vllm serve --tensor-parallel-size 2 with it") is None


def test_user_ran_ollama_serve_on_the_host() -> None:
    # ollama/ollama#10483 (corpus 1112): "ran `ollama serve`", then its debug log.
    info = fact(pasted(body("1112")), "container")
    assert isinstance(info, ContainerInfo) and not info.in_container
    assert "ollama serve" in info.evidence[0]
    assert capture_checks("1112", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_stated_host_words() -> None:
    assert stated_host("ran `ollama serve`")
    assert stated_host("I started ollama serve and then ollama run gemma3")
    # Modelled: words that name a container, or a mention that is not the user's start of the server.
    assert not stated_host("I ran ollama serve inside the docker container")
    assert not stated_host("the logs of ollama serve show the GPU")


def test_exec_inside() -> None:
    from stackaudit.facts.container import exec_inside

    assert exec_inside("docker exec -ti -u root worker3 nvidia-smi -L") == ("docker", "worker3", "nvidia-smi -L")
    assert exec_inside("kubectl exec -it vllm-0 -n ai -- nvidia-smi") == ("kubernetes", "vllm-0", "nvidia-smi")
    assert exec_inside("docker exec ollama") == ("", "", "")
    assert exec_inside("docker run --gpus all ubuntu nvidia-smi") == ("", "", "")


def test_modelled_docker_exec_prompt_puts_nvidia_smi_inside() -> None:
    # Modelled (marked so): corpus 411's table under a `$ docker exec` of nvidia-smi in the ollama container.
    text = _SMI.replace("root@802f556c99c8:/# nvidia-smi", "$ docker exec -it ollama nvidia-smi")
    info = fact(pasted(text), "container")
    assert info.kind == "docker" and info.ran_inside == ("nvidia-smi",)
    assert "ollama" in info.evidence[0]


def test_modelled_kubectl_exec_prompt_is_a_pod() -> None:
    text = _SMI.replace("root@802f556c99c8:/# nvidia-smi", "user@bastion:~$ kubectl exec -it vllm-0 -- nvidia-smi")
    info = fact(pasted(text), "container")
    assert info.kind == "kubernetes" and info.ran_inside == ("nvidia-smi",)


def test_modelled_user_words_from_docker() -> None:
    # ollama/ollama#6933's sentence alone (corpus 411 line 1), without its prompt.
    text = ("Hi there. I am using ollama from docker and I've already made sure that the gpu is available from the "
            "container, by using `nvidia-smi`\n" + _SMI.replace("root@802f556c99c8:/# nvidia-smi\n", ""))
    info = fact(pasted(text), "container")
    assert info.kind == "docker" and info.ran_inside == ()


def test_engine_as_pid_one_is_a_container() -> None:
    # noonghunna/club-3090#93 (corpus 510): vLLM's `(APIServer pid=1)` prefix: the engine is its namespace's PID 1.
    info = fact(pasted(body("510")), "container")
    assert info.in_container
    assert "APIServer pid=1" in info.evidence[0]
    r = capture_checks("510", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert "whether it ran in a container" not in r.message


def test_modelled_engine_with_another_pid_says_nothing() -> None:
    # Modelled: the same line from PID 4127 is any process of any machine.
    text = body("510").replace("pid=1)", "pid=4127)")
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


# A traceback's or a library's file of a Python environment in a user's home (facts/container.HOME_PYTHON_FILE): the
# program ran from the user's own environment on the machine.
# https://github.com/vllm-project/vllm/issues/14452 (turn 92 by 1074854980): vLLM's engine log from a conda env.
_HOME_VLLM_14452 = """\
ERROR 04-26 20:27:52 [core.py:390]     engine_core = EngineCoreProc(*args, **kwargs)
ERROR 04-26 20:27:52 [core.py:390]   File "/home/ds/anaconda3/envs/deepseek-14B/lib/python3.9/site-packages/vllm-0.8.5.dev126+g1311913f5.d20250425.cu128-py3.9-linux-x86_64.egg/vllm/v1/engine/core.py", line 323, in __init__
ERROR 04-26 20:27:52 [core.py:390]     super().__init__(vllm_config, executor_class, log_stats,
"""
# https://github.com/pytorch/pytorch/issues/465 (comment by BinbinBian, 2017-03-08): a training script's traceback.
_HOME_TORCH_465 = """\
THCudaCheck FAIL file=/data/users/soumith/miniconda2/conda-bld/pytorch-0.1.9_1487346124464/work/torch/lib/THC/generic/THCStorage.cu line=66 error=2 : out of memory
Traceback (most recent call last):
  File "main_snli.py", line 74, in __init__
    self.model.cuda()
  File "/home/bbbian/anaconda3/lib/python3.6/site-packages/torch/nn/modules/module.py", line 143, in cuda
    return self._apply(lambda t: t.cuda(device_id))
"""


@pytest.mark.parametrize("text", [_HOME_VLLM_14452, _HOME_TORCH_465, body("1691"), body("1986")],
                         ids=["vllm-14452", "torch-465", "1691", "1986"])
def test_home_environment_file_is_the_host(text: str) -> None:
    info = fact(pasted(text), "container")
    assert isinstance(info, ContainerInfo) and info.on_host
    assert "/home/" in info.evidence[0] and "site-packages" in info.evidence[0]


@pytest.mark.parametrize("text", [
    # https://github.com/vllm-project/vllm/issues/20465: root's own conda, as a container's root has one too.
    '  File "/root/miniforge3/envs/vllm/lib/python3.10/site-packages/vllm/utils.py", line 2456, in run_method\n',
    # https://github.com/community-scripts/ProxmoxVED/issues/2047: an environment under /opt.
    '  File "/opt/vllm/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 1318, in run_engine_core\n',
    # Modelled: Ray's images install their conda under /home/ray.
    '  File "/home/ray/anaconda3/lib/python3.10/site-packages/ray/_private/worker.py", line 2547, in get\n',
    # Modelled: a home environment beside a prompt that starts a container says nothing of where the file ran.
    '$ docker exec -it vllm bash\n  File "/home/me/.venv/lib/python3.11/site-packages/vllm/utils.py", line 1, in f\n',
], ids=["root-20465", "opt-2047", "ray-image", "docker-prompt"])
def test_other_environment_files_say_nothing(text: str) -> None:
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host)


def test_image_workdir_frame_leaves_the_home_environment_open() -> None:
    # Corpus 1610: the conda env under /home/li runs code under /workspace, an image's working directory (NGC, RunPod).
    assert not isinstance(fact(pasted(body("1610")), "container"), ContainerInfo)
    text = _HOME_TORCH_465 + '  File "/workspace/train.py", line 9, in <module>\n'
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo)


# llamafile's GPU module in a login user's home (facts/container.HOME_LLAMAFILE_MODULE): the llamafile ran on the
# machine from that user's shell (issue 28, h104b).
def test_llamafile_module_in_a_home_is_the_host() -> None:
    # Corpus 2374 (mozilla-ai/llamafile#372): `./TinyLlama-1.1B-Chat-v1.0.F32.llamafile -ngl 9999` linking
    # /home/yo/.llamafile/ggml-cuda.so; its CUDA at work no longer reads as a container's access.
    info = fact(pasted(body("2374")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "/home/yo/.llamafile/ggml-cuda.so" in info.evidence[0]
    assert capture_checks("2374", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


@pytest.mark.parametrize("text", [
    # Modelled: root's home, a container's user's.
    "link_cuda_dso: note: dynamically linking /root/.llamafile/ggml-cuda.so\n",
    # Modelled: the module in a home beside a prompt that starts a container says nothing of where it ran.
    "$ docker exec -it llm bash\nlink_cuda_dso: note: dynamically linking /home/me/.llamafile/ggml-cuda.so\n",
], ids=["root-home", "docker-prompt"])
def test_other_llamafile_modules_say_nothing(text: str) -> None:
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host)


def test_llamafile_without_its_module_line_stays_open() -> None:
    # Corpus 2216 (mozilla-ai/llamafile#384): a llamafile run by path, cut before any GPU module is linked.
    assert not isinstance(fact(pasted(body("2216")), "container"), ContainerInfo)


# --- the engine's or CUDA's own words that it found no GPU, from a pod or a container (issue 28, h103a) ---

_NO_PLATFORM = "INFO 05-20 20:12:25 [__init__.py:252] No platform detected, vLLM is running on UnspecifiedPlatform\n"


@pytest.mark.parametrize(("prefix", "kind", "quoted"), [
    # a pod's name as the prompt's host (vllm-project/vllm#26774), torch's `No CUDA GPUs are available` there
    ("2335", "kubernetes", "No CUDA GPUs are available"),
    # kubectl's `Defaulted container "vllm" out of:` before the decode pod's log (llm-d/llm-d-deployer#273)
    ("2340", "kubernetes", "No platform detected"),
    # `srun --container-image` puts the step in a Pyxis container, whose nvidia-smi -L says `No devices found.`
    ("2331", "container", "No devices found"),
    # kubectl's log stream naming the pod's container; ollama 0.1.29 discovers no NVML library (ollama/ollama#3211)
    ("2571", "kubernetes", "Discovered GPU libraries"),
    # KServe's fixed serving container name prefixing the predictor's log; libcuda.so.1 missing (kserve/kserve#4657)
    ("2573", "kubernetes", "libcuda.so.1: cannot open shared object file"),
    # a KubeRay head pod's name as the prompt's host, its suffix without a digit (vllm-project/vllm#27318)
    ("2577", "kubernetes", "NVML Shared Library Not Found"),
])
def test_no_gpu_words_from_a_pod_or_container(prefix: str, kind: str, quoted: str) -> None:
    info = fact(pasted(body(prefix)), "container")
    assert isinstance(info, ContainerInfo) and info.kind == kind
    r = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue"
    assert any(quoted in line for line in r.evidence)


def test_no_gpu_words_of_another_thread_in_a_container() -> None:
    # xorbitsai/inference#3288 (corpus 1567): torch's NVML warning in the container the paste shows stays an issue.
    assert capture_checks("1567", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


def test_no_gpu_words_without_a_container_shown_prove_nothing() -> None:
    # vllm-project/vllm#23935 (corpus 1355): the same vLLM lines, the pod only in the thread's title: unknown.
    assert capture_checks("1355", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"
    # Modelled: vLLM's line typed at a machine's own prompt, and a machine's name that is no pod's.
    text = "user@gpu-box:~$ vllm serve m\n" + _NO_PLATFORM
    assert not isinstance(fact(pasted(text), "container"), ContainerInfo) \
        or not fact(pasted(text), "container").in_container
    assert not isinstance(fact(pasted("root@dev01:~# python3 --version\nPython 3.12.1\n"), "container"),
                          ContainerInfo)
    # Modelled: `srun` without a container image runs the step on the node.
    bare = "$ srun --nodes=1 --gpus-per-task=1 nvidia-smi -L\nNo devices found.\n"
    assert not isinstance(fact(pasted(bare), "container"), ContainerInfo)
    # Modelled: kubectl's note names a container only in its own words, not in a user's sentence.
    said = "I read that Defaulted container means nothing\n" + _NO_PLATFORM
    assert not isinstance(fact(pasted(said), "container"), ContainerInfo)


def test_pod_markers_need_kubectl_s_or_kserve_s_own_form() -> None:
    # Modelled: the pod and container named in a user's sentence without kubectl's quotes, KServe's container name
    # inside a line, and ollama finding its NVML library, prove no container.
    said = "the container ollama in pod ollama-1 fails\n" + _NO_PLATFORM
    assert not isinstance(fact(pasted(said), "container"), ContainerInfo)
    inline = "I looked at kserve-container logs\n" + _NO_PLATFORM
    assert not isinstance(fact(pasted(inline), "container"), ContainerInfo)
    # ollama on a Jetson's own shell (corpus 2108), the same empty discovery: not a container's check.
    assert capture_checks("2108", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"
    # Another KubeRay head pod's prompt (corpus 2423, a suffix with a digit) stays a pod whose nvidia-smi lists GPUs.
    info = fact(pasted(body("2423")), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "kubernetes"
    assert capture_checks("2423", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"


def test_engine_of_several_ranks_typed_in_a_pod_is_not_placed() -> None:
    # Corpus 2577: `vllm serve` with PP 2 x TP 4 typed in a KubeRay head pod: where Ray puts the 8 ranks is not shown.
    r = capture_checks("2577", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "unknown" and "8 ranks" in r.message
    # Corpus 2459: srun places the two ranks on two nodes, one each: the launcher's placement, not this rule's.
    assert capture_checks("2459", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"].status == "not-applicable"
    # Modelled: one rank typed in a pod gives no group to place.
    one = "root@vllm-7dcd6b94b7-wl6w4:/# vllm serve m --tensor-parallel-size 1\n" + _NO_PLATFORM
    from stackaudit.checks.ctr import ipc_isolation
    from stackaudit.facts.engine_command import EngineCommands
    from stackaudit.facts.parallelism import Parallelism
    info = fact(pasted(one), "container")
    assert isinstance(info, ContainerInfo) and info.kind == "kubernetes"
    from stackaudit.facts.parallelism import EngineParallelism
    single = ipc_isolation(info, parallelism=Parallelism(engines=(EngineParallelism("vllm", tp=1),)),
                           engine_commands=EngineCommands())
    assert single.status == "not-applicable"
    pair = ipc_isolation(info, parallelism=Parallelism(engines=(EngineParallelism("vllm", tp=2),)),
                         engine_commands=EngineCommands())
    assert pair.status == "unknown" and "2 ranks" in pair.message


def test_new_container_markers_are_bounded() -> None:
    import time

    from stackaudit.facts.container import KUBECTL_DEFAULTED, PYXIS_SRUN
    from stackaudit.facts.symptoms import CUDA_NO_DEVICE, SYMPTOMS
    nvml = next(s.pattern for s in SYMPTOMS if s.name == "torch-nvml-in-container")
    line = "srun " + "-a " * 66_000 + "x" * 2_000
    start = time.perf_counter()
    from stackaudit.facts.serving_logs import RAY_POD
    for pattern in (KUBECTL_DEFAULTED, PYXIS_SRUN, CUDA_NO_DEVICE, nvml, RAY_POD):
        pattern.search(line)
        pattern.search("container \"" + "a" * 200_000)
        RAY_POD.fullmatch("a-" * 100_000 + "head-bcdf")
        pattern.search("Defaulted container \"" + "a" * 200_000)
        pattern.search("No devices " + " " * 200_000 + "x")
    assert time.perf_counter() - start < 1.0


# The user's first-person words that they ran the program shown on bare metal (facts/container.STATED_BARE_METAL;
# issue 28, h104b).
def test_stated_bare_metal_run_is_the_host() -> None:
    # Corpus 2357 (NVIDIA-NeMo/RL#1244): `I've tried baremetal and it works on:` above the nvidia-smi it ran.
    info = fact(pasted(body("2357")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "I've tried baremetal" in info.evidence[0]
    assert capture_checks("2357", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_bare_metal_words_beside_a_container_spec_say_nothing() -> None:
    # Corpus 715 (another thread): `I've installed ollama on bare metal ...` beside the compose file that runs it in a
    # container: the spec decides, and its GPU request alone shows no GPU inside (unknown, issue 28 h121c).
    r = capture_checks("715", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "unknown" and "request GPUs: ollama (1)" in r.message


def test_bare_metal_words_that_name_a_container_or_compare_are_no_statement() -> None:
    # Modelled: a line naming Docker, and a comparison with bare metal's speed (not in the first person).
    assert stated_host("I ran it on bare metal but inside Docker it fails") == ""
    assert stated_host("The VM reaches 25% of baremetal speed") == ""
    assert stated_host("I've tried baremetal and it works on:") == "I've tried baremetal"


# A program at work on the GPU beside an engine or in its place that writes its own lines to the host's journal
# (facts/container._HOST_ENGINE: LocalAI, llama-swap, a GPU metrics exporter): a systemd service of the machine
# (issue 28, h106a).
@pytest.mark.parametrize(("prefix", "tag"), [("2404", "prometheus-nvidia-exporter-2[1144]"),
                                             ("1976", "local-ai[800377]"), ("835", "llama-swap[80783]")])
def test_gpu_program_in_the_host_journal_is_a_host_service(prefix: str, tag: str) -> None:
    # Corpus 2404 (utkuozdemir/nvidia_gpu_exporter#65): the exporter's unit under /system.slice, its nvidia-smi
    # failing in its own journal line; 1976 (mudler/LocalAI#4199) and 835 (ikawrakow/ik_llama.cpp#425), other threads.
    info = fact(pasted(body(prefix)), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and info.as_service and tag in info.evidence[0]
    assert capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_modelled_daemon_or_other_exporter_in_the_journal_says_nothing() -> None:
    # Modelled: NVIDIA's own daemon and an exporter of no GPU metrics run on the host whatever runs the workload.
    for tag in ("nvidia-persistenced[812]", "node_exporter[77]"):
        text = f"Apr 11 09:02:39 client {tag}: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        assert not isinstance(fact(pasted(text), "container"), ContainerInfo), tag
    text = ("Apr 11 09:02:39 client nvidia_gpu_exporter[812]: NVIDIA-SMI has failed because it couldn't communicate "
            "with the NVIDIA driver.\n")
    info = fact(pasted(text), "container")
    assert isinstance(info, ContainerInfo) and info.as_service


# The user's words that the program was installed by Homebrew, snap or Flatpak (facts/container.STATED_HOST_PACKAGE):
# a host install (issue 28, h106a).
def test_program_installed_with_brew_runs_on_the_host() -> None:
    # Corpus 2408 (Syllo/nvtop#318): `nvtop installed via `brew install nvtop``, then nvtop and nvidia-smi at a shell.
    info = fact(pasted(body("2408")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "installed via `brew" in info.evidence[0]
    assert capture_checks("2408", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_package_words_that_name_a_container_or_another_install_say_nothing() -> None:
    # Modelled: the same words naming a container, an apt install (an image's Dockerfile runs those), a mention.
    assert stated_host("I installed nvtop with brew install nvtop inside the docker container") == ""
    assert stated_host("nvtop was installed via apt install nvtop and shows no GPU") == ""
    assert stated_host("is there a brew formula for nvtop at all") == ""
    assert stated_host("I installed it via Homebrew on Ubuntu") == "installed it via Homebrew"
    assert stated_host("sudo snap install nvtop gives the same") == "snap install nvtop"


# A login user's `user@host` prompt that names no container or pod (facts/container._login_prompt; issue 28, h110a).
def test_login_users_prompt_is_the_machines_own_shell() -> None:
    # Corpus 2466 (illinois-scicomp/machine-shop-maintenance#70): `kgk2@bock:~$ nvidia-smi` on the host itself.
    info = fact(pasted(body("2466")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "kgk2@bock" in info.evidence[0]
    assert capture_checks("2466", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"
    # Corpus 2158, another thread: `fan@ubuntu:~$`.
    info = fact(pasted(body("2158")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "fan@ubuntu" in info.evidence[0]


@pytest.mark.parametrize("prompt", ["root@gpu-node-03:~#", "jovyan@802f556c99c8:~$",
                                    "dev@vllm-7dcd6b94b7-wl6w4:~$"])
def test_modelled_root_or_container_named_prompt_is_no_login_shell(prompt: str) -> None:
    # Modelled: root's shell (a container's default user), or a login user's whose host is a container's id or a pod.
    text = _SMI.replace("root@802f556c99c8:/#", prompt)
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host), prompt


def test_modelled_login_prompt_beside_a_docker_command_is_no_login_shell() -> None:
    # Modelled: the login user's shell runs `docker exec`: the commands may have run in the container.
    text = "kgk2@bock:~$ docker exec -it vllm nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
    info = fact(pasted(text), "container")
    assert not (isinstance(info, ContainerInfo) and info.on_host)


def test_desktop_session_in_the_journal_is_the_machines_own() -> None:
    # Corpus 2469 (acidanthera/bugtracker#2237): gdm3 and nvidia-settings' autostart entry in the machine's journal.
    info = fact(pasted(body("2469")), "container")
    assert isinstance(info, ContainerInfo) and info.on_host and "gdm3[7055]" in info.evidence[0]
    assert capture_checks("2469", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_modelled_runtime_daemons_in_the_journal_say_nothing() -> None:
    # Modelled: the container runtime's own daemons log to the host's journal whatever runs in their containers.
    for tag in ("dockerd[1200]", "containerd[812]", "gdm3x[7055]"):
        text = f"mar 06 15:10:43 CS3003NS {tag}: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
        info = fact(pasted(text), "container")
        assert not (isinstance(info, ContainerInfo) and info.on_host), tag


@pytest.mark.parametrize("prefix", ["2724", "817"])
def test_a_collect_env_typed_in_the_container_shows_cuda_reaching_it(prefix: str) -> None:
    """Real: corpus 2724 (vllm-project/vllm#16751: `root@a3c882d4b9de:/workspace# python3 collect_env.py`, `Is CUDA
    available: True`, 4 A800s) and, another thread, corpus 817 (SGLang's check_env typed at its container's prompt):
    torch initialised CUDA inside the container, so its GPUs reached it."""
    r = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and "torch initialised CUDA" in r.message


@pytest.mark.parametrize(("old", "new"), [("root@a3c882d4b9de:/workspace#", "user@gpu-node-03:~$"),
                                          ("Is CUDA available: True", "Is CUDA available: False")])
def test_a_collect_env_at_a_host_prompt_or_without_cuda_proves_no_access(tmp_path, old: str, new: str) -> None:
    """Counter-examples (modelled on 2724): the same report at a host's named prompt shows no container; one whose torch
    did not initialise CUDA shows no GPU reaching it."""
    from corpus import paste_checks
    r = paste_checks(tmp_path, body("2724").replace(old, new), "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok"
