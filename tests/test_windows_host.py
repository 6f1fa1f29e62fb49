"""Issue 28, facts implied by the platform: a Windows host (facts/platform.py Virtualization.os, WINDOWS_LINES,
REPORT_WINDOWS, the nvidia-smi table's Driver-Model column) makes the checks of what only a Linux host has not
applicable (facts/applicability.LINUX_ONLY): DRV-PERSISTENCE, and CTR-GPU-ACCESS and KERN-CPUFREQ-GOVERNOR where no
container is shown.
WSL 2 is Linux in a Hyper-V VM: its pastes stay Linux."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.platform import Virtualization, windows_line


@pytest.mark.parametrize("line", [
    # ggml-org/llama.cpp#13612 (corpus 921)
    "built with MSVC 19.29.30159.0 for Windows AMD64",
    # corpus 612 (llama.cpp build 5109)
    "built with MSVC 19.40.33811.0 for x64",
    # ollama/ollama#11640 (corpus 927)
    r"load_backend: loaded CUDA backend from C:\Users\gianl\AppData\Local\Programs\Ollama\lib\ollama\ggml-cuda.dll",
    # ollama/ollama#6348 (corpus 928): the log doubles its backslashes
    'time=2024-08-12T20:24:12.353-06:00 level=INFO source=server.go:392 msg="starting llama server" '
    r'cmd="C:\\Users\\user\\AppData\\Local\\Programs\\Ollama\\ollama_runners\\cuda_v11.3\\ollama_llama_server.exe '
    r"--model C:\\Users\\user\\.ollama\\models\\blobs\\sha256-ff82381e2bea77d91c1b824c7afb83f6fb73e9f7de9dda631bcdbca564aa5435",
    # https://github.com/ollama/ollama/issues/10833 (the server config line, cut after OLLAMA_MODELS)
    'time=2025-05-23T16:23:12.941+02:00 level=INFO source=routes.go:1205 msg="server config" '
    r'env="map[CUDA_VISIBLE_DEVICES:0 GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: OLLAMA_MODELS:C:\\Users\\mordesku\\.ollama\\models',
    # ollama/ollama#17841 (corpus 926)
    "OS: Windows 11",
    # Modelled: torch's collect_env on Windows (its get_os reads the caption Windows gives); corpus 950's hardware list
    # line without its WSL 2
    "OS: Microsoft Windows 11 Pro",
    "- **OS:** Windows 11 Pro",
    # abetlen/llama-cpp-python#1026 (corpus 882): the user's words, a clause of a longer line
    "As you can see, the results are divided almost by 4 with each additional card I have, I am currently working with "
    "Windows 11, I don't know if the operating system has anything to do with it ",
    # ggml-org/llama.cpp#18743 (corpus 962): a batch file runs the server by its relative path
    r".\bin\llama-server.exe ^",
    # A model file on a Windows drive as the engine is given or opens it: KoboldCpp's loader line
    # (LostRuins/koboldcpp#595, lower-case drive), its parsed arguments with forward slashes (#1128, #1527) and with the
    # backslashes Python's repr repeats (#610), a --model argument and the ggml era's loader line (#290, corpus 2048)
    r"Loading model: f:\koboldcpp\sonya-7b-x8-moe.Q6_K.gguf",
    "launch=True, lora=None, mmproj=None, model='', "
    "model_param='C:/Users/Paul/Desktop/text-generation-webui-main/models/LLaMA2-13B-Tiefighter.Q4_K_S.gguf', multiuser=1",
    "model=[], model_param='C:/Users/user/.lmstudio/models/lmstudio-community/Qwen3-30B-A3B-GGUF/Qwen3-30B-A3B-Q8_0.gguf'",
    r"lora=None, model=None, model_param='C:\\\koboldcpp\\models\\testing\\kunoichi-7b.Q5_K_S.gguf', multiuser=1",
    r"koboldcpp.exe --model C:\AI\llama\Wizard-Vicuna-13B-Uncensored.ggmlv3.q5_K_M.bin --threads 14 --usecublas",
    r"llama.cpp: loading model from C:\AI\llama\Wizard-Vicuna-13B-Uncensored.ggmlv3.q5_K_M.bin",
    # ollama opens its model by its blob, with no extension: on D: (ollama/ollama#3232, corpus 2119), on L: under
    # ipex-llm's Windows build (intel/ipex-llm#12861), and quoted with doubled backslashes (ollama/ollama#9541)
    r"llama_model_loader: loaded meta data with 24 key-value pairs and 254 tensors from D:\Ollama\models\blobs\sha256-"
    "456402914e838a953e0cf80caa6adbe75383d9e63584a964f504a7bbb8f7aad9 (version GGUF V3 (latest))",
    r"llama_model_loader: loaded meta data with 27 key-value pairs and 396 tensors from L:\ollama\models\blobs\sha256-"
    "11f274007f093fefeec994a5dbbb33d0733a4feb87f7ab66dcd7c1069fef0068 (version GGUF V3 (latest))",
    r"llama_model_loader: failed to load model from C:\\Users\\Administrator\\.ollama\\models\\blobs\\sha256-"
    "26bd607a51eb1f3a0d3beac444b977e03fa745def499add60c996c08c8c2ddcd",
    # text-generation-webui opens its model by a relative path with backslashes (oobabooga/textgen#3205, corpus 2122;
    # #2046; #2020)
    r"llama.cpp: loading model from models\llama-2-13b.ggmlv3.q6_K.bin",
    r"llama.cpp: loading model from models\TheBloke_Wizard-Vicuna-13B-Uncensored-GGML\Wizard-Vicuna-13B-Uncensored"
    ".ggml.q4_0.bin",
    r"llama.cpp: loading model from models\Chinese-LLaMA-7B\ggml-model-q4_0.bin",
])
def test_lines_only_a_windows_host_prints(line: str) -> None:
    assert windows_line(line) is not None


@pytest.mark.parametrize("line", [
    # corpus 950: WSL 2 under Windows 11, the engine runs in the Linux VM
    "- **OS:** Windows 11 + WSL2 2.7.0 (pre-release), Ubuntu 22.04",
    # Modelled: llama.cpp built on Linux, ollama on Linux, a Linux path, a drive path to a folder
    "built with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu",
    "OLLAMA_MODELS:/usr/share/ollama/.ollama/models OLLAMA_MULTIUSER_CACHE:false",
    "load_backend: loaded CUDA backend from /usr/lib/ollama/libggml-cuda.so",
    r"CUDA_HOME: C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.8",
    "OS: Ubuntu 22.04.5 LTS (x86_64)",
    # corpus 721 (ollama/ollama#1666): Docker Desktop's containers run in WSL 2
    "I'm running Docker Desktop on Windows 11 with WSL2 backend on Ubuntu 22.04.03 LTS. I believe I have the correct "
    "drivers installed in Ubuntu.",
    # Modelled: a comparison, a question, a negation
    "It works on Windows 11 but not on Linux",
    "Does it run on Windows 11?",
    "I tested on Linux, not on Windows 10.",
    # Modelled: a shell under WSL 2 runs a Windows program by a forward-slash path
    "./llama-server.exe -m model.gguf",
    # Modelled: the same engines under WSL 2 or Linux (the drive as /mnt/c, a relative path), a Docker volume whose
    # one-letter name precedes a container path, a drive path that is no model file
    "Loading model: /mnt/c/koboldcpp/sonya-7b-x8-moe.Q6_K.gguf",
    "model=[], model_param='models/Qwen3-30B-A3B-Q8_0.gguf', multiuser=1",
    "docker run --gpus all -v ./m:/models/x.gguf ghcr.io/ggml-org/llama.cpp:server-cuda -m /models/x.gguf",
    r"--model C:\AI\llama\notes.txt",
    # Modelled: the same loaders on Linux (ollama's blob under /usr/share/ollama, corpus 2120's form; a relative
    # path with forward slashes, oobabooga/textgen#961's form) and a blob named without its folder
    "llama_model_loader: loaded meta data with 30 key-value pairs and 147 tensors from /usr/share/ollama/.ollama/models/"
    "blobs/sha256-74701a8c35f6c8d9a4b91f3f3497643001d63e0c7a84e085bed452548fa88d45 (version GGUF V3 (latest))",
    "llama.cpp: loading model from models/llama-2-13b.ggmlv3.q6_K.bin",
    "loaded from sha256-74701a8c35f6c8d9a4b91f3f3497643001d63e0c7a84e085bed452548fa88d45",
])
def test_lines_that_show_no_windows_host(line: str) -> None:
    assert windows_line(line) is None


@pytest.mark.parametrize("prefix", ["921", "926", "927", "928"])
def test_persistence_is_not_applicable_on_a_windows_host(prefix: str) -> None:
    """Corpus 921 (llama.cpp's MSVC build line), 926 (`OS: Windows 11`), 927 (ollama's C:\\ library paths), 928
    (ollama's Windows runner in its log): no nvidia-smi, yet a Windows host."""
    result = capture_checks(prefix, "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "not-applicable"
    assert "Windows host" in result.message and "Linux driver" in result.message


def test_gpu_access_is_not_applicable_for_a_windows_service() -> None:
    """Corpus 926: ollama runs as a Windows service under nssm; no container is shown."""
    result = capture_checks("926", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable"
    assert "no container is shown" in result.message


def test_nvidia_smi_l_at_a_windows_prompt_is_no_container_2497(tmp_path: Path) -> None:
    """Corpus 2497 (ollama/ollama#10517): `nvidia-smi -L` at PowerShell's prompt lists the GPUs of a Windows host
    whose ollama runs natively: no container, so its listing proves no container's access. Modelled: the same listing
    at a Linux prompt keeps its ok."""
    result = capture_checks("2497", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable" and "no container is shown" in result.message
    linux = ("$ nvidia-smi -L\nGPU 0: Quadro M5000 (UUID: GPU-8c1fc6fe-a2c4-dd9a-559c-4f58836fd385)\n"
             "GPU 1: NVIDIA RTX A2000 12GB (UUID: GPU-962a842b-b382-6457-65a1-3cffec62ba6f)\n")
    assert paste_checks(tmp_path, linux, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"


def test_cpufreq_governor_is_not_applicable_on_a_windows_host(tmp_path: Path) -> None:
    """Corpus 1282 (llama.cpp `built with clang ... for x86_64-pc-windows-msvc`, `llama-server.exe`): Windows has no
    Linux cpufreq governor; modelled: a docker run beside it keeps the question open (WSL 2's Linux VM)."""
    result = capture_checks("1282", "KERN-CPUFREQ-GOVERNOR")["KERN-CPUFREQ-GOVERNOR"]
    assert result.status == "not-applicable"
    assert "Windows host" in result.message and "cpufreq" in result.message
    text = body("1282") + "\ndocker run -d --gpus=all -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda\n"
    assert paste_checks(tmp_path, text, "KERN-CPUFREQ-GOVERNOR")["KERN-CPUFREQ-GOVERNOR"].status == "unknown"


def test_the_windows_driver_model_and_a_check_env_say_windows() -> None:
    """Corpus 918 (WDDM in the nvidia-smi table) and 160 (lmdeploy check_env's `sys.platform: win32`)."""
    for prefix, why in (("918", "Driver-Model column reads WDDM"), ("160", "sys.platform: win32")):
        virt = fact(pasted(body(prefix)), "virtualization")
        assert isinstance(virt, Virtualization) and virt.windows and why in virt.source
        assert not virt.is_vm and virt.vm == ""


@pytest.mark.parametrize("prefix", ["170", "950"])
def test_wsl_stays_a_linux_vm(prefix: str) -> None:
    """Corpus 170 and 950: hardware lists that name Windows 11 beside WSL 2: the engine runs in the Linux VM."""
    virt = fact(pasted(body(prefix)), "virtualization")
    assert isinstance(virt, Virtualization) and virt.vm == "microsoft" and not virt.windows


def test_a_container_on_windows_keeps_gpu_access_open(tmp_path: Path) -> None:
    """Modelled: Docker Desktop on a Windows host (a C:\\ path beside a docker run): the container runs in WSL 2, so
    CTR-GPU-ACCESS is judged, not ruled out; DRV-PERSISTENCE still is."""
    text = ("PS C:\\Users\\me> docker run -d --gpus=all -v ollama:/root/.ollama -p 11434:11434 --name ollama "
            "ollama/ollama\n"
            "load_backend: loaded CUDA backend from C:\\Users\\me\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\"
            "ggml-cuda.dll\n")
    results = paste_checks(tmp_path, text, "CTR-GPU-ACCESS", "DRV-PERSISTENCE")
    assert results["CTR-GPU-ACCESS"].status != "not-applicable"
    assert results["DRV-PERSISTENCE"].status == "not-applicable"


def test_a_linux_ollama_log_rules_nothing_out(tmp_path: Path) -> None:
    """Modelled: corpus 927's ollama lines from a Linux install (its libraries under /usr/lib/ollama): persistence mode
    stays a question, and the container's GPU access is judged from CUDA at work, not ruled out as on Windows."""
    windows = "C:\\Users\\gianl\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\"
    text = body("927").replace(windows + "ggml-cuda.dll", "/usr/lib/ollama/libggml-cuda.so").replace(
        windows + "ggml-cpu-alderlake.dll", "/usr/lib/ollama/libggml-cpu-alderlake.so")
    assert "C:" not in text
    results = paste_checks(tmp_path, text, "DRV-PERSISTENCE", "CTR-GPU-ACCESS")
    assert results["DRV-PERSISTENCE"].status == "unknown"
    assert results["CTR-GPU-ACCESS"].status == "ok" and "wherever it runs" in results["CTR-GPU-ACCESS"].message


def test_fw_vm_of_a_windows_host_with_one_gpu_is_not_an_issue() -> None:
    """Corpus 1288 (a Windows Server's L40S in TCC): Windows says nothing of whether the host is itself a VM, but with
    one GPU there is no GPU pair a VM could cost (h97a; two GPUs stay unknown, tests/test_fw_vm_remoting.py)."""
    result = capture_checks("1288", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "Windows host" in result.message and "one GPU" in result.message


def test_fw_vm_of_a_windows_laptop_is_not_an_issue() -> None:
    """Corpus 918 (an RTX A500 Laptop GPU under Windows, h68f): a laptop holds one discrete GPU, so whether Windows
    runs bare or the engine in WSL 2 on it, no GPU pair is there for a VM to hide."""
    result = capture_checks("918", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "Windows host" in result.message and "laptop" in result.message


# https://github.com/SystemPanic/vllm-windows/issues/24: vLLM's collect_env on Windows, whose OS line could not be
# collected; Python's platform names Windows.
WINDOWS_COLLECT_ENV = """\
Collecting environment information...
==============================
        System Info
==============================
OS                           : Could not collect
GCC version                  : Could not collect
Clang version                : Could not collect
CMake version                : Could not collect
Libc version                 : N/A

==============================
       PyTorch Info
==============================
PyTorch version              : 2.7.1+cu126
Is debug build               : False
CUDA used to build PyTorch   : 12.6
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.12.0 (tags/v3.12.0:0fb18b0, Oct  2 2023, 13:03:39) [MSC v.1935 64 bit (AMD64)] (64-bit runtime)
Python platform              : Windows-11-10.0.26100-SP0

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : 13.0.88
CUDA_MODULE_LOADING set to   : LAZY
GPU models and configuration : GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU
Nvidia driver version        : 555.97
cuDNN version                : Could not collect
"""


def test_collect_envs_python_platform_says_windows() -> None:
    virt = fact(pasted(WINDOWS_COLLECT_ENV), "virtualization")
    assert isinstance(virt, Virtualization) and virt.windows
    assert "Windows-11-10.0.26100-SP0" in virt.source


# WSL 2's `nvidia-smi -a` also reports the WDDM driver model (https://github.com/NVIDIA/nvidia-docker/issues/1604) and
# lists Windows processes by their C:\\ paths (https://github.com/NVIDIA/nvidia-docker/issues/1458): modelled, the
# first's GPU section up to its VBIOS line joined to one process entry of the second.
WSL_NVIDIA_SMI_Q = r"""$ nvidia-smi -a

==============NVSMI LOG==============

Timestamp                                 : Thu Feb  3 13:18:48 2022
Driver Version                            : 510.06
CUDA Version                              : 11.6

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : NVIDIA GeForce GTX 1650 Ti with Max-Q Design
    Product Brand                         : GeForce
    Product Architecture                  : Turing
    Display Mode                          : Enabled
    Display Active                        : Enabled
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : Disabled
    Accounting Mode Buffer Size           : 4000
    Driver Model
        Current                           : WDDM
        Pending                           : WDDM
    Serial Number                         : N/A
    GPU UUID                              : GPU-b5e386b4-3e71-5837-aca5-80c5914cf07f
    Minor Number                          : N/A
    VBIOS Version                         : 90.17.41.00.46
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 2936
            Type                          : C+G
            Name                          : C:\Windows\SystemApps\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\TextInputHost.exe
            Used GPU Memory               : Not available in WDDM driver model
"""


def test_wsls_nvidia_smi_q_is_no_windows_host(tmp_path: Path) -> None:
    """The nvidia-smi -q lines are that output's own: neither its Driver Model nor a process's C:\\ path is read as
    Windows, and DRV-PERSISTENCE reads its Persistence Mode."""
    virt = fact(pasted(WSL_NVIDIA_SMI_Q), "virtualization")
    assert not (isinstance(virt, Virtualization) and virt.windows)
    assert paste_checks(tmp_path, WSL_NVIDIA_SMI_Q, "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "ok"


def test_one_windows_line_is_recorded_and_the_machines_words_still_are() -> None:
    """Modelled: llama.cpp's backend lines (corpus 927's form), one per library, before the user's GPU count: the
    first says Windows, the others take none of the lines the machine's words are read from."""
    from stackaudit.importers.prose_machine import MAX_LINES

    libraries = "".join(f"load_backend: loaded CPU backend from C:\\Users\\me\\llama\\ggml-cpu-{i}.dll\n"
                        for i in range(MAX_LINES + 5))
    host = pasted(libraries + "The server has 8 x A100 GPUs\n")
    virt = fact(host, "virtualization")
    assert isinstance(virt, Virtualization) and virt.windows and "ggml-cpu-0.dll" in virt.source
    assert fact(host, "gpus").count == 8


def test_a_batch_files_command_shows_a_windows_host_to_the_module_check() -> None:
    # corpus 962 (ggml-org/llama.cpp#18743): Kepler cards listed by ggml_cuda_init under a Windows batch file; the
    # pre-Turing rule (the proprietary module) must not speak of a Linux module that is not there.
    r = capture_checks("962", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "not-applicable" and "a Windows host" in r.message, r.message
    # corpus 961 (Linux, a GTX 1080 Ti): the same rule still speaks.
    assert capture_checks("961", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == "ok"


def test_koboldcpps_model_on_a_windows_drive_rules_out_linux_only_checks(tmp_path: Path) -> None:
    """LostRuins/koboldcpp#1128's parsed arguments (cut), alone: KoboldCpp opens its model on C:, so the host is
    Windows; modelled: the same line with a /mnt/c path (WSL 2) rules nothing out."""
    line = ("Namespace(gpulayers=41, highpriority=False, model='', "
            "model_param='C:/Users/Paul/Desktop/models/LLaMA2-13B-Tiefighter.Q4_K_S.gguf', multiuser=1)\n")
    ids = "CTR-GPU-ACCESS,DRV-PERSISTENCE,DRV-OPEN-MODULE"
    got = paste_checks(tmp_path, line, *ids.split(","))
    assert {k: r.status for k, r in got.items()} == dict.fromkeys(ids.split(","), "not-applicable")
    assert "a model loaded from a Windows path" in got["DRV-PERSISTENCE"].message
    wsl = paste_checks(tmp_path, line.replace("C:/", "/mnt/c/"), *ids.split(","))
    assert all(r.status != "not-applicable" for r in wsl.values())


@pytest.mark.parametrize("prefix", ["2119", "2122"])
def test_a_model_opened_by_a_windows_path_rules_out_linux_only_checks(prefix: str) -> None:
    """Corpus 2119 (ollama's blob on D:) and 2122 (text-generation-webui's `models\\x.bin`): Windows programs, in no
    container, with no persistence mode to set."""
    got = capture_checks(prefix, "CTR-GPU-ACCESS", "DRV-PERSISTENCE")
    assert {k: r.status for k, r in got.items()} == dict.fromkeys(("CTR-GPU-ACCESS", "DRV-PERSISTENCE"),
                                                                  "not-applicable")
    assert "a model loaded from a Windows path" in got["DRV-PERSISTENCE"].message


@pytest.mark.parametrize(("line", "windows"), [
    # corpus 2194 (ollama/ollama#11577) and 1476: ollama's Windows-only source file, which Go builds into a Windows
    # binary alone
    ('time=2025-07-30T13:57:36.458+08:00 level=INFO source=gpu_windows.go:167 msg=packages count=2', True),
    ('time=2025-03-09T16:19:33.962+08:00 level=INFO source=gpu_windows.go:214 msg="" package=0 cores=8 efficiency=0 '
     'threads=16', True),
    # Modelled: the same server's lines from its Linux build (gpu.go, amd_linux.go) and a Go file merely named
    ('time=2025-07-30T13:57:36.458+08:00 level=INFO source=gpu.go:217 msg="looking for compatible GPUs"', False),
    ('time=2025-07-30T13:57:36.458+08:00 level=WARN source=amd_linux.go:61 msg="ollama recommends running the '
     'https://www.amd.com/en/support/linux-drivers"', False),
    ("I read discover/gpu_windows.go to see how it counts packages", False),
])
def test_an_engines_windows_only_source_shows_a_windows_host(line: str, windows: bool) -> None:
    assert (windows_line(line) is not None) is windows


@pytest.mark.parametrize("prefix", ["2194", "1476"])
def test_ollama_logging_from_its_windows_sources_is_in_no_container(prefix: str, tmp_path: Path) -> None:
    """Corpus 2194 (both readers: not applicable) and 1476: ollama's discovery logs from gpu_windows.go, so it runs as
    a Windows program; its CUDA at work no longer reads as a container's access. Modelled: a `docker run` of ollama
    beside the same lines keeps the check open (Docker Desktop runs containers in WSL 2)."""
    result = capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable"
    assert "only an engine's native Windows build logs" in result.message
    text = "docker run -d --gpus=all -p 11434:11434 --name ollama ollama/ollama\n" + body(prefix)
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "not-applicable"


@pytest.mark.parametrize(("line", "windows"), [
    # corpus 2233 (oobabooga/textgen#2923): text-generation-webui's traceback from a K: drive
    (r'  File "K:\text-generation-webui\text-generation-webui\server.py", line 67, in load_model_wrapper', True),
    # Modelled: torch's own file in a Windows Python's site-packages
    (r'  File "C:\Users\me\AppData\Local\Programs\Python\Python310\lib\site-packages\torch\cuda\__init__.py", '
     "line 247, in _lazy_init", True),
    # Modelled: the same frame under WSL 2 (the drive as /mnt/k) and on Linux
    ('  File "/mnt/k/text-generation-webui/text-generation-webui/server.py", line 67, in load_model_wrapper', False),
    ('  File "/home/me/text-generation-webui/server.py", line 67, in load_model_wrapper', False),
])
def test_a_python_file_on_a_windows_drive_shows_a_windows_host(line: str, windows: bool) -> None:
    assert (windows_line(line) is not None) is windows


def test_a_traceback_from_a_windows_drive_is_in_no_container(tmp_path: Path) -> None:
    """Corpus 2233 (both readers: not applicable): text-generation-webui's traceback runs from K:\\, a native Windows
    program. Modelled: the same paste with the drive as WSL 2 mounts it (/mnt/k) stays open."""
    result = capture_checks("2233", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "not-applicable"
    assert "Python file path" in result.message
    text = body("2233").replace("K:\\", "/mnt/k/").replace("\\", "/")
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "not-applicable"


@pytest.mark.parametrize(("line", "windows"), [
    # corpus 2321 (ollama/ollama, a comment): the user's words name bare Windows
    ("Same issue with **RTX 4070** + Intel UHD on Windows, Ollama 0.30.6.", True),
    # corpus 1177 (another thread): the same words before the Windows driver's nvidia-smi
    ("When I run it on Windows, I get:", True),
    # Modelled: Windows' names for WSL and its terminal, Docker Desktop's WSL 2 backend, a comparison
    ("I am running it on Windows Subsystem for Linux", False),
    ("I run the commands using Windows Terminal", False),
    ("I use ollama on Windows Docker Desktop", False),
    ("It works on Windows but not on Linux", False),
])
def test_the_users_words_naming_bare_windows(line: str, windows: bool) -> None:
    assert (windows_line(line) is not None) is windows


def test_persistence_is_not_applicable_where_the_user_names_windows_2321() -> None:
    result = capture_checks("2321", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "not-applicable" and "on Windows" in result.message


def test_persistence_is_not_applicable_under_wsl2_2328(tmp_path: Path) -> None:
    """Corpus 2328: `616.92, CUDA 13.4, Windows 11,  WSL2-Docker`, no nvidia-smi: WSL 2's VM runs no Linux driver."""
    result = capture_checks("2328", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "not-applicable" and "WSL 2" in result.message and "Linux driver" in result.message
    # Corpus 376 (another thread): a WSL 2 nvidia-smi's Persistence-M column is read by the check itself.
    assert capture_checks("376", "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "ok"
    # Modelled: the same list on a Linux host leaves it open; WSL 2 rules out no other Linux-only check.
    text = body("2328").replace("Windows 11,  WSL2-Docker", "Ubuntu 24.04, Docker")
    assert paste_checks(tmp_path, text, "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "unknown"
    assert capture_checks("2328", "KERN-CPUFREQ-GOVERNOR")["KERN-CPUFREQ-GOVERNOR"].status == "unknown"
