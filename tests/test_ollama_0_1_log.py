"""ollama's log before 0.1.29 (issue 28, corpus 1676).

- Releases before slog (0.1.x to 0.1.22) wrote Go's standard `log` format with the file name: `2024/01/13 16:01:14
  gpu.go:94: Nvidia GPU detected`. A line of ollama's own source files is its server log
  (facts/serving_logs.OLLAMA_GO_LINE): the engine shown is ollama. Releases of January 2024 wrote slog's
  `source=` as a build path (`source=/go/src/github.com/jmorganca/ollama/...`), read as today's lines are.
- Its start line's release (`Listening on 127.0.0.1:11434 (version 0.1.20)`) is ollama's release
  (facts/ollama_cli.ollama_shown_from_log), in either format.
- The NVML library its probe names (`Discovered GPU libraries: [/usr/lib64/libnvidia-ml.so.545.29.06]`) carries the
  driver's version, read only where `Nvidia GPU detected` says NVML answered and no line says the library was refused
  (facts/nvidia.driver_from_engine_log).
- Its words for no GPU (`routes.go:953: no GPU detected`) and for the CPU library (`llm.go:70: GPU not available,
  falling back to CPU`, `skipping accelerated runner because num_gpu=0`) are the symptoms today's words are.
- bash's prompt without `user@` (`ilovepumpkin:Downloads$ ollama serve`) is a prompt before the commands a `# cmd`
  prompt takes (importers/_paste._NAME_DIR_PROMPT).

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted, symptom_names
from stackaudit.facts.nvidia import NvidiaDriver
from stackaudit.facts.ollama_cli import OllamaShown
from stackaudit.facts.serving_logs import ServingLog, is_log_line
from stackaudit.importers._paste import strip_prompt_line

# https://github.com/ollama/ollama/issues/1979 (comment by Q-point, 2024-01-20): 0.1.20 on a Jetson AGX Orin, whose
# JetPack has no NVML library (the user's bold marks around the last line left out).
JETSON_1979 = """~$ LD_LIBRARY_PATH=/usr/local/cuda/lib64 ollama serve
2024/01/19 21:25:40 images.go:808: total blobs: 8
2024/01/19 21:25:40 images.go:815: total unused blobs removed: 0
2024/01/19 21:25:40 routes.go:930: Listening on 127.0.0.1:11434 (version 0.1.20)
2024/01/19 21:25:41 shim_ext_server.go:142: Dynamic LLM variants [cuda]
2024/01/19 21:25:41 gpu.go:88: Detecting GPU type
2024/01/19 21:25:41 gpu.go:203: Searching for GPU management library libnvidia-ml.so
2024/01/19 21:25:41 gpu.go:248: Discovered GPU libraries: []
2024/01/19 21:25:41 gpu.go:203: Searching for GPU management library librocm_smi64.so
2024/01/19 21:25:41 gpu.go:248: Discovered GPU libraries: []
2024/01/19 21:25:41 routes.go:953: no GPU detected
"""
# https://github.com/ollama/ollama/issues/1992 (issue body by tlaanemaa, 2024-01-14): 0.1.20 in Docker on a GTX 970,
# which that release's CUDA build passes over.
TOO_OLD_1992 = """2024/01/14 19:50:06 gpu.go:88: Detecting GPU type
2024/01/14 19:50:06 gpu.go:203: Searching for GPU management library libnvidia-ml.so
2024/01/14 19:50:06 gpu.go:248: Discovered GPU libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1]
2024/01/14 19:50:06 gpu.go:94: Nvidia GPU detected
2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2
2024/01/14 19:50:06 routes.go:953: no GPU detected
"""
# https://github.com/ollama/ollama/issues/1941 (issue body by tylertitsworth, 2024-01-11): 0.1.20 loading its CPU
# library (the library's failure after it left out).
CPU_1941 = """2024/01/11 23:56:32 cpu_common.go:11: CPU has AVX2
2024/01/11 23:56:32 llm.go:70: GPU not available, falling back to CPU
2024/01/11 23:56:32 dyn_ext_server.go:384: Updating LD_LIBRARY_PATH to /tmp/ollama168465594/cpu_avx2:/usr/local/nvidia/lib:/usr/local/nvidia/lib64
"""
# https://github.com/ollama/ollama/issues/1317 (issue body by grigio, 2023-11-29): 0.1.12 under docker compose, its
# container given no GPU.
COMPOSE_1317 = """ollama        | 2023/11/29 16:18:06 routes.go:777: Listening on [::]:11434 (version 0.1.12)
ollama        | 2023/11/29 16:18:06 routes.go:797: warning: gpu support may not be enabled, check that you have installed GPU drivers: nvidia-smi command failed
ollama        | 2023/11/29 16:18:28 llama.go:390: skipping accelerated runner because num_gpu=0
ollama        | 2023/11/29 16:18:28 llama.go:421: starting llama runner
"""
# https://github.com/ollama/ollama/issues/2502 (comment by abysssol, 2024-02-14): 0.1.25 on NixOS, whose NVML library
# of 545.29.06 the loaded kernel module refuses (NVML's error 18, a driver/library version mismatch); the second line
# as the thread's pastebin copy carries it, cut where the excerpt cuts it, closed with its error.
REFUSED_2502 = """time=2024-02-14T14:14:21.459-05:00 level=INFO source=routes.go:1014 msg="Listening on 127.0.0.1:11434 (version 0.1.25)"
time=2024-02-14T14:14:24.485-05:00 level=INFO source=gpu.go:308 msg="Discovered GPU libraries: [/nix/store/z6557r7pgvmxr9x16a4ffazly8dflh65-nvidia-x11-545.29.06-6.1.77/lib/libnvidia-ml.so.545.29.06]"
time=2024-02-14T14:14:24.503-05:00 level=INFO source=gpu.go:320 msg="Unable to load CUDA management library /nix/store/z6557r7pgvmxr9x16a4ffazly8dflh65-nvidia-x11-545.29.06-6.1.77/lib/libnvidia-ml.so.545.29.06: nvml vram init failure: 18"
"""
# https://github.com/ollama/ollama/issues/1939 (comment by otavio-silva, 2024-01-19): 0.1.21-rc2's slog lines, whose
# source is the build path.
BUILD_PATH_1939 = """time=2024-01-19T21:33:34.130Z level=INFO source=/go/src/github.com/jmorganca/ollama/server/images.go:810 msg="total blobs: 31"
time=2024-01-19T21:33:34.516Z level=INFO source=/go/src/github.com/jmorganca/ollama/server/routes.go:943 msg="Listening on [::]:11434 (version 0.1.21-rc2)"
"""


def test_go_log_lines_are_ollamas_server_log() -> None:
    log = fact(pasted(JETSON_1979), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "ollama"
    shown = fact(pasted(JETSON_1979), "ollama_shown")
    assert isinstance(shown, OllamaShown) and shown.release == "0.1.20"
    assert shown.release_from == "its server's log"


def test_a_compose_prefix_keeps_the_line_ollamas() -> None:
    assert all(is_log_line(line) for line in COMPOSE_1317.splitlines())
    shown = fact(pasted(COMPOSE_1317), "ollama_shown")
    assert isinstance(shown, OllamaShown) and shown.release == "0.1.12"


def test_slog_source_as_a_build_path() -> None:
    log = fact(pasted(BUILD_PATH_1939), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "ollama"
    shown = fact(pasted(BUILD_PATH_1939), "ollama_shown")
    assert isinstance(shown, OllamaShown) and shown.release == "0.1.21-rc2"


def test_another_go_programs_line_is_not_ollamas() -> None:
    # Modelled: Go's log format from a program's own main.go, and a port that is not ollama's in prose.
    assert not is_log_line("2024/01/13 16:01:14 main.go:42: starting exporter on :9400")
    assert not is_log_line("2024/01/13 16:01:14 Listening on 127.0.0.1:11434 (version 0.1.20)")


def test_nvml_library_that_answered_is_the_driver_1676() -> None:
    driver = fact(pasted(body("1676")), "nvidia_driver")
    assert isinstance(driver, NvidiaDriver) and driver.version == "545.29.06" and driver.loaded


def test_1676_reads_as_an_expert_does() -> None:
    results = capture_checks("1676", "DRV-CUDA-COMPAT", "CTR-GPU-ACCESS", "DRV-XID")
    compat = results["DRV-CUDA-COMPAT"]
    assert compat.status == "ok", compat.message
    assert "545.29.06" in compat.message and "ollama 0.1.20 (its server's log)" in compat.message
    # `ollama serve` typed at bash's prompt without `user@` (line 3): the server started by hand on the host.
    assert results["CTR-GPU-ACCESS"].status == "not-applicable", results["CTR-GPU-ACCESS"].message
    assert results["DRV-XID"].status == "unknown"


def test_a_refused_nvml_library_names_no_driver() -> None:
    assert not isinstance(fact(pasted(REFUSED_2502), "nvidia_driver"), NvidiaDriver)


# https://github.com/ollama/ollama/issues/4216 (ru4en): 0.1.28 in Docker, NVML refusing with its unknown error 999.
REFUSED_999_4216 = """time=2024-05-06T23:50:09.247Z level=INFO source=gpu.go:237 msg="Discovered GPU libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.78]"
time=2024-05-06T23:50:09.255Z level=INFO source=gpu.go:249 msg="Unable to load CUDA management library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.78: nvml vram init failure: 999"
"""
# https://github.com/ollama/ollama/issues/1877 (comment by Wanhack, 2024-03-11), whose nvidia-smi reads 550.54.14.
REFUSED_999_1877 = """ time=2024-03-11T13:14:33.739Z level=INFO source=gpu.go:237 msg="Discovered GPU libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14]"
 time=2024-03-11T13:14:33.744Z level=INFO source=gpu.go:249 msg="Unable to load CUDA management library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14: nvml vram init failure: 999
