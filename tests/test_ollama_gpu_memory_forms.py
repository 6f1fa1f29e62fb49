"""ollama writes the memory free on each GPU in several forms over its releases, and MEM-GPU-SHARED reads each
(facts/gpus.py engine_gpu_memory; facts/serving_logs.py model_fit):

- 0.1 of 2023 (llm/llama.go): `N MB VRAM available, loading up to K GPU layers`, the free memory of every GPU summed;
- 0.1.3x to 0.11 at discovery: `msg="inference compute" ... library=cuda ... name="…" total="…" available="…"`;
- 0.1.3x to 0.11 as it places a model: `msg="offload to cuda" ... memory.available="[…]" ... memory.required.full=`;
- 0.12 on: `library=CUDA ... description="…" total=… available=…` at discovery;
- 2026 (0.30): `msg="selecting single GPU for llama-server model" ... description="…" ... available="…"`.

Lines quoted verbatim are from the public threads named beside them; lines marked `modelled` are built on those forms.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted

# --- 0.1 of 2023: the free memory of every GPU, summed ---------------------------------------------------------------

# https://github.com/ollama/ollama/issues/1204 (2023-11-20), a GeForce GTX 1650 (4 GiB).
POOLED_1204 = ("2023/11/20 09:01:36 llama.go:290: 3849 MB VRAM available, loading up to 25 GPU layers\n"
               "2023/11/20 09:01:36 llama.go:415: starting llama runner\n"
               "2023/11/20 09:01:36 llama.go:473: waiting for llama runner to start responding\n"
               "ggml_init_cublas: found 1 CUDA devices:\n"
               "  Device 0: NVIDIA GeForce GTX 1650, compute capability 7.5\n")


def test_the_summed_line_is_read_as_one_pooled_reading() -> None:
    memory = fact(pasted(POOLED_1204), "engine_gpu_memory")
    assert [(g.pooled, g.free_mib, g.total_mib) for g in memory.gpus] == [(True, 3849.0, None)]


def test_the_summed_free_memory_of_four_cards_near_their_total_is_ok_over_all_four() -> None:
    # Corpus 1573 (ollama/ollama#1465): 39320 MB free of 3x 11 GiB + 6 GiB (39936 MiB): 616 MiB held in all.
    result = capture_checks("1573", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok", result.message
    assert result.coverage is not None and result.coverage.text() == "4 of 4 GPUs shown"
    assert "616 MiB" in result.message


def test_a_summed_reading_over_gpus_of_unknown_size_is_not_judged(tmp_path: Path) -> None:
    # Modelled on POOLED_1204, on an RTX 2060: NVIDIA sells it with 6 GB and with 12 GB under one name, so the GPU
    # table gives it no one memory size and no total is known (the GTX 1650 of 1204 is 4 GB in every board).
    text = POOLED_1204.replace("GeForce GTX 1650", "GeForce RTX 2060")
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown", result.message


def test_a_summed_reading_with_gigabytes_held_is_not_placed_on_a_gpu(tmp_path: Path) -> None:
    # Modelled on corpus 1573: 30000 MB free of 39936 MiB, 9.7 GiB held on one card or spread: not shown which.
    text = ("Dec 11 18:31:37 x99 ollama[25964]: 2023/12/11 18:31:37 llama.go:292: 30000 MB VRAM available, loading "
            "up to 80 GPU layers\n"
            "Dec 11 18:31:37 x99 ollama[25964]: ggml_init_cublas: found 4 CUDA devices:\n"
            + "".join(f"Dec 11 18:31:37 x99 ollama[25964]:   Device {i}: NVIDIA GeForce GTX 1080 Ti, compute "
                      "capability 6.1\n" for i in range(3))
            + "Dec 11 18:31:37 x99 ollama[25964]:   Device 3: NVIDIA GeForce GTX 1060 6GB, compute capability 6.1\n")
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown", result.message


def test_a_summed_reading_above_the_listed_gpus_total_counts_more_gpus_than_listed(tmp_path: Path) -> None:
    # Modelled: nvidia-smi's sum covers every GPU, CUDA's list one of them (CUDA_VISIBLE_DEVICES narrowed it).
    text = ("2023/12/11 18:31:37 llama.go:292: 40000 MB VRAM available, loading up to 101 GPU layers\n"
            "ggml_init_cublas: found 1 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1\n")
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown", result.message


# --- 0.1.3x to 0.11: discovery's total and available ---------------------------------------------------------------

DISCOVERY = [
    # https://github.com/ollama/ollama/issues/9245 (2025-02-21), one RTX 4080.
    ('time=2025-02-21T13:31:11.961+08:00 level=INFO source=types.go:130 msg="inference compute" '
     'id=GPU-433dad3d-903e-13f1-25aa-8888bfae0c86 library=cuda variant=v12 compute=8.9 driver=12.3 '
     'name="NVIDIA GeForce RTX 4080" total="15.7 GiB" available="15.4 GiB"', 15.7, 15.4),
    # https://github.com/ollama/ollama/issues/11983 (2025-08-20), one RTX 3070.
    ('time=2025-08-20T11:51:52.493+02:00 level=INFO source=types.go:130 msg="inference compute" '
     'id=GPU-c2e245dd-43c2-fb0c-f77c-93e3e5cd10c5 library=cuda variant=v12 compute=8.6 driver=12.9 '
     'name="NVIDIA GeForce RTX 3070" total="7.7 GiB" available="7.0 GiB"', 7.7, 7.0),
    # https://github.com/ollama/ollama/issues/11723 (2025-08-06), the first of two A100s.
    ('time=2025-08-06T09:31:54.410+02:00 level=INFO source=types.go:130 msg="inference compute" '
     'id=GPU-d988422a-a4db-43bb-7c8c-d06cd5df7d1f library=cuda variant=v12 compute=8.0 driver=12.2 '
     'name="NVIDIA A100-SXM4-80GB" total="79.2 GiB" available="78.7 GiB"', 79.2, 78.7),
]


def test_discovery_lines_give_each_gpus_total_and_free_memory() -> None:
    for line, total, free in DISCOVERY:
        memory = fact(pasted(line + "\n"), "engine_gpu_memory")
        assert [(round(g.total_mib / 1024, 1), round(g.free_mib / 1024, 1)) for g in memory.gpus] == [(total, free)]


def test_discovery_lines_of_0_12_name_the_product_in_description(tmp_path: Path) -> None:
    # Modelled on the 0.12 form (types.go:42): `library=CUDA`, a `filter_id` before it, the product in `description`.
    line = ('time=2025-11-22T08:10:47.760+09:00 level=INFO source=types.go:42 msg="inference compute" '
            'id=GPU-5b419f64-406d-db30-3dbc-1ef4ac4d891a filter_id="" library=CUDA compute=8.6 name=CUDA0 '
            'description="NVIDIA GeForce RTX 3060 Ti" libdirs=ollama,cuda_v12 driver=13.0 pci_id=0000:01:00.0 '
            'type=discrete total="8.0 GiB" available="7.6 GiB"\n')
    memory = fact(pasted(line), "engine_gpu_memory")
    assert [(g.gpu, g.total_mib, g.free_mib) for g in memory.gpus] == [
        ("GPU 0 (NVIDIA GeForce RTX 3060 Ti)", 8192.0, 7.6 * 1024)]
    result = paste_checks(tmp_path, line, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok", result.message


# --- 0.1.3x to 0.11: the placement's memory.available against memory.required.full ---------------------------------

PLACEMENT = [
    # https://github.com/ollama/ollama/issues/8509 (2025-01-20): 6.0 GiB free for 6.2 GiB.
    ('time=2025-01-20T22:07:24.319+08:00 level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 '
     'layers.model=29 layers.offload=28 layers.split="" memory.available="[6.0 GiB]" memory.gpu_overhead="0 B" '
     'memory.required.full="6.2 GiB" memory.required.partial="5.8 GiB" memory.required.kv="672.0 MiB" '
     'memory.required.allocations="[5.8 GiB]" memory.weights.total="4.3 GiB" memory.weights.repeating="3.9 GiB" '
     'memory.weights.nonrepeating="426.4 MiB" memory.graph.full="710.0 MiB" memory.graph.partial="878.0 MiB"',
     6.0, 6.2),
    # https://github.com/ollama/ollama/pull/12000 (2025-08-22): 11.1 GiB free for 11.4 GiB.
    ('Aug 22 17:36:22 amobile ollama[30907]: time=2025-08-22T17:36:22.027-04:00 level=INFO source=server.go:175 '
     'msg=offload library=cuda layers.requested=-1 layers.model=49 layers.offload=48 layers.split="" '
     'memory.available="[11.1 GiB]" memory.gpu_overhead="0 B" memory.required.full="11.4 GiB" '
     'memory.required.partial="8.9 GiB" memory.required.kv="992.0 MiB" memory.required.allocations="[8.9 GiB]" '
     'memory.weights.total="6.8 GiB" memory.weights.repeating="6.0 GiB" memory.weights.nonrepeating="787.5 MiB" '
     'memory.graph.full="519.5 MiB" memory.graph.partial="1.3 GiB" projector.weights="795.9 MiB" '
     'projector.graph="1.0 GiB"', 11.1, 11.4),
    # https://github.com/ollama/ollama/issues/9311 (2025-02-24): 21.6 GiB free for 11.3 GiB.
    ('time=2025-02-24T08:35:41.322-08:00 level=INFO source=memory.go:356 msg="offload to cuda" '
     'projector.weights="1.8 GiB" projector.graph="2.8 GiB" layers.requested=-1 layers.model=41 layers.offload=41 '
     'layers.split="" memory.available="[21.6 GiB]" memory.gpu_overhead="0 B" memory.required.full="11.3 GiB" '
     'memory.required.partial="11.3 GiB" memory.required.kv="656.2 MiB" memory.required.allocations="[11.3 GiB]" '
     'memory.weights.total="5.5 GiB" memory.weights.repeating="5.1 GiB" memory.weights.nonrepeating="411.0 MiB" '
     'memory.graph.full="258.5 MiB" memory.graph.partial="669.5 MiB"', 21.6, 11.3),
]


def test_placement_lines_give_the_free_memory_against_the_whole_model() -> None:
    for line, free, need in PLACEMENT:
        fit = fact(pasted(line + "\n"), "serving_log").model_fit
        assert fit is not None and fit[:2] == (free, need), line[:80]


# --- 2026 (0.30): the scheduler's choice of one GPU ----------------------------------------------------------------


def test_the_single_gpu_choice_against_the_products_memory_is_ok_where_little_is_held() -> None:
    # Corpus 1572 (ollama/ollama#16533): 31.4 GiB available on a 32 GiB V100, beside nvidia-smi's header line alone.
    memory = fact(pasted(body("1572").splitlines()[-1] + "\n"), "engine_gpu_memory")
    assert [(g.gpu, g.total_mib) for g in memory.gpus] == [("CUDA0 (Tesla V100-SXM2-32GB)", 32768.0)]
    result = capture_checks("1572", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok", result.message
    assert result.coverage is not None and result.coverage.text() == "1 GPU shown"


def test_the_single_gpu_choice_with_gigabytes_held_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 1572's line: 20.0 GiB available on the 32 GiB V100, 12 GiB held by something else.
    line = ('Jun 05 09:22:23 LLM-T01-Server ollama[2062701]: time=2026-06-05T09:22:23.191+08:00 level=INFO '
            'source=sched.go:1014 msg="selecting single GPU for llama-server model" main_gpu=0 id=0 filter_id=0 '
            'library=CUDA name=CUDA0 description="Tesla V100-SXM2-32GB" integrated=false predicted="12.0 GiB" '
            'available="20.0 GiB"\n')
    result = paste_checks(tmp_path, line, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown", result.message
