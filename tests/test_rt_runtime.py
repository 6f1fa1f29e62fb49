"""RT checks against a FakeHost whose /proc holds real-looking vLLM, SGLang and TensorRT-LLM processes.

Each process has its own cmdline, environ (NUL-separated), limits (the kernel's table), status and
stat. The results must come from those processes, never from the test's (or the audit's) own
environment: the test process and /proc/self carry contradicting values.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from corpus import capture_checks
from stackaudit.checks import rt
from stackaudit.engine.testing import run_checks
from stackaudit.facts.limits import LIMIT_ROWS, format_limits
from stackaudit.facts.processes import ProcessInfo, ServingProcesses, classify, serving_processes
from stackaudit.facts.python_env import PythonEnv, PythonEnvironment, python_env
from stackaudit.host.memory import fake_host
from stackaudit.host.recording import RedactingHost

API_KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c"
HF_TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
VENV = "/opt/vllm-venv"
SITE = f"{VENV}/lib/python3.12/site-packages"
BASE_ENV = {
    "PATH": f"{VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "HOSTNAME": "gpu-node-07",
}
RT_IDS = ["RT-TORCH-ARCH", "RT-FLASHINFER", "RT-CUDA-GRAPHS", "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS", "RT-ENV-VLLM",
          "RT-ENV-SGLANG", "RT-ULIMIT-NOFILE", "RT-OMP", "RT-TRTLLM-ALLREDUCE", "RT-VERSION-MATRIX",
          "RT-KERNEL-ARCH"]


# --- building /proc ---------------------------------------------------------------------------


def _limits(nofile: tuple[str, str] = ("1048576", "1048576")) -> str:
    values = {name: ("unlimited", "unlimited") for name, _ in LIMIT_ROWS}
    values.update({"Max stack size": ("8388608", "unlimited"), "Max core file size": ("0", "unlimited"),
                   "Max processes": ("2061498", "2061498"), "Max open files": nofile,
                   "Max locked memory": ("8388608", "8388608"), "Max pending signals": ("2061498", "2061498"),
                   "Max msgqueue size": ("819200", "819200"), "Max nice priority": ("0", "0"),
                   "Max realtime priority": ("0", "0")})
    return format_limits(values)


def _status(pid: int, ppid: int, name: str, cpus: str = "0-63", threads: int = 40) -> str:
    return (f"Name:\t{name[:15]}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\n"
            f"PPid:\t{ppid}\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t512\n"
            f"VmPeak:\t48212340 kB\nVmSize:\t48012340 kB\nVmRSS:\t 6123456 kB\nVmSwap:\t       0 kB\n"
            f"Threads:\t{threads}\nSeccomp:\t0\nCpus_allowed:\tffffffff,ffffffff\nCpus_allowed_list:\t{cpus}\n"
            f"Mems_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t123456\nnonvoluntary_ctxt_switches:\t789\n")


def _stat(pid: int, ppid: int, comm: str) -> str:
    return (f"{pid} ({comm[:15]}) S {ppid} {pid} {ppid} 0 -1 4194560 812345 0 12 0 45678 9876 0 0 20 0 40 0 "
            f"123456 49324113920 1530864 18446744073709551615 1 1 0 0 0 0 0 16781312 17642 0 0 0 17 12 0 0 0 0 0\n")


def proc(pid: int, ppid: int, argv: list[str], environ: dict[str, str] | None, *, comm: str = "",
         nofile: tuple[str, str] = ("1048576", "1048576"), title: bool = False, cpus: str = "0-63",
         environ_error: OSError | None = None) -> dict[str, Any]:
    """The /proc/<pid>/ files of one process. `title`: setproctitle overwrote argv and environ."""
    comm = comm or argv[0].rsplit("/", 1)[-1]
    base = f"/proc/{pid}"
    if title:
        cmdline: bytes = argv[0].encode() + b"\x00" * 180
        env_bytes: bytes = b"\x00" * 2400
    else:
        cmdline = "\x00".join(argv).encode() + b"\x00"
        env_bytes = "\x00".join(f"{k}={v}" for k, v in (environ or {}).items()).encode() + b"\x00"
    files: dict[str, Any] = {
        f"{base}/cmdline": cmdline,
        f"{base}/environ": environ_error if environ_error is not None else env_bytes,
        f"{base}/limits": _limits(nofile),
        f"{base}/status": _status(pid, ppid, comm, cpus),
        f"{base}/stat": _stat(pid, ppid, comm),
    }
    return files


def unrelated() -> dict[str, Any]:
    """Processes every host has, including look-alikes that must not count as engines."""
    files: dict[str, Any] = {}
    files.update(proc(1, 0, ["/sbin/init", "splash"], {"HOME": "/"}, comm="systemd"))
    files["/proc/2/cmdline"] = b""  # kthreadd
    files["/proc/2/stat"] = _stat(2, 0, "kthreadd")
    files.update(proc(700, 1, ["celery::Worker"], {"HOME": "/srv"}, comm="celery"))
    files.update(proc(812, 1, ["sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"], {}, comm="sshd"))
    files.update(proc(950, 812, ["-bash"], {**BASE_ENV, "CUDA_DEVICE_MAX_CONNECTIONS": "1"}, comm="bash"))
    files.update(proc(960, 950, ["grep", "--color=auto", "vllm serve"], BASE_ENV))
    files.update(proc(970, 950, ["/usr/bin/python3", "bench.py", "--enforce-eager", "--disable-cuda-graph"],
                      {**BASE_ENV, "OMP_NUM_THREADS": "64"}, comm="python3"))
    files.update(proc(980, 970, ["/usr/bin/python3", "-c",
                                 "from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7)",
                                 "--multiprocessing-fork"], {**BASE_ENV, "OMP_NUM_THREADS": "64"}, comm="python3"))
    return files


def audit_self(**env: str) -> dict[str, Any]:
    """/proc/self: the audit's own process, with values that contradict the engines'."""
    environ = {**BASE_ENV, "CUDA_DEVICE_MAX_CONNECTIONS": "32", "OMP_NUM_THREADS": "1", "VLLM_USE_FLASHINFER_SAMPLER": "1",
               **env}
    files = proc(31337, 950, ["/home/ops/.venvs/stackaudit/bin/python", "-m", "stackaudit", "audit"], environ,
                 comm="python")
    return {k.replace("/proc/31337/", "/proc/self/"): v for k, v in files.items()}


def vllm_v1(*, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None, tp: int = 2,
            nofile: tuple[str, str] = ("65536", "1048576")) -> dict[str, Any]:
    """`vllm serve` V1 with TP workers: API server 4101, EngineCore 4180, workers 4230.., resource tracker."""
    environ = {**BASE_ENV, "VIRTUAL_ENV": VENV, "HF_TOKEN": HF_TOKEN, "CUDA_VISIBLE_DEVICES": "0,1",
               "VLLM_SKIP_P2P_CHECK": "1", **(env or {})}
    argv = [f"{VENV}/bin/python3", f"{VENV}/bin/vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct",
            "--tensor-parallel-size", str(tp), "--api-key", API_KEY, "--port", "8000", *extra_args]
    files: dict[str, Any] = {}
    files.update(proc(4101, 950, argv, environ, comm="vllm", nofile=nofile))
    files.update(proc(4180, 4101, ["VLLM::EngineCore"], None, comm="VLLM::EngineCor", title=True))
    files.update(proc(4190, 4101, [f"{VENV}/bin/python3", "-c",
                                   "from multiprocessing.resource_tracker import main;main(34)"], environ,
                      comm="python3"))
    for rank in range(tp):
        files.update(proc(4230 + rank, 4180, [f"VLLM::Worker_TP{rank}"], None, comm=f"VLLM::Worker_TP{rank}",
                          title=True))
    return files


def vllm_site(torch: str = "2.7.1+cu128", torch_cuda: str | None = "12.8", flashinfer: str = "0.2.8",
              cubin: str | None = "0.2.8", nccl: str = "2.26.2") -> dict[str, Any]:
    """The serving venv's site-packages as pip leaves it."""
    files: dict[str, Any] = {f"{VENV}/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\n"
                                                    "version = 3.12.3\n",
                             f"{VENV}/bin/python3": b"\x7fELF"}
    dists = {"torch": torch, "vllm": "0.10.1.1", "flashinfer_python": flashinfer, "triton": "3.3.1",
             "nvidia_nccl_cu12": nccl, "xformers": "0.0.31", "transformers": "4.55.2", "numpy": "2.2.6"}
    if cubin:
        dists["flashinfer_cubin"] = cubin
    for name, version in dists.items():
        files[f"{SITE}/{name}-{version}.dist-info/METADATA"] = (
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\nSummary: x\n\nlong text\n")
        files[f"{SITE}/{name}-{version}.dist-info/RECORD"] = "x"
    cuda_line = "None" if torch_cuda is None else f"'{torch_cuda}'"
    files[f"{SITE}/torch/version.py"] = (
        "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
        f"__version__ = '{torch}'\ndebug = False\ncuda: Optional[str] = {cuda_line}\n"
        "git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\nhip: Optional[str] = None\n")
    files[f"{SITE}/torch/__init__.py"] = "# torch\n"
    return files


def sglang(*, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None,
           scheduler_env: dict[str, str] | None = None, nofile: tuple[str, str] = ("1024", "1048576")) -> dict[str, Any]:
    """`python -m sglang.launch_server` with two schedulers and a detokenizer (pids 5101..)."""
    environ = {**BASE_ENV, "CUDA_DEVICE_MAX_CONNECTIONS": "1", **(env or {})}
    argv = ["/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-72B-Instruct",
            "--tp", "2", "--host", "0.0.0.0", "--port", "30000", *extra_args]
    files: dict[str, Any] = {}
    files.update(proc(5101, 950, argv, environ, comm="python3", nofile=nofile))
    for rank in range(2):
        if scheduler_env is None:
            files.update(proc(5150 + rank, 5101, [f"sglang::scheduler_TP{rank}"], None, title=True,
                              comm="sglang::schedul"))
        else:  # SPT_NOENV: the environment block stays intact
            files.update(proc(5150 + rank, 5101, [f"sglang::scheduler_TP{rank}"], {**environ, **scheduler_env},
                              comm="sglang::schedul"))
    files.update(proc(5160, 5101, ["sglang::detokenizer"], None, title=True, comm="sglang::detoken"))
    files.update({"/usr/lib/python3/dist-packages/README.txt": "x",
                  "/usr/local/lib/python3.12/dist-packages/sglang-0.4.10.post2.dist-info/METADATA":
                      "Metadata-Version: 2.4\nName: sglang\nVersion: 0.4.10.post2\n",
                  "/usr/local/lib/python3.12/dist-packages/torch-2.7.1.dist-info/METADATA":
                      "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.1\n",
                  "/usr/local/lib/python3.12/dist-packages/torch/version.py": "__version__ = '2.7.1'\ncuda = '12.6'\n"})
    return files


def trtllm(*, config: str = "", tp: int = 2, nofile: tuple[str, str] = ("1048576", "1048576")) -> dict[str, Any]:
    """`trtllm-serve` with two MPI workers spawned through an MPI daemon (pids 6101..)."""
    environ = {**BASE_ENV, "OMPI_MCA_btl": "^openib"}
    argv = ["/usr/bin/python3", "/usr/local/bin/trtllm-serve", "/models/Llama-3.3-70B-Instruct", "--backend",
            "pytorch", "--tp_size", str(tp), "--max_batch_size", "64"]
    if config:
        argv += ["--extra_llm_api_options", "extra-llm-api-config.yml"]
    files: dict[str, Any] = {}
    files.update(proc(6101, 950, argv, environ, comm="trtllm-serve", nofile=nofile))
    files.update(proc(6140, 6101, ["prted", "--leave-session-attached", "--prtemca", "ess", "singleton"], environ,
                      comm="prted"))
    for rank in range(tp):
        files.update(proc(6150 + rank, 6140, ["/usr/bin/python3", "-m", "mpi4py.futures.server"],
                          {**environ, "OMPI_COMM_WORLD_RANK": str(rank)}, comm="python3"))
    if config:
        files["/workspace/extra-llm-api-config.yml"] = config
    files["/usr/local/lib/python3.12/dist-packages/tensorrt_llm-1.0.0rc4.dist-info/METADATA"] = (
        "Metadata-Version: 2.1\nName: tensorrt_llm\nVersion: 1.0.0rc4\n")
    return files


def host(*parts: dict[str, Any], links: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    files: dict[str, Any] = {}
    for part in parts:
        files.update(part)
    all_links = {"/proc/4101/exe": "/usr/bin/python3.12", "/proc/5101/exe": "/usr/bin/python3.12",
                 "/proc/6101/exe": "/usr/bin/python3.12", "/proc/self/exe": "/usr/bin/python3.11",
                 "/proc/6101/cwd": "/workspace", **(links or {})}
    return fake_host(files=files, links=all_links)


@pytest.fixture(autouse=True)
def contradicting_test_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test process itself carries values that would change every verdict if they were read."""
    for name, value in {"CUDA_DEVICE_MAX_CONNECTIONS": "1", "OMP_NUM_THREADS": "4096",
                        "VLLM_USE_FLASHINFER_SAMPLER": "0", "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
                        "NCCL_NVLS_ENABLE": "0", "CUDA_HOME": "/usr/local/cuda-11.8"}.items():
        monkeypatch.setenv(name, value)


class _Ctx:
    def __init__(self, h: Any) -> None:
        self.host = RedactingHost(h)
        self._procs: ServingProcesses | None = None

    def fact(self, name: str, kind: type[Any]) -> Any:
        assert name == "serving_processes"
        if self._procs is None:
            self._procs = serving_processes(self)
        return self._procs

    def optional(self, name: str, kind: type[Any]) -> Any:
        return None


def facts(h: Any) -> tuple[ServingProcesses, PythonEnv]:
    ctx = _Ctx(h)
    return ctx.fact("serving_processes", ServingProcesses), python_env(ctx)


def _engine_env(env: PythonEnv, engine: str) -> PythonEnvironment:
    return next(e for e in env.environments if e.engine == engine)


def everything(*extra: dict[str, Any]) -> Any:
    return host(unrelated(), audit_self(), vllm_v1(), vllm_site(), sglang(), trtllm(), *extra)


# --- the provider -----------------------------------------------------------------------------


def test_provider_finds_the_engines_their_roles_and_nothing_else() -> None:
    procs, _ = facts(everything())
    roles = {p.pid: (p.engine, p.role) for p in procs.processes}
    assert roles == {
        4101: ("vllm", "api-server"), 4180: ("vllm", "engine-core"), 4190: ("vllm", "helper"),
        4230: ("vllm", "worker"), 4231: ("vllm", "worker"),
        5101: ("sglang", "api-server"), 5150: ("sglang", "scheduler"), 5151: ("sglang", "scheduler"),
        5160: ("sglang", "detokenizer"),
        6101: ("trtllm", "api-server"), 6150: ("trtllm", "worker"),
        6151: ("trtllm", "worker"),
    }
    assert {p.pid for p in procs.roots()} == {4101, 5101, 6101}
    assert {p.pid for p in procs.instance(procs.roots("vllm")[0])} == {4101, 4180, 4190, 4230, 4231}
    worker = next(p for p in procs.processes if p.pid == 4230)
    # The title overwrote the worker's environment block: it is read from the API server's.
    assert worker.environ_from == 4101 and worker.env("VIRTUAL_ENV") == VENV
    assert worker.limits is not None and worker.limits["Max open files"] == ("1048576", "1048576")
    assert worker.status["Cpus_allowed_list"] == "0-63" and worker.ppid == 4180
    assert procs.current is not None and procs.current.env("CUDA_DEVICE_MAX_CONNECTIONS") == "32"


def test_secrets_are_redacted_before_the_provider_sees_them() -> None:
    procs, _ = facts(everything())
    api = next(p for p in procs.processes if p.pid == 4101)
    assert API_KEY not in " ".join(api.argv) and "--api-key" in api.argv
    assert api.env("HF_TOKEN") != HF_TOKEN


def test_unreadable_environ_is_none_and_the_checks_ask_for_root() -> None:
    files = vllm_v1()
    files["/proc/4101/environ"] = PermissionError(13, "Permission denied")
    files["/proc/4190/environ"] = PermissionError(13, "Permission denied")
    procs, _ = facts(host(unrelated(), audit_self(), files, vllm_site()))
    api = next(p for p in procs.processes if p.pid == 4101)
    assert api.environ is None and "root" in api.environ_note
    r = run_checks(host(unrelated(), audit_self(), files, vllm_site()), ["RT-ENV-VLLM"])["RT-ENV-VLLM"]
    assert r.status == "unknown" and "root" in r.hint


def test_no_engine_reads_the_audits_own_process_and_says_so() -> None:
    procs, env = facts(host(unrelated(), audit_self()))
    assert not procs.found and procs.current is not None
    assert not env.from_serving_process
    results = run_checks(host(unrelated(), audit_self(CUDA_DEVICE_MAX_CONNECTIONS="1")), RT_IDS)
    r = results["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"]
    assert r.status == "issue" and "audit's own environment" in r.message
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"
    nofile = results["RT-ULIMIT-NOFILE"]
    assert nofile.status == "ok" and "no engine runs" in nofile.message and "this shell" in nofile.message


def test_classify_recognises_launch_forms_and_ignores_look_alikes() -> None:
    assert classify(("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "x")) is not None
    assert classify(("/usr/bin/python3", "-u", "-m", "sglang.launch_server", "--model-path", "x")) is not None
    assert classify(("mpirun", "-n", "2", "--allow-run-as-root", "trtllm-llmapi-launch", "trtllm-serve", "m"))
    assert classify(("ray::RayWorkerWrapper.execute_method",)) is not None
    assert classify(("VllmWorkerProcess",)) is not None
    for argv in (("grep", "vllm", "serve"), ("uv", "run", "vllm", "serve"), ("bash", "-c", "vllm serve m"),
                 ("/usr/bin/python3", "bench.py", "--enforce-eager"), ("tail", "-f", "/var/log/trtllm-serve.log")):
        assert classify(argv) is None, argv
    # Another program's "X::Worker" title counts only under a vLLM process (custom VLLM_PROCESS_NAME_PREFIX).
    match = classify(("celery::Worker",))
    assert match is not None and match.needs_parent


def test_python_env_comes_from_the_engines_interpreter_not_the_audits() -> None:
    _, env = facts(everything())
    assert env.from_serving_process
    vllm_env = _engine_env(env, "vllm")
    assert vllm_env.prefix == VENV and vllm_env.python_version == "3.12"
    assert vllm_env.version("torch") == "2.7.1+cu128" and vllm_env.torch_cuda == "12.8"
    assert vllm_env.version("flashinfer-python") == "0.2.8" and vllm_env.nccl_wheel() == ("nvidia-nccl-cu12", "2.26.2")
    assert f"{SITE}/torch-2.7.1+cu128.dist-info/METADATA" in vllm_env.read
    assert _engine_env(env, "sglang").version("sglang") == "0.4.10.post2"
    assert _engine_env(env, "trtllm").version("tensorrt-llm") == "1.0.0rc4"


def test_python_env_reads_a_containerised_engine_through_its_proc_root() -> None:
    # The engine runs in a container: its /usr/local/lib/python3.12 is not the host's.
    inside = {f"/proc/6101/root{k}": v for k, v in trtllm().items() if k.startswith("/usr/")}
    inside["/proc/6101/root/usr/local/lib/python3.12/dist-packages/tensorrt_llm-0.21.0.dist-info/METADATA"] = (
        "Name: tensorrt_llm\nVersion: 0.21.0\n")
    del inside["/proc/6101/root/usr/local/lib/python3.12/dist-packages/tensorrt_llm-1.0.0rc4.dist-info/METADATA"]
    _, env = facts(host(unrelated(), audit_self(), trtllm(), inside))
    assert _engine_env(env, "trtllm").version("tensorrt-llm") == "0.21.0"


# --- RT-CUDA-GRAPHS ---------------------------------------------------------------------------


def test_cuda_graphs_enforce_eager_is_a_p0_issue_from_the_engine_argv() -> None:
    r = run_checks(host(unrelated(), audit_self(), vllm_v1(extra_args=("--enforce-eager",)), vllm_site()),
                   ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and r.severity == "high" and r.fix_cost == "restart" and r.priority == "P0"
    assert "pid 4101" in r.subjects and "--enforce-eager" in r.message


def test_cuda_graphs_sglang_disable_flag_and_trtllm_config() -> None:
    r = run_checks(host(unrelated(), sglang(extra_args=("--disable-cuda-graph",))), ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and "--disable-cuda-graph" in r.message
    cfg = "backend: pytorch\ncuda_graph_config: null\nenable_attention_dp: false\n"
    r = run_checks(host(unrelated(), trtllm(config=cfg)), ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "issue" and "/workspace/extra-llm-api-config.yml" in r.message


def test_cuda_graphs_vllm_optimization_level_and_compilation_config() -> None:
    for args in (("-O0",), ("--compilation-config", json.dumps({"cudagraph_mode": "NONE"}))):
        r = run_checks(host(unrelated(), vllm_v1(extra_args=args), vllm_site()), ["RT-CUDA-GRAPHS"])
        assert r["RT-CUDA-GRAPHS"].status == "issue", args


def test_cuda_graphs_vllm_underscore_spellings_are_read_like_vllm_does() -> None:
    """vLLM's FlexibleArgumentParser takes `--enforce_eager` for `--enforce-eager`: still eager mode."""
    for args in (("--enforce_eager",), ("--compilation_config", json.dumps({"cudagraph_mode": "NONE"})),
                 ("--enforce_eager=true",)):
        r = run_checks(host(unrelated(), vllm_v1(extra_args=args), vllm_site()), ["RT-CUDA-GRAPHS"])
        assert r["RT-CUDA-GRAPHS"].status == "issue", args
    r = run_checks(host(unrelated(), vllm_v1(extra_args=("--no-enforce_eager",)), vllm_site()), ["RT-CUDA-GRAPHS"])
    assert r["RT-CUDA-GRAPHS"].status == "ok"


def test_cuda_graphs_on_is_ok_and_look_alikes_are_not_flagged() -> None:
    # Trap: an unrelated bench.py with --enforce-eager (pid 970) and SGLang's --disable-cuda-graph-padding.
    parts = (unrelated(), vllm_v1(extra_args=("--no-enforce-eager", "--compilation-config",
                                              '{"cudagraph_mode": "FULL_AND_PIECEWISE"}')),
             vllm_site(), sglang(extra_args=("--disable-cuda-graph-padding",)))
    r = run_checks(host(*parts), ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "ok", r.message


def test_cuda_graphs_low_capture_cap_is_low_severity() -> None:
    r = run_checks(host(unrelated(), sglang(extra_args=("--cuda-graph-max-bs", "4"))), ["RT-CUDA-GRAPHS"])
    assert r["RT-CUDA-GRAPHS"].status == "issue" and r["RT-CUDA-GRAPHS"].severity == "low"


# --- RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS ---------------------------------------------------------


def test_max_connections_1_in_vllm_is_a_low_unproven_issue() -> None:
    parts = (unrelated(), audit_self(), vllm_v1(env={"CUDA_DEVICE_MAX_CONNECTIONS": "1"}), vllm_site())
    r = run_checks(host(*parts), ["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"])["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"]
    assert r.status == "issue" and r.severity == "low" and r.confidence == "unproven" and r.priority == "P2"
    assert "unproven" in r.message and "pid 4101" in r.message


def test_max_connections_in_sglang_is_not_an_issue() -> None:
    # Trap: SGLang overwrites it. The launcher's environ says 1; the audit's own says 32 (ignored).
    r = run_checks(host(unrelated(), audit_self(), sglang()), ["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"])
    assert r["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"].status == "not-an-issue"


def test_max_connections_unset_in_vllm_does_not_apply_despite_the_audits_env() -> None:
    r = run_checks(host(unrelated(), audit_self(), vllm_v1(), vllm_site()), ["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"])
    assert r["RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS"].status == "not-applicable"


# --- RT-ENV-VLLM ---------------------------------------------------------------------------------


def test_env_vllm_flags_the_slow_variables_of_the_engine() -> None:
    parts = (unrelated(), audit_self(), vllm_site(),
             vllm_v1(env={"VLLM_USE_FLASHINFER_SAMPLER": "0", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}))
    r = run_checks(host(*parts), ["RT-ENV-VLLM"])["RT-ENV-VLLM"]
    assert r.status == "issue" and set(r.subjects) == {"VLLM_USE_FLASHINFER_SAMPLER", "VLLM_ENABLE_V1_MULTIPROCESSING"}
    assert "vLLM 0.10.1.1" in r.message


def test_env_vllm_nccl_so_path_other_than_torchs_wheel() -> None:
    parts = (unrelated(), vllm_site(), vllm_v1(env={"VLLM_NCCL_SO_PATH": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3"}))
    r = run_checks(host(*parts), ["RT-ENV-VLLM"])["RT-ENV-VLLM"]
    assert r.status == "issue" and "2.26.2" in r.message


def test_env_vllm_skip_p2p_check_is_vllms_default() -> None:
    # Trap (correction 2026-11-29): VLLM_SKIP_P2P_CHECK=1 is the default; the audit's env has a bad value.
    r = run_checks(host(unrelated(), audit_self(VLLM_USE_FLASHINFER_SAMPLER="0"), vllm_v1(), vllm_site()),
                   ["RT-ENV-VLLM"])["RT-ENV-VLLM"]
    assert r.status == "not-an-issue" and "default" in r.message


def test_env_vllm_clean_is_ok_and_other_engines_not_applicable() -> None:
    files = vllm_v1()
    r = run_checks(host(unrelated(), files, vllm_site(), links={}), ["RT-ENV-VLLM"])["RT-ENV-VLLM"]
    assert r.status in ("ok", "not-an-issue")
    env = {**BASE_ENV, "VIRTUAL_ENV": VENV}
    files["/proc/4101/environ"] = "\x00".join(f"{k}={v}" for k, v in env.items()).encode() + b"\x00"
    files["/proc/4190/environ"] = files["/proc/4101/environ"]
    assert run_checks(host(unrelated(), files, vllm_site()), ["RT-ENV-VLLM"])["RT-ENV-VLLM"].status == "ok"
    assert run_checks(host(unrelated(), sglang()), ["RT-ENV-VLLM"])["RT-ENV-VLLM"].status == "not-applicable"


# --- RT-ENV-SGLANG -------------------------------------------------------------------------------


def test_env_sglang_own_values_are_not_an_issue() -> None:
    parts = (unrelated(), audit_self(), sglang(env={"NCCL_NVLS_ENABLE": "0", "NCCL_CUMEM_ENABLE": "0"}))
    r = run_checks(host(*parts), ["RT-ENV-SGLANG"])["RT-ENV-SGLANG"]
    assert r.status == "not-an-issue" and "NCCL_NVLS_ENABLE=0" in r.message


def test_env_sglang_flag_without_effect_in_the_schedulers_own_environment() -> None:
    parts = (unrelated(), sglang(extra_args=("--enable-nccl-nvls",), scheduler_env={"NCCL_NVLS_ENABLE": "0",
                                                                                     "SPT_NOENV": "1"}))
    r = run_checks(host(*parts), ["RT-ENV-SGLANG"])["RT-ENV-SGLANG"]
    assert r.status == "issue" and "--enable-nccl-nvls" in r.message and "pid 5150" in r.message


def test_env_sglang_scheduler_with_the_flag_honoured_is_not_an_issue_and_vllm_only_is_na() -> None:
    parts = (unrelated(), sglang(extra_args=("--enable-nccl-nvls",), scheduler_env={"NCCL_NVLS_ENABLE": "1",
                                                                                     "SPT_NOENV": "1"}))
    assert run_checks(host(*parts), ["RT-ENV-SGLANG"])["RT-ENV-SGLANG"].status in ("not-an-issue", "ok")
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site()), ["RT-ENV-SGLANG"])["RT-ENV-SGLANG"]
    assert r.status == "not-applicable"


# --- RT-ULIMIT-NOFILE ----------------------------------------------------------------------------


def test_nofile_hard_limit_low_on_the_api_server_is_an_issue() -> None:
    # The audit's own process has a high limit; the engine's is what counts.
    r = run_checks(host(unrelated(), audit_self(), vllm_v1(nofile=("4096", "4096")), vllm_site()),
                   ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "issue" and r.severity == "medium" and "pid 4101" in r.subjects
    assert r.scope == "container" or r.fix is not None


def test_nofile_low_soft_with_high_hard_in_sglang_is_not_an_issue() -> None:
    r = run_checks(host(unrelated(), sglang(nofile=("1024", "1048576"))), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "not-an-issue" and "hard limit" in r.message


def test_nofile_high_is_ok() -> None:
    r = run_checks(host(unrelated(), vllm_v1(nofile=("65536", "1048576")), vllm_site()), ["RT-ULIMIT-NOFILE"])
    assert r["RT-ULIMIT-NOFILE"].status == "ok"


def _pasted(text: str, tmp_path: Any) -> Any:
    from stackaudit.importers.pasted import load_pasted
    path = tmp_path / "paste.txt"
    path.write_text(text)
    return load_pasted([str(path)])


def test_a_pasted_container_ulimit_settles_the_open_file_limit(tmp_path: Any) -> None:
    # Real: tests/data/captures/663 (sgl-project/sglang, two H20 nodes): `--ulimit=nofile=120000` sets soft and
    # hard, and every process in the container inherits it.
    from pathlib import Path
    capture = next(Path(__file__).parent.joinpath("data", "captures").glob("663-*.txt"))
    r = run_checks(_pasted(capture.read_text(), tmp_path), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "ok" and "hard 120000" in r.message


@pytest.mark.parametrize(("flags", "status"), [
    ("--ulimit nofile=-1", "unknown"),
    ("--ulimit nofile=1024:4096", "issue"),
    ("", "unknown"),
])
def test_a_modelled_serving_container_without_a_high_nofile_is_not_ok(flags: str, status: str, tmp_path: Any) -> None:
    # Modelled: two serving containers; only the first sets a limit. The second inherits the daemon's, which no
    # paste shows, so a high limit on the first is no ok for both.
    text = (f"docker run -d --gpus all --name a {flags} vllm/vllm-openai:latest --model m\n"
            "docker run -d --gpus all --name b vllm/vllm-openai:latest --model m\n")
    r = run_checks(_pasted(text, tmp_path), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == status, r.message


def test_a_modelled_single_container_with_unlimited_nofile_is_ok(tmp_path: Any) -> None:
    text = "docker run -d --gpus all --name a --ulimit nofile=-1 vllm/vllm-openai:latest --model m\n"
    r = run_checks(_pasted(text, tmp_path), ["RT-ULIMIT-NOFILE"])["RT-ULIMIT-NOFILE"]
    assert r.status == "ok" and "hard unlimited" in r.message


# --- RT-OMP --------------------------------------------------------------------------------------


def test_omp_oversubscription_in_the_workers_is_an_issue() -> None:
    files = vllm_v1(env={"OMP_NUM_THREADS": "16"}, tp=4)
    for pid in (4230, 4231, 4232, 4233):
        files[f"/proc/{pid}/status"] = _status(pid, 4180, "VLLM::Worker", cpus="0-15")
    r = run_checks(host(unrelated(), audit_self(), files, vllm_site()), ["RT-OMP"])["RT-OMP"]
    assert r.status == "issue" and "16 x 4" in r.message and "on 16 CPUs" in r.message


def test_omp_1_is_vllms_default_and_unset_is_ok() -> None:
    # Trap: 1 is vLLM's own default. The unrelated pid 970 with 64 and the test's 4096 are not read.
    r = run_checks(host(unrelated(), vllm_v1(env={"OMP_NUM_THREADS": "1"}), vllm_site()), ["RT-OMP"])["RT-OMP"]
    assert r.status == "not-an-issue"
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site()), ["RT-OMP"])["RT-OMP"]
    assert r.status == "ok" and "not set" in r.message


# --- RT-TRTLLM-ALLREDUCE -------------------------------------------------------------------------


def test_trtllm_forced_oneshot_needs_p2p_knowledge() -> None:
    cfg = "allreduce_strategy: ONESHOT\nkv_cache_config:\n  free_gpu_memory_fraction: 0.9\n"
    r = run_checks(host(unrelated(), trtllm(config=cfg)), ["RT-TRTLLM-ALLREDUCE"])["RT-TRTLLM-ALLREDUCE"]
    assert r.status == "unknown" and "ONESHOT" in r.message and "topo -p2p" in r.hint
    # The verdict the check gives once the GPU interconnect facts exist:
    assert rt.trtllm_allreduce_verdict("ONESHOT", 4, nvlink=None, p2p=False) == "issue"
    assert rt.trtllm_allreduce_verdict("TWOSHOT", 8, nvlink=True, p2p=None) == "ok"


def test_trtllm_auto_or_nccl_is_ok_and_tp1_or_other_engines_not_applicable() -> None:
    r = run_checks(host(unrelated(), trtllm(config="allreduce_strategy: NCCL\n")), ["RT-TRTLLM-ALLREDUCE"])
    assert r["RT-TRTLLM-ALLREDUCE"].status == "ok"
    r = run_checks(host(unrelated(), trtllm(tp=1)), ["RT-TRTLLM-ALLREDUCE"])
    assert r["RT-TRTLLM-ALLREDUCE"].status == "not-applicable"
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site()), ["RT-TRTLLM-ALLREDUCE"])
    assert r["RT-TRTLLM-ALLREDUCE"].status == "not-applicable"


# --- RT-TORCH-ARCH, RT-FLASHINFER, RT-VERSION-MATRIX -------------------------------------------


def _gpu_bus(files: dict[str, Any], links: dict[str, str]) -> None:
    bdf = "0000:41:00.0"
    real = f"/sys/devices/pci0000:40/0000:40:01.1/{bdf}"
    links[f"/sys/bus/pci/devices/{bdf}"] = f"../../..{real[4:]}"
    files.update({f"{real}/vendor": "0x10de\n", f"{real}/device": "0x2bb1\n", f"{real}/class": "0x030200\n"})


def test_torch_arch_cpu_only_torch_on_a_gpu_host_is_an_issue() -> None:
    files: dict[str, Any] = {**unrelated(), **vllm_v1(), **vllm_site(torch="2.7.1+cpu", torch_cuda=None)}
    links = {"/proc/4101/exe": "/usr/bin/python3.12"}
    _gpu_bus(files, links)
    r = run_checks(fake_host(files=files, links=links), ["RT-TORCH-ARCH"])["RT-TORCH-ARCH"]
    assert r.status == "issue" and r.severity == "high" and "without CUDA" in r.message


def test_torch_arch_cuda_build_is_unknown_until_gpu_capability_is_known() -> None:
    files: dict[str, Any] = {**unrelated(), **vllm_v1(), **vllm_site(torch="2.5.1+cu124", torch_cuda="12.4")}
    links = {"/proc/4101/exe": "/usr/bin/python3.12"}
    _gpu_bus(files, links)
    r = run_checks(fake_host(files=files, links=links), ["RT-TORCH-ARCH"])["RT-TORCH-ARCH"]
    assert r.status == "unknown" and "cannot run on Blackwell" in r.message and "get_arch_list" in r.hint
    assert rt.torch_supports("12.0", "2.5.1+cu124", "12.4") is False
    assert rt.torch_supports("12.0", "2.7.1", "12.8", ("sm_90", "sm_100", "sm_120")) is True
    assert rt.torch_supports("9.0", "2.7.1", "12.8") is None


def test_torch_arch_not_applicable_without_nvidia_gpus() -> None:
    files = {**unrelated(), **vllm_v1(), **vllm_site(), "/sys/bus/pci/devices/0000:00:00.0/vendor": "0x1022\n",
             "/sys/bus/pci/devices/0000:00:00.0/class": "0x060000\n"}
    r = run_checks(fake_host(files=files, links={"/proc/4101/exe": "/usr/bin/python3.12"}), ["RT-TORCH-ARCH"])
    assert r["RT-TORCH-ARCH"].status == "not-applicable"


def test_flashinfer_package_mismatch_is_an_issue() -> None:
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site(flashinfer="0.2.8", cubin="0.2.6")), ["RT-FLASHINFER"])
    assert r["RT-FLASHINFER"].status == "issue" and r["RT-FLASHINFER"].severity == "medium"
    severe = run_checks(host(unrelated(), vllm_v1(env={"FLASHINFER_DISABLE_VERSION_CHECK": "1"}),
                             vllm_site(flashinfer="0.2.8", cubin="0.2.6")), ["RT-FLASHINFER"])
    assert severe["RT-FLASHINFER"].severity == "high"


def test_flashinfer_cuda_home_older_than_torchs_cuda_is_an_issue() -> None:
    extra = {"/usr/local/cuda-12.4/version.json": json.dumps({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})}
    r = run_checks(host(unrelated(), vllm_v1(env={"CUDA_HOME": "/usr/local/cuda-12.4"}), vllm_site(), extra),
                   ["RT-FLASHINFER"])["RT-FLASHINFER"]
    assert r.status == "issue" and "12.4.1" in r.message and "12.8" in r.message


def test_flashinfer_without_system_toolkit_is_not_an_issue_and_aligned_is_ok() -> None:
    # The test's own CUDA_HOME=/usr/local/cuda-11.8 is not read.
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site()), ["RT-FLASHINFER"])["RT-FLASHINFER"]
    assert r.status == "not-an-issue" and "JIT" in r.message
    extra = {"/usr/local/cuda/version.json": json.dumps({"cuda": {"version": "12.8.1"}})}
    r = run_checks(host(unrelated(), vllm_v1(), vllm_site(), extra), ["RT-FLASHINFER"])["RT-FLASHINFER"]
    assert r.status == "ok"
    r = run_checks(host(unrelated(), trtllm()), ["RT-FLASHINFER"])["RT-FLASHINFER"]
    assert r.status == "not-applicable"


