"""The consoles of servers whose lines no other reader knows (facts/serving_logs.ENGINE_CONSOLES): KoboldCpp's start
(its banner, the backend library it loads, its argparse Namespace), Xinference's log lines, TGI's launcher lines and LocalAI's zerolog lines. A
paste of them is read as a server log (not refused), names its engine, and gives what it proves: KoboldCpp's `.dll`
backend a Windows host, Xinference's launch on one GPU index a model on one GPU, TGI's `num_shard` its TP size,
lmdeploy's engine config (`tp=2`) and TurboMind's model config under its log line (`tensor_para_size = 2`) its TP size.

Real lines are corpus captures (1498, 1499) or quoted verbatim from the public threads named beside them;
counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, capture_report, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import console_engine, is_log_line
from stackaudit.importers.recognition import recognise

# https://github.com/LostRuins/koboldcpp/issues/595 (comment by Vladonai, 2024-01-02): KoboldCpp 1.54 on Windows.
KOBOLD_595 = """\
f:\\koboldcpp>koboldcpp.exe --usecublas lowvram --contextsize 4096 --blasbatchsize 512 --gpulayers 15 --threads 9 --highpriority --model sonya-7b-x8-moe.Q6_K.gguf

Welcome to KoboldCpp - Version 1.54
Setting process to Higher Priority - Use Caution
High Priority for Windows Set: Priority.NORMAL_PRIORITY_CLASS to Priority.HIGH_PRIORITY_CLASS
Attempting to use CuBLAS library for faster prompt ingestion. A compatible CuBLAS will be required.
Initializing dynamic library: koboldcpp_cublas.dll
==========
Namespace(bantokens=None, blasbatchsize=512, blasthreads=9, config=None, contextsize=4096, debugmode=0, forceversion=0, foreground=False, gpulayers=15, highpriority=True, hordeconfig=None, host='', launch=False, lora=None, model='sonya-7b-x8-moe.Q6_K.gguf', model_param='sonya-7b-x8-moe.Q6_K.gguf', multiuser=0, noavx2=False, noblas=False, nommap=False, noshift=False, onready='', port=5001, port_param=5001, preloadstory='', quiet=False, remotetunnel=False, ropeconfig=[0.0, 10000.0], skiplauncher=False, smartcontext=False, ssl=None, tensor_split=None, threads=9, useclblast=None, usecublas=['lowvram'], usemlock=False)
==========
Loading model: f:\\koboldcpp\\sonya-7b-x8-moe.Q6_K.gguf
[Threads: 9, BlasThreads: 9, SmartContext: False, ContextShift: True]

