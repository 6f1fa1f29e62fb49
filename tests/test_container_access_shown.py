"""CTR-GPU-ACCESS from what a paste shows of the container, or of the host the engine ran on (issue 28).

- A `docker run` whose GPU request the NVIDIA runtime hook then fails to set up (`nvidia-container-cli: mount error:`,
  `container error:`, `ldcache error:`, `device error:`: facts/symptoms.py `ctk-setup-error`) is an issue: the request
  is no proof of access, its failure is (corpus 1461).
- `docker run --gpus 0` is a count of zero GPUs, not GPU 0: Docker asks the runtime for none, and the image's own
  NVIDIA_VISIBLE_DEVICES decides (every GPU in a CUDA image): an issue (corpus 1460, NVIDIA/nvidia-docker#1506).
- A whole pod spec without nvidia.com/gpu and nvidia-smi run in that pod by `kubectl exec` listing GPUs: the GPU
  reaches it outside the device plugin's allocation, an issue (corpus 379).
- The engine's host shows itself, so no container applies: a model loaded from a Windows drive (corpus 1423), a systemd
  unit's ExecStart that runs the engine (corpus 920), `ollama serve` typed at a root prompt (corpus 1426).

Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted, symptom_names
from stackaudit.facts.container import MACHINE_SHELL
from stackaudit.facts.container_specs import parse_docker_run
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.platform import windows_lines

ACCESS = "CTR-GPU-ACCESS"


def test_hook_mount_error_after_gpu_request_is_the_issue() -> None:
    # Corpus 1461 (NVIDIA/nvidia-container-toolkit#1482): `docker run --gpus all` then the hook's eBPF device filter
    # refused by the kernel.
    result = capture_checks("1461", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert any("nvidia-container-cli: mount error" in line for line in result.evidence)


def test_hook_setup_errors_of_each_stage() -> None:
    # Modelled on libnvidia-container's `nvidia-container-cli: <stage> error: ...` lines.
    for line in ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/x/merged/usr/bin/"
                 "nvidia-smi: file exists: unknown",
                 "nvidia-container-cli: container error: cgroup subsystem devices not found: unknown",
                 "nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or directory",
                 "nvidia-container-cli: device error: 1: unknown device: unknown"):
        assert symptom_names(line + "\n") == ["ctk-setup-error"], line
    # The image's CUDA requirement over an older driver is the driver's (DRV-CUDA-COMPAT), not the container's.
    assert symptom_names("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your "
                  "driver to a newer version\n") == ["ctk-cuda-requirement"]


def test_gpus_zero_is_a_count_of_zero() -> None:
    # Corpus 1460 (NVIDIA/nvidia-docker#1506): `--gpus 0` still hands the CUDA image every GPU.
    result = capture_checks("1460", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "--gpus 0" in result.message and "every GPU" in result.message
    # Modelled: the count read from each spelling; an index is a device id, a variable is not read as zero.
    assert parse_docker_run("docker run --gpus 0 nvidia/cuda:11.0-base nvidia-smi").zero_gpus_asked
    assert parse_docker_run("docker run --gpus count=0 nvidia/cuda:11.0-base nvidia-smi").zero_gpus_asked
    for spelling in ("1", "all", "'\"device=0\"'", "$GPUS"):
        assert not parse_docker_run(f"docker run --gpus {spelling} nvidia/cuda:11.0-base nvidia-smi").zero_gpus_asked


def test_gpus_one_stays_ok(tmp_path: Path) -> None:
    # Modelled: corpus 1460's run with `--gpus 1` (a count of one GPU).
    text = body("1460").replace("--gpus 0", "--gpus 1")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "ok"


def test_model_loaded_from_a_windows_drive_is_a_windows_host() -> None:
    # Corpus 1423 (LostRuins/koboldcpp#2347): llama.cpp's loader names `C:\Users\...\model.gguf`.
    result = capture_checks("1423", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    assert "Windows" in result.message
    # Modelled: a Linux path, and a Windows path the loader did not open, show no Windows host.
    assert windows_lines("llama_model_loader: loaded meta data with 41 key-value pairs from /models/q.gguf") == ""
    assert windows_lines("I copied C:\\models\\q.gguf over") == ""


def test_engine_run_by_a_systemd_unit_is_on_the_host(tmp_path: Path) -> None:
    # Corpus 920 (LostRuins/koboldcpp#1609): `ExecStart=/usr/bin/python /opt/koboldcpp-latest/koboldcpp.py ...`.
    result = capture_checks("920", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    # Modelled: a unit that starts the engine through Docker keeps the container open.
    devices = ("Device 0: NVIDIA GeForce RTX 4080 SUPER, compute capability 8.9, VMM: yes\n"
               "Device 1: NVIDIA RTX A6000, compute capability 8.6, VMM: yes\n")
    docker = ("```\n" + devices + "```\n[Service]\nExecStart=/usr/bin/docker run --rm --gpus all koboldcpp/koboldcpp:latest "
              "python /opt/koboldcpp/koboldcpp.py /models/x.gguf 8008 --usecublas --gpulayers 54\n")
    assert paste_checks(tmp_path, docker, ACCESS)[ACCESS].status != "not-applicable"


def test_ollama_serve_typed_at_a_root_prompt_is_on_the_host(tmp_path: Path) -> None:
    # Corpus 1426 (ollama/ollama#5093): `# OLLAMA_MAX_VRAM=... CUDA_VISIBLE_DEVICES=2,3 ... ollama serve`.
    result = capture_checks("1426", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    # Modelled: the same command at a container's own prompt (its id as the host) ran in that container.
    inside = body("1426").replace("# OLLAMA_MAX_VRAM", "root@802f556c99c8:/# OLLAMA_MAX_VRAM")
    assert paste_checks(tmp_path, inside, ACCESS)[ACCESS].status != "not-applicable"


def test_nvidia_smi_exec_in_a_pod_that_asks_for_no_gpu(tmp_path: Path) -> None:
    # Corpus 379 (NVIDIA/k8s-device-plugin#195): a whole pod spec without nvidia.com/gpu, then
    # `**k exec -it gpu-resource-test -- nvidia-smi**` listing the node's Quadro K2200.
    result = capture_checks("379", ACCESS)[ACCESS]
    assert result.status == "issue", result.message
    assert "gpu-resource-test" in result.message and "Quadro K2200" in result.message
    # Modelled: the same pod with a GPU limit is given the GPU it lists.
    limited = body("379").replace('    imagePullPolicy: IfNotPresent\n',
                                   '    imagePullPolicy: IfNotPresent\n    resources:\n      limits:\n'
                                   '        nvidia.com/gpu: 1\n')
    assert paste_checks(tmp_path, limited, ACCESS)[ACCESS].status != "issue"


def test_ollama_serve_pasted_above_its_log_without_a_prompt_is_on_the_host(tmp_path: Path) -> None:
    # Corpus 2082 (ollama/ollama#16235): the log field holds `ollama serve` alone, then the server config line.
    assert capture_checks("2082", ACCESS)[ACCESS].status == "not-applicable"
    log = ('time=2026-05-20T13:12:24.167+05:00 level=INFO source=routes.go:1802 msg="server config" '
           'env="map[CUDA_VISIBLE_DEVICES: OLLAMA_MODELS:/home/uk/.ollama/models]"\n')
    # Modelled: the same command with the variables it reads set before it.
    assert paste_checks(tmp_path, "```\nOLLAMA_DEBUG=1 ollama serve\n" + log + "```\n",
                        ACCESS)[ACCESS].status == "not-applicable"
    # Modelled: the same line beside a prompt that names a container keeps the container open.
    inside = "```\nroot@802f556c99c8:/# nvidia-smi -L\nollama serve\n" + log + "```\n"
    assert paste_checks(tmp_path, inside, ACCESS)[ACCESS].status != "not-applicable"
    # Modelled: started in a container by `docker exec`, the line is no host's.
    execd = "```\ndocker exec -it ollama ollama serve\n" + log + "```\n"
    assert paste_checks(tmp_path, execd, ACCESS)[ACCESS].status != "not-applicable"


def test_prompt_of_an_activated_environment_is_the_users_own_shell(tmp_path: Path) -> None:
    # Corpus 2087 (facebookresearch/deit#28): `(deit92) [user@gpuhost deit]$ NCCL_DEBUG=INFO bash train.sh`.
    result = capture_checks("2087", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    # Corpus 1775 (huggingface/text-generation-inference, real): TGI's launcher typed at a conda env's prompt; TGI's
    # own `Docker label: N/A` says the same and, the program's word, is the evidence given first.
    info = fact(pasted(body("1775")), "container")
    assert info.on_host and "Docker label: N/A" in info.evidence[0]
    # PaddlePaddle/PaddleYOLO#121 (its prompt real; the GPU line under it modelled, for a kind the paste is read as).
    info = fact(pasted("(paddle) ubuntu@ubuntu:~/data1/paddle/PaddleYOLO$ sh train.sh \n"
                       "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)\n"), "container")
    assert info.on_host and "(paddle) ubuntu@ubuntu" in info.evidence[0]
    # llm-d-incubation/llm-d-fast-model-actuation's docs (real): a venv's prompt that runs `kubectl`, the GPU a pod's.
    pods = ("(vllm) ubuntu@ip-172-31-58-228:~/llm-d-fast-model-actuation$ kubectl get po my-server-request -owide\n"
            "NAME                READY   STATUS    RESTARTS   AGE   IP           NODE               NOMINATED NODE   "
            "READINESS GATES\n"
            "my-server-request   0/1     Running   0          26s   10.0.0.233   ip-172-31-58-228   <none>           "
            "<none>\n")
    assert paste_checks(tmp_path, pods, ACCESS)[ACCESS].status != "not-applicable"
    # Corpus 1965 (a VirtualBox guest, real): the conda prompt runs `docker run`, so the engine is in a container.
    assert capture_checks("1965", ACCESS)[ACCESS].status != "not-applicable"
    # Corpus 939 (a dev container's shell, real): `(workflow) root@ip-172-31-21-250:~#` is root's, as an image's is.
    assert capture_checks("939", ACCESS)[ACCESS].status != "not-applicable"
    # Modelled: a prefix the user wrote to say where the shell is, and a container's id as the host.
    for prompt in ("(container) user@gpu-box:~$ ", "(vllm) user@802f556c99c8:/app$ "):
        text = prompt + "python3 -m vllm.entrypoints.openai.api_server --model /models/x\n"
        assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status != "not-applicable", prompt


def test_ollama_server_config_bound_to_loopback_is_the_hosts(tmp_path: Path) -> None:
    # ollama's Docker image sets OLLAMA_HOST=0.0.0.0:11434; the binary's own default is the loopback address. Real
    # server config lines bound to it: corpus 2145 (ollama/ollama#8596, WSL 2, models under /home), 1983 (#9708, as
    # root), 2025 (#6930) and 2072 (#7409), the Linux service's /usr/share/ollama.
    for prefix in ("2145", "1983", "2025", "2072"):
        assert capture_checks(prefix, ACCESS)[ACCESS].status == "not-applicable", prefix
    line = ('2025/01/26 19:39:46 routes.go:1194: INFO server config env="map[CUDA_VISIBLE_DEVICES: '
            'OLLAMA_HOST:http://127.0.0.1:11434 OLLAMA_MODELS:/home/u/.ollama/models OLLAMA_ORIGINS:[http://localhost '
            'https://localhost]]"\n'
            'time=2025-01-26T19:39:46.960+02:00 level=INFO source=routes.go:1245 msg="Listening on 127.0.0.1:11434 '
            '(version 0.5.1)"\n')
    assert paste_checks(tmp_path, line, ACCESS)[ACCESS].status == "not-applicable"
    # Modelled counter-example: the image's own 0.0.0.0 keeps where it runs open.
    image = line.replace("OLLAMA_HOST:http://127.0.0.1:11434", "OLLAMA_HOST:http://0.0.0.0:11434")
    assert paste_checks(tmp_path, image.replace("Listening on 127.0.0.1", "Listening on [::]"),
                        ACCESS)[ACCESS].status != "not-applicable"
    # Modelled: the loopback line beside a `docker exec` that names the container is the container's.
    execd = "```\ndocker exec -it ollama ollama serve\n" + line + "```\n"
    assert paste_checks(tmp_path, execd, ACCESS)[ACCESS].status != "not-applicable"


def test_engine_typed_at_a_container_prompt_whose_cuda_launched_a_kernel(tmp_path: Path) -> None:
    """Corpus 2083 (InternLM/lmdeploy#1781, both readers: ok): `lmdeploy serve` typed at the container's own prompt
    (root@a49f9772e6b2), whose TurboMind kernel CUDA refuses only for want of code for the GPU (209): the runtime had
    a context on the GPU there. Modelled: the same log under a host's prompt, or with the container's prompt typing
    something else than the engine, does not tie the launch to the container."""
    result = capture_checks("2083", ACCESS)[ACCESS]
    assert result.status == "ok"
    assert "no kernel image" in " ".join(result.evidence)
    text = body("2083")
    host_prompt = text.replace("root@a49f9772e6b2:~/model# ", "user@gpubox:~/model$ ")
    assert paste_checks(tmp_path, host_prompt, ACCESS)[ACCESS].status == "unknown"
    other = text.replace("root@a49f9772e6b2:~/model# lmdeploy", "root@a49f9772e6b2:~/model# ls\nlmdeploy")
    assert paste_checks(tmp_path, other, ACCESS)[ACCESS].status != "ok"


def test_llamafile_run_from_the_users_shell_is_on_the_host(tmp_path: Path) -> None:
    """Corpus 2217 (mozilla-ai/llamafile#273, both readers: not applicable): `llamafile -m ... --gpu nvidia`, llama.cpp
    built into one executable that its project ships with no container image, run from the user's shell. Modelled: the
    same command run by `docker exec` in a container (a community image) leaves the check open."""
    result = capture_checks("2217", ACCESS)[ACCESS]
    assert result.status == "not-applicable"
    info = fact(pasted(body("2217")), "container")
    assert info.on_host and "one executable" in info.evidence[0]
    text = body("2217").replace("llamafile -m path/to/model.llamafile",
                                "$ docker exec -it llamafile-box llamafile -m path/to/model.llamafile")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status != "not-applicable"


def test_llamafile_is_llama_cpps_engine_command() -> None:
    # Corpus 2217's command, and llamafile's README form (`./llamafile -m ... -ngl 9999`).
    for line in ("llamafile -m path/to/model.llamafile -ngl 999 --gpu nvidia -p 'This is a test'",
                 "./llamafile -m mistral-7b-instruct-v0.2.Q4_0.gguf -ngl 9999"):
        command = parse_command_line(line)
        assert command is not None and command.engine == "llamacpp", line
    # Modelled: the bare program names no model and no options.
    assert parse_command_line("llamafile") is None


@pytest.mark.parametrize(("prefix", "shown"), [
    # NVIDIA/nvtrust#52 (both readers: not applicable): sudo asks the login user h100 for a password
    ("1885", "[sudo] password for h100:"),
    # NVIDIA/open-gpu-kernel-modules#246 (both readers): the module built, installed, the boot image rebuilt, a reboot
    ("1787", "depmod -a; update-initramfs -u; reboot"),
    # NVIDIA/data-science-stack#90 (its reader: not applicable): `$ reboot` typed after the driver's install
    ("1556", "reboot"),
])
def test_the_machines_own_shell_runs_no_container(prefix: str, shown: str) -> None:
    assert capture_checks(prefix, ACCESS)[ACCESS].status == "not-applicable"
    info = fact(pasted(body(prefix)), "container")
    assert info.on_host and shown in info.evidence[0]


@pytest.mark.parametrize("line", [
    "[sudo] password for h100: ",
    "depmod -a; update-initramfs -u; reboot",
    "sudo apt install --reinstall nvidia-dkms-515 && sudo reboot",
    "sudo dracut -f",
    "grub2-mkconfig -o /boot/grub2/grub.cfg",
])
def test_machine_shell_lines(line: str) -> None:
    assert MACHINE_SHELL.search(line)


@pytest.mark.parametrize("line", [
    # Modelled: prose about a reboot, a driver container's module steps, sudo asking root's password (never asked)
    "reboot the node and it works again",
    "After a reboot the GPU is gone",
    "modprobe nvidia; depmod -a",
    "[sudo] password for root:",
])
def test_lines_that_show_no_machine_shell(line: str) -> None:
    assert not MACHINE_SHELL.search(line)


def test_a_reboot_beside_a_container_named_says_nothing(tmp_path: Path) -> None:
    # Modelled: corpus 1556's session where a command typed names a container: the reboot no longer rules it out.
    text = body("1556").replace("$ reboot", "$ docker exec -it dss bash\n$ reboot")
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status != "not-applicable"