def test_version_matrix_is_inventory_of_every_engine() -> None:
    r = run_checks(everything(), ["RT-VERSION-MATRIX"])["RT-VERSION-MATRIX"]
    assert r.status == "ok"
    for text in ("vllm 0.10.1.1", "torch 2.7.1+cu128", "torch_cuda 12.8", "nvidia-nccl-cu12 2.26.2",
                 "sglang 0.4.10.post2", "tensorrt-llm 1.0.0rc4", "triton 3.3.1", "python 3.12"):
        assert text in r.message, text


# --- every check, secrets ------------------------------------------------------------------------


def test_every_rt_check_has_a_status_and_no_secret_leaks() -> None:
    results = run_checks(everything(), ["RT"])
    assert set(results) == set(RT_IDS)
    for r in results.values():
        assert r.status != "error", (r.id, r.message)
        blob = json.dumps([r.message, r.actual, r.expected, list(r.evidence), list(r.subjects), r.hint], default=str)
        assert API_KEY not in blob and HF_TOKEN not in blob, r.id


def test_processinfo_option_reads_flags_then_config() -> None:
    p = ProcessInfo(pid=1, ppid=None, comm="x", argv=("trtllm-serve", "m", "--tp_size", "4"),
                    config={"allreduce_strategy": "NCCL", "tp_size": "2"}, engine="trtllm")
    assert p.option("--tp_size") == "4" and p.option("allreduce_strategy") == "NCCL"