The reported GGUF Arch is: llama
"""
# https://github.com/LostRuins/koboldcpp/issues/1364 (the issue body by lovenemesis, 2025-02-10): KoboldCpp 1.83.1 on
# Linux with its Vulkan backend: the banner alone, no Windows library.
KOBOLD_1364 = """\
$ /usr/local/bin/koboldcpp --model DeepSeek-R1-Distill-Qwen-7B-Q5_K_M.gguf --usevulkan --gpulayers -1 --skiplauncher --contextsize 12288 --quiet
***
Welcome to KoboldCpp - Version 1.83.1
Loading Chat Completions Adapter: /tmp/_MEIwREyY8/kcpp_adapters/AutoGuess.json
Chat Completions Adapter Loaded
Unable to detect VRAM, please set layers manually.
Auto Recommended GPU Layers: 31
"""
# https://github.com/xorbitsai/inference/issues/1817 (comment by zhaozhizhuo, 2024-07-09): Xinference's start with
# debug logging, no model launched yet.
XINFERENCE_1817 = """\
2024-07-09 11:20:08,972 xinference.core.supervisor 2506636 INFO     Xinference supervisor 127.0.0.1:26637 started
2024-07-09 11:20:09,013 xinference.core.worker 2506636 INFO     Starting metrics export server at 127.0.0.1:None
2024-07-09 11:20:09,016 xinference.core.worker 2506636 INFO     Checking metrics export server...
2024-07-09 11:20:11,620 xinference.core.worker 2506636 INFO     Metrics server is started at: http://127.0.0.1:37473
2024-07-09 11:20:11,621 xinference.core.supervisor 2506636 DEBUG    Enter add_worker, args: (<xinference.core.supervisor.SupervisorActor object at 0x7f41efd16a20>, '127.0.0.1:26637'), kwargs: {}
2024-07-09 11:20:11,621 xinference.core.supervisor 2506636 DEBUG    Worker 127.0.0.1:26637 has been added successfully
2024-07-09 11:20:11,622 xinference.core.supervisor 2506636 DEBUG    Leave add_worker, elapsed time: 0 s
2024-07-09 11:20:11,623 xinference.core.worker 2506636 INFO     Xinference worker 127.0.0.1:26637 started
2024-07-09 11:20:11,625 xinference.core.worker 2506636 INFO     Purge cache directory: /copydata2/zhaozhizhuo/.xinference/cache
"""
# https://github.com/xorbitsai/inference/issues/3822 (the issue body by samfili, 2025-07-21): Xinference in Docker
# Compose, its lines behind the service's prefix, a model launched with no GPU index (`gpu_idx=None`).
XINFERENCE_3822 = """\
xinference  | 2025-07-21 02:44:32,864 xinference.core.worker 38 INFO     [request 4e131cea-6617-11f0-b9b4-367bf8fba3ee] Enter launch_builtin_model, args: <xinference.core.worker.WorkerActor object at 0x7fd933327600>, kwargs: model_uid=QVikhr3-4B-Instruct-0,model_name=QVikhr3-4B-Instruct,model_size_in_billions=4,model_format=ggufv2,quantization=q4_k_s,model_engine=llama.cpp,model_type=LLM,n_gpu=auto,request_limits=None,peft_model_config=None,gpu_idx=None,download_hub=None,model_path=None,xavier_config=None
xinference  | Using CPython 3.10.14 interpreter at: /usr/bin/python3.10
xinference  | Creating virtual environment at: /data/virtualenv/v2/QVikhr3-4B-Instruct
xinference  | 2025-07-21 02:44:34,473 xinference.model.llm.cache_manager 38 INFO     Cache /data/cache/v2/QVikhr3-4B-Instruct-ggufv2-4b-q4_k_s exists
"""

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"
CONTAINER = "CTR-GPU-ACCESS"


@pytest.mark.parametrize("text", [body("1499"), KOBOLD_595, KOBOLD_1364], ids=["1499", "595", "1364"])
def test_koboldcpp_console_is_llamacpp_log(text: str) -> None:
    """KoboldCpp's console is read as a server log of llama.cpp's library (the engine its command reads as too)."""
    host = pasted(text)
    assert "engine_log" in host.record.docs
    assert fact(host, "serving_log").engine == "llamacpp"
    assert "llamacpp" in fact(host, "engines_shown").shown


def test_koboldcpp_windows_library_shows_windows() -> None:
    """KoboldCpp loads `koboldcpp_cublas.dll` only on Windows: the host runs Windows itself (corpus 1499, whose
    console shows no other Windows line; issue 595's shows its drive-letter prompt too)."""
    virt = fact(pasted(body("1499")), "virtualization")
    assert virt.os == "windows" and "KoboldCpp loads its backend" in virt.source, virt
    assert fact(pasted(KOBOLD_595), "virtualization").os == "windows"


def test_koboldcpp_on_linux_is_no_windows_host() -> None:
    """KoboldCpp 1.83.1 on Linux (issue 1364) loads no `.dll`: its console says nothing of Windows."""
    assert getattr(fact(pasted(KOBOLD_1364), "virtualization"), "os", "") != "windows"


def test_koboldcpp_windows_console_is_no_container() -> None:
    """Corpus 1499: KoboldCpp runs natively on Windows, so CTR-GPU-ACCESS does not apply."""
    assert capture_checks("1499", CONTAINER)[CONTAINER].status == "not-applicable"


@pytest.mark.parametrize("text", [body("1498"), XINFERENCE_1817, XINFERENCE_3822], ids=["1498", "1817", "3822"])
def test_xinference_log_is_read(text: str) -> None:
    """Xinference's log lines (its module and pid in Python's logging format, behind a compose prefix too) are a
    server log of the launcher."""
    host = pasted(text)
    assert fact(host, "serving_log").engine == "xinference"
    assert fact(host, "engines_shown").shown == ("xinference",)


def test_xinference_launch_on_one_gpu_index_is_one_gpu() -> None:
    """Corpus 1498: the worker launches the reranker on GPU index [2]: one GPU, no group to place. A log with no
    index (issue 1817, issue 3822's `gpu_idx=None`) says nothing of the GPUs the model runs on."""
    assert capture_checks("1498", PLACEMENT)[PLACEMENT].status == "not-applicable"
    assert fact(pasted(body("1498")), "serving_log").tp_size == 1
    assert fact(pasted(XINFERENCE_1817), "serving_log").tp_size is None
    assert fact(pasted(XINFERENCE_3822), "serving_log").tp_size is None


def test_xinference_launch_on_two_gpus_is_not_one(tmp_path: Path) -> None:
    """Modelled on corpus 1498's line 11 with two indexes: the model spans two GPUs, so placement stays open."""
    line = ("2024-08-27 04:34:45,111 xinference.core.worker 124341 INFO     You specify to launch the model: "
            "qwen2-instruct on GPU index: [2, 3] of the worker: 0.0.0.0:18896, xinference will automatic\n")
    assert fact(pasted(line), "serving_log").tp_size is None
    assert paste_checks(tmp_path, line, PLACEMENT)[PLACEMENT].status != "not-applicable"


def test_other_python_logs_and_prose_are_no_console() -> None:
    """Modelled: another program's line in the same logging format, and a sentence naming KoboldCpp, are not
    console lines."""
    assert not console_engine("2024-08-27 04:33:13,423 myapp.core.worker 124341 INFO     started")
    assert not is_log_line("I was told to update to the latest KoboldCpp version but it still fails")
    assert console_engine("Welcome to KoboldCpp - Version 1.82.4") == "llamacpp"


# https://github.com/huggingface/text-generation-inference/issues/606 (the issue body by ckanaar, 2023-07-13): TGI 0.9's
# one-line Args (cut where the excerpt ends) and its shards starting.
TGI_606_ARGS = """\
2023-07-13T13:36:19.887169Z  INFO text_generation_launcher: Args { model_id: "tiiuae/falcon-40b-instruct", revision: None, sharded: None, num_shard: Some(2), quantize: Some(Bitsandbytes), dtype: None, trust_remote_code: false, max_concurrent_requests: 128, max_best_of: 2, max_stop_sequences: 4, max_input_length: 1024, max_total_tokens: 2048, waiting_served_ratio: 1.2, max_batch_prefill_tokens: 4096, max_batch_total_tokens: 16000, max_waiting_tokens: 20, hostname: "f11e74984000", port: 80, shard_uds_path: "/tmp/text-generation-server", master_addr: "localh
"""
TGI_606_SHARDS = """\
2023-07-13T13:36:28.050301Z  INFO text_generation_launcher: Successfully downloaded weights.
2023-07-13T13:36:28.050508Z  INFO text_generation_launcher: Starting shard 0
2023-07-13T13:36:28.050556Z  INFO text_generation_launcher: Starting shard 1
2023-07-13T13:36:35.775510Z  WARN shard-manager: text_generation_launcher: We're not using custom kernels.
 rank=0
2023-07-13T13:36:35.775510Z  WARN shard-manager: text_generation_launcher: We're not using custom kernels.
 rank=1
2023-07-13T13:36:36.063775Z ERROR shard-manager: text_generation_launcher: Error when initializing model
"""
# https://github.com/huggingface/text-generation-inference/issues/2828 (the issue body by KartDriver, 2024-12-11): the
# launcher's command and the start of its pretty-printed Args block, as the excerpt gives it.
TGI_2828 = """\
(text-generation-inference) scin@krakatoa:~$ CUDA_VISIBLE_DEVICES=0,1,2,3 text-generation-launcher \\
  --model-id /mnt/models/meta-llama/Llama-3.3-70B-Instruct/ \\
  --sharded true \\
  --num-shard 4 \\
  --quantize bitsandbytes \\
  --max-input-tokens 2048 \\
  --max-total-tokens 4096 \\
  --max-batch-size 8
2024-12-11T18:25:32.807525Z  INFO text_generation_launcher: Args {
    model_id: "/mnt/models/meta-llama/Llama-3.3-70B-Instruct/",
    revision: None,
    validation_workers: 2,
    sharded: Some(
        true,
    ),
    num_shard: Some(
        4,
    ),
    quantize: Some(
        Bitsandbytes,
    ),
    speculate: None,
    dtype: None,
"""
# https://github.com/huggingface/text-generation-inference/issues/3105 (the issue body by nskpro-cmd, 2025-03-13): the
# start of the pretty-printed block, no command.
TGI_3105 = """\
2025-03-13T08:36:37.262563Z  INFO text_generation_launcher: Args {
    model_id: "google/gemma-3-27b-it",
    revision: None,
    validation_workers: 2,
    sharded: Some(
        true,
    ),
    num_shard: Some(
        4,
    ),
    quantize: None,
"""
# https://github.com/huggingface/text-generation-inference/issues/2139 (comment by AIvashov, 2024-06-28): the shard
# manager waiting on two shards.
TGI_2139 = """\
2024-06-28T11:28:38.027759Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=0
2024-06-28T11:28:38.117450Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=1
"""
# https://github.com/huggingface/text-generation-inference/pull/1608 (comment by paulcx, 2024-02-29): no shard count
# given (`num_shard: None`), the line's head as pasted.
TGI_1608 = """\
2024-02-29T03:25:43.199673Z  INFO text_generation_launcher: Args { model_id: "/data/Qwen1.5-72B-Chat-AWQ", revision: None, validation_workers: 2, sharded: None, num_shard: None, quantize: None, speculate: None, dtype: None, trust_remote_code: false, max_concurrent_requests: 128
"""


@pytest.mark.parametrize(("text", "tp"), [(TGI_606_ARGS, 2), (TGI_606_ARGS + TGI_606_SHARDS, 2), (TGI_2828, 4),
                                          (TGI_3105, 4), (TGI_2139, None), (TGI_1608, None)],
                         ids=["606-args", "606", "2828", "3105", "2139", "1608"])
def test_tgi_launcher_log_is_read_with_its_shards(text: str, tp: int | None) -> None:
    """TGI's launcher lines are a server log of engine "tgi"; its Args' `num_shard: Some(N)`, on one line or
    pretty-printed over several (folded back onto the `Args {` line), is the TP size; `None` or no Args gives none."""
    host = pasted(text)
    log = fact(host, "serving_log")
    assert log.engine == "tgi" and log.tp_size == tp, log
    assert "tgi" in fact(host, "engines_shown").shown


def test_tgi_args_block_stays_in_the_log() -> None:
    """Issue 3105: the block's field lines are the log's, not left over: the whole paste is one server-log span."""
    host = pasted(TGI_3105)
    assert host.record.docs["engine_log"].count("\n") == TGI_3105.count("\n")


# https://github.com/mudler/LocalAI/issues/771 (comment by Tolsi): LocalAI loading a model on its llama-cpp backend's
# CUDA variant.
LOCALAI_771 = """\
7:23PM INF Trying to load the model 'llama-3.2-3b-instruct:q4_k_m' with the backend '[llama-cpp llama-ggml llama-cpp-fallback piper rwkv whisper huggingface bert-embeddings]'
7:23PM INF [llama-cpp] Attempting to load
7:23PM INF Loading model 'llama-3.2-3b-instruct:q4_k_m' with backend llama-cpp
7:23PM DBG Loading model in memory from file: /usr/share/local-ai/models/llama-3.2-3b-instruct-q4_k_m.gguf
7:23PM INF [llama-cpp] attempting to load with CUDA variant
7:23PM DBG ld.so found
"""
# https://github.com/mudler/LocalAI/issues/2394 (comment by rmarku, 2024-07-23): the same in Docker Compose, behind its
# service prefix.
LOCALAI_2394 = """\
api-1  | 6:10PM DBG Loading GRPC Process: /tmp/localai/backend_data/backend-assets/grpc/llama-cpp-avx2
api-1  | 6:10PM DBG GRPC Service for Meta-Llama-3-8B-Instruct.Q4_0.gguf will be running at: '127.0.0.1:41077'
api-1  | 6:10PM DBG GRPC Service state dir: /tmp/go-processmanager4137429056
api-1  | 6:10PM DBG GRPC Service Started
"""


@pytest.mark.parametrize("text", [LOCALAI_771.replace("with backend llama-cpp", "with backend"), LOCALAI_2394],
                         ids=["771-cut", "2394"])
def test_localai_log_is_read(text: str) -> None:
    """LocalAI's zerolog lines (kitchen time, three-letter level) are a server log of the launcher, engine localai."""
    host = pasted(text)
    assert fact(host, "serving_log").engine == "localai"
    assert fact(host, "engines_shown").shown == ("localai",)


# https://github.com/mudler/LocalAI/issues/1729 (turn 2 by thfrei): the llama.cpp backend's own loader lines behind
# LocalAI's GRPC tag.
LOCALAI_1729 = """3:44PM DBG GRPC(llava-v1.6-mistral-7b.Q5_K_M.gguf-127.0.0.1:36827): stderr llama_model_loader: - kv  11:                          general.file_type u32              = 17
3:44PM DBG GRPC(llava-v1.6-mistral-7b.Q5_K_M.gguf-127.0.0.1:36827): stderr llama_model_loader: - kv  12:                       tokenizer.ggml.model str              = llama
"""
# https://github.com/mudler/LocalAI/issues/1433 (issue body by lili-wan): the gRPC load line names its backend.
LOCALAI_1433 = """10:26PM DBG [llama-cpp] Attempting to load
10:26PM DBG Loading model llama-cpp from llama-2-7b.Q4_0.gguf
10:26PM DBG Loading Model llama-2-7b.Q4_0.gguf with gRPC (file: /models/llama-2-7b.Q4_0.gguf) (backend: llama-cpp): {backendString:llama-cpp model:llama-2-7b.Q4_0.gguf threads:1}
"""


@pytest.mark.parametrize("text", [LOCALAI_771, LOCALAI_1729, LOCALAI_1433, body("1976")],
                         ids=["771", "1729", "1433", "1976"])
def test_localai_llamacpp_backend_is_the_engine(text: str) -> None:
    """LocalAI's log that names its llama-cpp backend, or shows ggml's and llama.cpp's own lines behind its GRPC tag,
    shows llama.cpp as the engine: no FlashInfer there."""
    host = pasted(text)
    assert fact(host, "serving_log").engine == "llamacpp"
    assert fact(host, "engines_shown").shown == ("llamacpp",)


def test_localai_other_backend_stays_the_launcher() -> None:
    """Modelled: the list of backends LocalAI may try, and a Python backend's load line, name no llama.cpp run."""
    text = (LOCALAI_771.splitlines()[0] + "\n" + LOCALAI_1433.splitlines()[2].replace("llama-cpp", "vllm") + "\n"
            + "3:44PM DBG GRPC(m-127.0.0.1:36827): stderr INFO 05-01 vllm.engine.llm_engine: Initializing\n")
    assert fact(pasted(text), "serving_log").engine == "localai"


def test_localai_llamacpp_backend_runs_no_flashinfer() -> None:
    """RT-FLASHINFER is not applicable where the only engine shown is LocalAI's llama.cpp backend (corpus 1976)."""
    r = capture_checks("1976", "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "not-applicable"
    assert "FlashInfer" in r.message


def test_localai_form_needs_its_level() -> None:
    """Modelled: a clock time before a word that is no zerolog level is no LocalAI line."""
    assert console_engine("7:23PM INF [llama-cpp] Attempting to load") == "localai"
    assert not console_engine("7:23PM The model loaded fine after the update")


def test_tgi_dated_launcher_line_settles_the_runtime() -> None:
    """Corpus 904: TGI's launcher line, read as TGI's log, dates the run 2023-08-17, before any CUDA 13 runtime, and
    driver 525.85.12 runs every CUDA 12 runtime TGI could ship then."""
    r = capture_checks("904", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "2023-08-17" in r.message, r.message


def test_koboldcpp_benchmark_row_is_a_rate_not_cuda_proof() -> None:
    """Corpus 1331: KoboldCpp's --benchmark row on `koboldcpp_cublas.dll` is its generation speed (6.27 tokens/s, one
    request) and shows KoboldCpp (llama.cpp's library); its Layers column is the requested --gpulayers, not the layers
    offloaded (llama.cpp runs on the CPU where CUDA fails to start), so it is no proof that CUDA ran: DRV-CUDA-COMPAT
    stays unknown with no driver shown (the corpus gap's count, h69c)."""
    host = pasted(body("1331"))
    rate = fact(host, "serving_rate")
    assert rate.tokens_per_s == 6.27 and rate.source.startswith("KoboldCpp's --benchmark row"), rate
    assert fact(host, "engines_shown").shown == ("llamacpp",)
    assert not hasattr(fact(host, "cuda_ran"), "ran")
    assert capture_checks("1331", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


# https://github.com/LostRuins/koboldcpp/issues/913 (comment by Vladonai, 2024-07-14): KoboldCpp 1.66.1's benchmark
# row, the same user's second run after corpus 1331's.
KOBOLD_BENCH_913 = """\
Koboldcpp 1.66.1:
Timestamp,Backend,Layers,Model,MaxCtx,GenAmount,ProcessingTime,ProcessingSpeed,GenerationTime,GenerationSpeed,TotalTime,Output
2024-07-14 14:42:20.687625+00:00,koboldcpp_cublas.dll,81,opus-v1.2-70b.q6_kChatML,8192,100,81.77,98.96,14.44,6.93,96.21,11111
"""
# https://github.com/LostRuins/koboldcpp/issues/1266 (the issue body by Tedris, 2024-12-14): KoboldCpp 1.78's generation
# line and its results block.
KOBOLD_BENCH_1266 = """\
Processing Prompt [BLAS] (16284 / 16284 tokens)
Generating (100 / 100 tokens)
CtxLimit:16384/16384, Amt:100/100, Init:0.07s, Process:21.22s (1.3ms/T = 767.28T/s), Generate:23.24s (232.4ms/T = 4.30T/s), Total:44.46s (2.25T/s)
Benchmark Completed - v1.78 Results:
======
Flags: NoAVX2=False Threads=8 HighPriority=False Cublas_Args=['lowvram', '0', 'mmq'] Tensor_Split=None BlasThreads=16 BlasBatchSize=512 FlashAttention=True KvCache=0
Timestamp: 2024-12-14 20:41:03.368064+00:00
Backend: koboldcpp_cublas.dll
Layers: 59
Model: Cydonia-22B-v1.3.i1-IQ4_XS
MaxCtx: 16384
GenAmount: 100
-----
ProcessingTime: 21.223s
ProcessingSpeed: 767.28T/s
GenerationTime: 23.240s
GenerationSpeed: 4.30T/s
TotalTime: 44.463s
Output:  1 1 1 1
-----
"""
# https://github.com/LostRuins/koboldcpp/issues/1527 (the issue body by akierum, 2025-05-06): the results block's rates
# alone.
KOBOLD_BENCH_1527 = """\
ProcessingTime: 9.822s
ProcessingSpeed: 406.84T/s
GenerationTime: 26.624s
GenerationSpeed: 3.76T/s
TotalTime: 36.446s
Output: 1 1 1 1
"""


@pytest.mark.parametrize(("text", "rate"), [(KOBOLD_BENCH_913, 6.93), (KOBOLD_BENCH_1266, 4.30),
                                            (KOBOLD_BENCH_1527, 3.76)], ids=["913", "1266", "1527"])
def test_koboldcpp_benchmark_shapes_give_its_generation_speed(text: str, rate: float) -> None:
    """Each of KoboldCpp's benchmark shapes (its CSV row, its results block, its generation line) gives the generation
    speed of one request, decode alone, and shows KoboldCpp (llama.cpp's library)."""
    host = pasted(text)
    measured = fact(host, "serving_rate")
    assert measured.tokens_per_s == rate and measured.source.startswith("KoboldCpp's"), measured
    assert fact(host, "engines_shown").shown == ("llamacpp",)


def test_koboldcpp_generation_line_alone_is_its_decode() -> None:
    """Issue 1266's generation line alone: its Generate part (4.30 T/s), not the Total that counts the prompt."""
    line = KOBOLD_BENCH_1266.splitlines()[2] + "\n"
    assert fact(pasted(line), "serving_rate").tokens_per_s == 4.30


# https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/2190 (the issue body by dongbutan): LM Studio's app log,
# electron-log's prefix before its tag.
LMSTUDIO_2190 = """\
[2026-07-23 10:21:52.879] [error] [LM Studio] GPU Configuration:
  Strategy: evenly
  Priority: []
  Disabled GPUs: []
  Limit weight offload to dedicated GPU Memory: OFF
  Offload KV Cache to GPU: ON
[2026-07-23 10:21:52.880] [error] [LM Studio] Live GPU memory info:
No live GPU info available
"""
# https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/1599 (comment by sammydix): its developer log, the tag on
# the line under the time and level.
LMSTUDIO_1599 = """\
2026-03-09 17:10:30  [INFO]
 [LM STUDIO SERVER] Success! HTTP server listening on port 1234
2026-03-09 17:10:30  [INFO]
2026-03-09 17:10:30  [INFO]
 [LM STUDIO SERVER] Supported endpoints:
"""
# https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/966 (the issue body by MarArMar, 2025-09-03): LM Studio's
# app log lines with no tag of its own.
LMSTUDIO_966 = """\
[2025-09-03 12:24:40.689] [info]  App starting...
[2025-09-03 12:24:40.692] [info]  [AppUpdater] Update channel set to 'stable'
[2025-09-03 12:24:40.904] [info]  Hardware survey for general system resources through 'vulkan' took 207.77ms
"""


@pytest.mark.parametrize("text", [LMSTUDIO_2190, LMSTUDIO_1599], ids=["2190", "1599"])
def test_lmstudio_tagged_lines_are_its_log(text: str) -> None:
    """LM Studio's tagged lines are its log (engine lmstudio); its electron-log prefix is not SGLang's."""
    host = pasted(text)
    assert fact(host, "serving_log").engine == "lmstudio"
    assert fact(host, "engines_shown").shown == ("lmstudio",)


def test_electron_log_lines_are_not_sglang() -> None:
    """Issue 966: electron-log's `[date time.ms] [info]` prefix without LM Studio's tag names no engine; before, the
    dated bracket read it as SGLang's log."""
    assert not any(is_log_line(line) for line in LMSTUDIO_966.splitlines())
    assert not hasattr(fact(pasted(LMSTUDIO_966), "serving_log"), "engine")


# https://github.com/lmstudio-ai/.github/issues/53 (comment by MrDowntempo, 2024-05-25; corpus 2181): LM Studio 0.2.24's
# console, its survey of the CUDA runtime failing.
LMSTUDIO_GH53 = """\
14:56:18.946 › Manifest for backend 'CUDA llama.cpp' requires gpu acceleration, but GPU survey on hardware was unsuccesful with message 'Error trying to query CUDA gpus: No CUDA devices found!'!
libva error: vaGetDriverNameByIndex() failed with unknown libva error, driver_name = (null)
"""
# https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/382 (comment by Dude4Linux, 2025-02-05): its main.log.
LMSTUDIO_382 = """\
[2025-02-04 17:58:05.544] [warn]  Failed to survey hardware with backend 'llama.cpp-linux-x86_64-nvidia-cuda-avx2', version '1.11.1': LMSCore load lib failed - child process with PID 183099 exited with code 1
"""
# Modelled counter-example: the same words in a user's sentence, with no console or log prefix before a backend's name.
SURVEY_PROSE = "I think the manifest for backend 'CUDA llama.cpp' requires gpu acceleration, but GPU survey failed\n"


@pytest.mark.parametrize("text", [LMSTUDIO_GH53, LMSTUDIO_382], ids=["gh53", "382"])
def test_lmstudio_runtime_survey_lines_are_its_log(text: str) -> None:
    """LM Studio's survey of a runtime's GPUs (corpus 2181, refused before) is its log: engine lmstudio."""
    assert fact(pasted(text), "serving_log").engine == "lmstudio"


def test_modelled_survey_words_in_prose_are_no_console() -> None:
    assert not console_engine(SURVEY_PROSE.strip())


# https://github.com/xorbitsai/inference/issues/5069 (the issue body by zhangfhe, 2026-06-24): Xinference 2.11's log
# format (ISO time, level, module, pid, role, address, node) from `docker logs`.
XINFERENCE_5069 = """\
2026-06-24T05:05:36.446Z INFO xinference.deploy.local pid:1 role:local address:0.0.0.0:9997 node:267b0ddd106e No response from process after 10 seconds
2026-06-24T05:05:51.382Z INFO xinference.core.supervisor pid:36 role:local address:0.0.0.0:49339 node:267b0ddd106e Xinference supervisor 0.0.0.0:49339 started
2026-06-24T05:05:51.420Z INFO xinference.core.worker pid:36 role:local address:0.0.0.0:49339 node:267b0ddd106e Starting metrics export server at 0.0.0.0:None
"""


def test_xinference_2_log_format_is_read() -> None:
    """Issue 5069: Xinference 2.x's own format is its log too."""
    host = pasted(XINFERENCE_5069)
    assert fact(host, "serving_log").engine == "xinference"
    assert fact(host, "serving_log").line_count == 3


# https://github.com/InternLM/lmdeploy/issues/2153 (comment by lai-serena, 2024-07-29): lmdeploy's logger lines before
# the file and line were added, the engine config with tp=2, and TurboMind's INI model config under its INFO line, as
# the excerpt cuts it.
LMDEPLOY_2153 = """\
2024-07-29 01:46:31,483 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig(model_name='Qwen2-7B-Instruct-AWQ', model_format=None, tp=2, session_len=None, max_batch_size=128, cache_max_entry_count=0.8, cache_block_seq_len=64, enable_prefix_caching=False, quant_policy=0, rope_scaling_factor=0.0, use_logn_attn=False, download_dir=None, revision=None, max_prefill_token_num=8192, num_tokens_per_iter=0, max_prefill_iters=1)
2024-07-29 01:46:31,483 - lmdeploy - INFO - input chat_template_config=None
2024-07-29 01:46:31,558 - lmdeploy - INFO - updated chat_template_onfig=ChatTemplateConfig(model_name='qwen', system=None, meta_instruction=None, eosys=None, user=None, eoh=None, assistant=None, eoa=None, separator=None, capability=None, stop_words=None)
2024-07-29 01:46:31,558 - lmdeploy - INFO - model_source: hf_model
2024-07-29 01:46:31,558 - lmdeploy - WARNING - model_name is deprecated in TurbomindEngineConfig and has no effect
Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.
2024-07-29 01:46:31,853 - lmdeploy - INFO - model_config:

[llama]
model_name = qwen
model_arch = Qwen2ForCausalLM
tensor_para_size = 2
head_num = 28
kv_head_num = 4
vocab_size = 152064
num_layer = 28
inter_size = 18944
norm_eps = 1e-06
attn_bias = 1
start_id = 151643
end_id = 151645
"""
# The INI block alone under its log line, without the engine config line above it: the model config's size is read.
LMDEPLOY_2153_CONFIG = LMDEPLOY_2153[LMDEPLOY_2153.index("2024-07-29 01:46:31,853"):]
# https://github.com/InternLM/lmdeploy/pull/3414 (comment by CUHKSZzxy, 2025-04-11): the PyTorch engine's config with
# data parallelism, `tp=0` beside `dp=32`: no TP size stated.
LMDEPLOY_3414 = """\
2025-04-11 04:15:17,172 - lmdeploy - INFO - async_engine.py:259 - input backend=pytorch, backend_config=PytorchEngineConfig(dtype='auto', tp=0, dp=32, dp_rank=0, ep=32, session_len=None, max_batch_size=128, cache_max_entry_count=0.8, prefill_interval=16, block_size=64, num_cpu_blocks=0, num_gpu_blocks=0, adapters=None, max_prefill_token_num=8192, thread_safe=False, enable_prefix_caching=False, device_type='cuda', eager_mode=False, custom_module_map=None, download_dir=None, revision=None, quant_policy=0, distributed_executor_backend=None)
2025-04-11 04:15:17,172 - lmdeploy - INFO - async_engine.py:260 - input chat_template_config=None
"""
# https://github.com/OpenGVLab/InternVL/issues/234 (the issue body by l1019008146, 2024-05-31): TurboMind's own
# warnings (tp=4 in the user's script above them), the first line's bracket lost in the excerpt and left out.
TURBOMIND_234 = """\
[TM][WARNING] Device 3 peer access Device 1 is not available.
[TM][WARNING] Device 3 peer access Device 2 is not available.
"""


# Modelled on corpus 1279 (lmdeploy#2724), whose excerpt cuts TurboMind's JSON config at its first key: the config's
# engine section as lmdeploy 0.6 prints it (lmdeploy/turbomind/deploy/config.py InternalEngineConfig), with no engine
# config line above it: its `"tensor_para_size": 4` is the TP size.
TURBOMIND_JSON = """\
2024-11-07 12:04:21,556 - lmdeploy - INFO - turbomind.py:200 - turbomind model config:

{
  "model_config": {
    "model_name": "",
    "head_num": 64,
    "inter_size": [
      28672,
      28672
    ]
  },
  "engine_config": {
    "model_format": "hf",
    "tensor_para_size": 4,
    "cache_max_entry_count": 0.8
  }
}
"""


@pytest.mark.parametrize(("text", "tp"), [(body("1641"), 2), (body("1279"), 2), (LMDEPLOY_2153, 2),
                                          (TURBOMIND_JSON, 4),
                                          (LMDEPLOY_2153_CONFIG, 2), (LMDEPLOY_3414, None), (TURBOMIND_234, None)],
                         ids=["1641", "1279", "2153", "json-modelled", "2153-config", "3414", "internvl-234"])
def test_lmdeploy_log_is_read_with_its_tp(text: str, tp: int | None) -> None:
    """lmdeploy's logger lines and TurboMind's `[TM][LEVEL]` lines are a server log of engine "lmdeploy"; the engine
    config's `tp=N` or TurboMind's `tensor_para_size = N` (its INI model config, folded onto its log line) is the TP
    size; `tp=0` with data parallelism states none."""
    host = pasted(text)
    log = fact(host, "serving_log")
    assert log.engine == "lmdeploy" and log.tp_size == tp, log
    assert "lmdeploy" in fact(host, "engines_shown").shown


def test_turbomind_config_block_stays_in_the_log() -> None:
    """Corpus 1641: the blank line and the `[llama]` block under `model_config:` are one server-log span with their
    log line (lines 8-49), so the paste is read, not refused."""
    recognised = recognise(body("1641")).recognised
    assert ("server log", 8, 49) in recognised, recognised


def test_lmdeploy_log_alone_says_no_ok() -> None:
    """Corpus 1641: a log that shows no GPU, driver or topology gives no check an `ok`."""
    report = capture_report("1641")
    assert not [r.id for r in report.results if r.status == "ok"]


def test_other_dashed_logs_and_loose_configs_are_not_lmdeploy() -> None:
    """Modelled: another program's logger in lmdeploy's format, a traceback's `RuntimeError: [TM][ERROR] ...` (a
    Python exception's text, corpus 1019's thread) and an INI block under no lmdeploy line give no lmdeploy log or TP."""
    assert not console_engine("2024-08-05 05:40:52,191 - myapp - INFO - tp=2")
    assert not console_engine("RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/"
                              "utils/allocator.h:231")
    assert console_engine("[TM][INFO][1] NCCL group_id = 0") == "lmdeploy"
    assert not recognise("model_config:\n\n[llama]\ntensor_para_size = 2\n").recognised


def test_aphrodite_config_dump_is_vllm_log_and_settles_graphs() -> None:
    # Corpus 2372 (dphnAI/sonar#310): the image's entrypoint starts the engine, so the `docker run` names none; the
    # engine's dump (`INFO:     Enforce Eager Mode = False`) is read as vLLM's log and keeps graphs on.
    lines = body("2372").splitlines()
    assert console_engine(lines[10]) == "vllm" and console_engine(lines[18]) == "vllm"
    log = fact(pasted(body("2372")), "serving_log")
    assert log.engine == "vllm" and log.cuda_graphs == "configured"
    assert capture_checks("2372", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "ok"
    # Corpus 1640 (another thread, Aphrodite 0.5.0 at TP 2): the same dump, read as the log of its command.
    assert fact(pasted(body("1640")), "serving_log").cuda_graphs == "configured"
    # Modelled: uvicorn's lines share the level and spaces but not the dump's keys; an eager dump is eager.
    assert not console_engine("INFO:     Started server process [1]")
    eager = "INFO:     Initializing the Aphrodite Engine (v0.5.0) with the following config:\nINFO:     Enforce Eager Mode = True\n"
    assert fact(pasted(eager), "serving_log").cuda_graphs == "eager"