"""


def test_a_library_refused_but_not_for_its_version_is_the_installed_driver() -> None:
    for text, version in ((REFUSED_999_4216, "550.78"), (REFUSED_999_1877, "550.54.14")):
        driver = fact(pasted(text), "nvidia_driver")
        assert isinstance(driver, NvidiaDriver) and driver.version == version, text
        assert driver.loaded is None


def test_corpus_2178_a_cuda_11_runner_on_the_installed_550_driver() -> None:
    # Corpus 2178 (ollama/ollama#3024): 0.1.28's cuda_v11 runner, libnvidia-ml.so.550.54.14 refused with 999.
    compat = capture_checks("2178", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status == "ok" and "550.54.14" in compat.message, compat.message


def test_a_found_library_without_nvml_answering_names_no_driver() -> None:
    # Modelled: 1676's probe cut after the library's line, before `Nvidia GPU detected`.
    text = ("2024/01/13 16:01:14 gpu.go:203: Searching for GPU management library libnvidia-ml.so\n"
            "2024/01/13 16:01:14 gpu.go:248: Discovered GPU libraries: [/usr/lib64/libnvidia-ml.so.545.29.06]\n")
    assert not isinstance(fact(pasted(text), "nvidia_driver"), NvidiaDriver)


def test_two_library_versions_name_no_one_driver() -> None:
    # Modelled: a stale library of an older driver left beside the new one.
    text = ("2024/01/13 16:01:14 gpu.go:248: Discovered GPU libraries: [/usr/lib/libnvidia-ml.so.535.129.03 "
            "/usr/lib64/libnvidia-ml.so.545.29.06]\n2024/01/13 16:01:14 gpu.go:94: Nvidia GPU detected\n")
    assert not isinstance(fact(pasted(text), "nvidia_driver"), NvidiaDriver)


def test_wsl_library_without_a_version_names_no_driver() -> None:
    assert not isinstance(fact(pasted(TOO_OLD_1992), "nvidia_driver"), NvidiaDriver)


def test_no_gpu_words_of_0_1() -> None:
    assert "ollama-no-gpu" in symptom_names(JETSON_1979)
    # A GPU passed over as too old is no GPU withheld: the probe's words are vetoed.
    assert not {"ollama-no-gpu", "ollama-no-gpu-in-container"} & set(symptom_names(TOO_OLD_1992))
    assert {"ollama-no-gpu-in-container", "ollama-cpu-runner"} <= set(symptom_names(COMPOSE_1317))
    # https://github.com/ollama/ollama/issues/2502 (comment by DaKingof, 2024-03-12): 0.1.28's slog form.
    assert "ollama-no-gpu" in symptom_names(
        'time=2024-03-12T18:18:19.586-04:00 level=INFO source=routes.go:1044 msg="no GPU detected"\n')
    # Modelled: another program's words.
    assert "ollama-no-gpu" not in symptom_names("torch: no GPU detected, running on CPU\n")


def test_cpu_library_words_of_0_1() -> None:
    assert "ollama-cpu-runner" in symptom_names(CPU_1941)
    # Modelled: the CUDA library loaded is no CPU runner.
    assert "ollama-cpu-runner" not in symptom_names(
        "2024/01/20 10:00:00 dyn_ext_server.go:90: Loading Dynamic llm server: /tmp/ollama1/cuda_v11/libext_server.so\n")
    assert "ollama-cpu-runner" in symptom_names(
        "2024/01/20 10:00:00 dyn_ext_server.go:90: Loading Dynamic llm server: /tmp/ollama1/cpu_avx2/libext_server.so\n")


def test_jetson_on_a_bare_host_is_no_container_fault(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, JETSON_1979, "CTR-GPU-ACCESS", "DRV-CUDA-COMPAT")
    assert results["CTR-GPU-ACCESS"].status != "issue", results["CTR-GPU-ACCESS"].message
    assert results["DRV-CUDA-COMPAT"].status == "unknown", results["DRV-CUDA-COMPAT"].message


def test_name_dir_prompt() -> None:
    assert strip_prompt_line("ilovepumpkin:Downloads$ ollama serve") == "ollama serve"
    assert strip_prompt_line("box:~$ nvidia-smi") == "nvidia-smi"
    # Modelled: `word:word$ ` before anything else is text, not a prompt.
    assert strip_prompt_line("price:total$ 40 per hour") is None


def test_nvml_driver_version_of_0_1_is_no_cuda_version() -> None:
    # https://github.com/ollama/ollama/issues/2573 (comment by banias, 2024-02-19): 0.1.2x's debug probe prints NVML's
    # driver version under the words today's prints the driver's CUDA under.
    text = "dlsym: nvmlDeviceGetBrand\nCUDA driver version: 546.01\n[0] CUDA device name: NVIDIA GeForce RTX 3060\n"
    assert fact(pasted(text), "ollama_cuda").__class__.__name__ == "Missing"


# ollama 0.1's probe reports the lowest compute capability of its GPUs (gpu_info_nvml.c: "Report the lowest
# major.minor we detect"): one GPU of that capability.
def test_lowest_capability_of_0_1_names_one_gpu_2026() -> None:
    # Real: corpus 2026 (ollama/ollama#1663, Go's log format).
    gpus = fact(pasted("2024/01/29 19:35:56 gpu.go:99: INFO Nvidia GPU detected\n"
                       "2024/01/29 19:35:56 gpu.go:140: INFO CUDA Compute Capability detected: 8.6\n"), "gpus")
    assert gpus.models == {0: "GPU of compute capability 8.6"}
    assert gpus.partial and "lowest" in gpus.partial[0][1]


def test_lowest_capability_in_slog_and_too_old_words() -> None:
    # Real: ollama/ollama#2445 (slog, 0.1.24, WSL) and #1992 (0.1.20, a GTX 970 below ollama's minimum).
    slog = ('time=2024-02-11T11:04:54.307+05:30 level=INFO source=gpu.go:146 '
            'msg="CUDA Compute Capability detected: 7.5"\n')
    assert fact(pasted(slog), "gpus").models == {0: "GPU of compute capability 7.5"}
    old = ("2024/01/14 19:50:06 gpu.go:94: Nvidia GPU detected\n2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. "
           "Falling back to CPU mode. Compute Capability detected: 5.2\n")
    assert fact(pasted(old), "gpus").models == {0: "GPU of compute capability 5.2"}


def test_bogus_capability_names_no_gpu() -> None:
    # Modelled on ollama/ollama#4708 (an A100 vGPU reported as capability 1.0): no GPU of today's CUDA is 1.x.
    text = "2024/05/29 10:00:00 gpu.go:140: INFO CUDA Compute Capability detected: 1.0\n"
    assert fact(pasted(text), "gpus").__class__.__name__ == "Missing"


def test_2026_mig_and_fabric_manager_are_not_applicable() -> None:
    results = capture_checks("2026", "MEM-MIG", "DRV-FABRIC-MANAGER")
    assert results["MEM-MIG"].status == "not-applicable"
    assert "compute capability 8.6" in results["MEM-MIG"].message
    assert results["DRV-FABRIC-MANAGER"].status == "not-applicable"


def test_modelled_lowest_capability_of_hopper_leaves_mig_open() -> None:
    # Modelled: capability 9.0 holds MIG parts (H100), so the GPU named by it decides nothing.
    text = ("2024/01/29 19:35:56 gpu.go:99: INFO Nvidia GPU detected\n"
            "2024/01/29 19:35:56 gpu.go:140: INFO CUDA Compute Capability detected: 9.0\n")
    from stackaudit.engine.testing import run_checks
    assert run_checks(pasted(text), ["MEM-MIG"])["MEM-MIG"].status == "unknown"