def test_pasted_ulimit_without_a_process_list_is_not_read_as_no_engine() -> None:
    # A pasted `ulimit -a` is imported as /proc/self/limits with the hard column unknown.
    values = {name: ("unlimited", "unknown") for name, _ in LIMIT_ROWS}
    values["Max open files"] = ("1024", "unknown")
    pasted = fake_host(files={"/proc/self/limits": format_limits(values)}, strict=True)
    results = run_checks(pasted, ["RT-ULIMIT-NOFILE", "RT-CUDA-GRAPHS", "RT-VERSION-MATRIX"])
    nofile = results["RT-ULIMIT-NOFILE"]
    assert nofile.status == "unknown" and "hard not shown" in nofile.message and "captured from" in nofile.message
    assert results["RT-CUDA-GRAPHS"].status == "unknown" and "capture" in results["RT-CUDA-GRAPHS"].hint
    assert results["RT-VERSION-MATRIX"].status == "unknown"


def test_a_flashinfer_wheel_for_torch_2_4_beside_torch_2_5_is_not_flagged() -> None:
    """Corpus 1133 (sgl-project/sglang#2746): `flashinfer: 0.1.6+cu124torch2.4` beside torch 2.5.1+cu121, the pair
    SGLang 0.4.1's install line produced. FlashInfer's maintainers: torch 2.4 and 2.5 are ABI compatible, so the
    torch 2.4 wheel runs on 2.5 (flashinfer-ai/flashinfer#689). The wheel's torch tag alone proves no fault."""
    r = capture_checks("1133", "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status != "issue", r.message
