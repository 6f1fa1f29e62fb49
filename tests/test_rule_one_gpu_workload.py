"""Rule of IC-P2P-FUNCTIONAL (issue 28, h61c): a workload whose every engine command shown runs its model on one GPU
moves nothing between GPUs: not applicable, whatever the host holds (EngineCommand.one_gpu). Every blind reading of
a workload shown on one GPU says so (382, 587, 588, 590, 964, 1301, 1303); a split over several GPUs stays unknown.

Real pastes: 1303 (vllm#359, `CUDA_VISIBLE_DEVICES=7 python -m vllm.entrypoints.api_server`, no TP), 1301 (llama.cpp#10860, llama-server
`--tensor-split 1.0,0.0,0.0` beside a `--version` line). The counter-examples are modelled from them.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted

P2P = "IC-P2P-FUNCTIONAL"


def test_one_visible_device_and_an_all_on_one_tensor_split_are_one_gpu() -> None:
    for prefix, said in (("1303", "CUDA_VISIBLE_DEVICES=7"), ("1301", "--tensor-split 1.0,0.0,0.0")):
        commands = [c for c in fact(pasted(body(prefix)), "engine_commands").commands if not c.asks_only]
        assert commands and all(said in c.one_gpu for c in commands), prefix
        result = capture_checks(prefix, P2P)[P2P]
        assert result.status == "not-applicable" and said in result.message, (prefix, result.message)


def test_modelled_splits_over_several_gpus_are_not_one_gpu(tmp_path: Path) -> None:
    # Modelled: 1303's server given two devices and TP 2; 1301's split over two of its three cards.
    two = body("1303").replace("CUDA_VISIBLE_DEVICES=7 python -m vllm.entrypoints.api_server",
                               "CUDA_VISIBLE_DEVICES=6,7 python -m vllm.entrypoints.api_server --tensor-parallel-size 2")
    split = body("1301").replace("--tensor-split 1.0,0.0,0.0", "--tensor-split 1.0,1.0,0.0")
    for text in (two, split):
        assert text not in (body("1303"), body("1301"))
        assert not any(c.one_gpu for c in fact(pasted(text), "engine_commands").commands)
        assert paste_checks(tmp_path, text, P2P)[P2P].status == "unknown"


def test_modelled_split_mode_none_keeps_the_model_on_one_gpu() -> None:
    text = body("1301").replace("--tensor-split 1.0,0.0,0.0", "--split-mode none")
    commands = [c for c in fact(pasted(text), "engine_commands").commands if not c.asks_only]
    assert commands and all("--split-mode none" in c.one_gpu for c in commands)
