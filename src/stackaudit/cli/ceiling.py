"""`stackaudit ceiling`: argument wiring only; the model lives in stackaudit.ceiling."""

from __future__ import annotations

from typing import Any, Optional

import click

from stackaudit.cli.options import FILE, Command, format_option, output_option


def _parse_concurrency(text: str) -> list[int]:
    from stackaudit.errors import UsageError

    try:
        values = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise UsageError(f"--concurrency {text!r}: give integers separated by commas, e.g. 1,10") from None
    if not values or min(values) < 1:
        raise UsageError(f"--concurrency {text!r}: values must be 1 or more")
    return values


def _parse_measured(items: list[str], concurrencies: list[int]) -> dict[int, float]:
    """`10.36` (per stream, at the lowest concurrency) or `C=VALUE` pairs, comma-separated or repeated."""
    from stackaudit.errors import UsageError

    measured: dict[int, float] = {}
    for item in ",".join(items).split(","):
        item = item.strip()
        if not item:
            continue
        try:
            if "=" in item:
                conc_text, _, value_text = item.partition("=")
                concurrency, value = int(conc_text), float(value_text)
            else:
                concurrency, value = min(concurrencies), float(item)
        except ValueError:
            raise UsageError(
                f"--measured {item!r}: give tokens/s per stream, or C=VALUE pairs like 1=10.4,10=8.2"
            ) from None
        if concurrency < 1 or value <= 0:
            raise UsageError(f"--measured {item!r}: concurrency and rate must be positive")
        if concurrency in measured:
            raise UsageError(f"--measured gives concurrency {concurrency} twice")
        measured[concurrency] = value
    return measured


_UNKNOWN = "–"


def _known(value: float) -> str:
    """A table value, or "–" where the table has none (0 means not supported or not published)."""
    return f"{value:g}" if value > 0 else _UNKNOWN


def _list_gpus() -> str:
    from stackaudit.gputable import all_gpus

    lines = [f"{'name':<36}{'memory':>8}{'GB/s':>8}{'bf16 TF':>9}{'fp8 TF':>8}{'fp4 TF':>8}  link"]
    for gpu in all_gpus():
        if gpu.has_nvlink:
            link = f"NVLink {gpu.nvlink_kind} {gpu.nvlink_total_gbs:g} GB/s, domain {gpu.nvlink_domain}"
        else:
            link = "no NVLink"
        host = f"PCIe gen{gpu.pcie_gen} x{gpu.pcie_width}" if gpu.pcie_gen > 0 else f"PCIe {_UNKNOWN}"
        bf16 = gpu.dense_tflops("bf16") or gpu.dense_tflops("fp16")
        lines.append(
            f"{gpu.name:<36}{_known(gpu.memory_gib):>6}Gi{_known(gpu.memory_bandwidth_gbs):>8}{_known(bf16):>9}"
            f"{_known(gpu.dense_tflops('fp8')):>8}{_known(gpu.dense_tflops('fp4')):>8}  {link}, {host}"
        )
    return "\n".join(lines) + "\n"


def _resolve_gpu(
    gpu_name: Optional[str],
    gpus: Optional[int],
    interconnect: Optional[str],
    bandwidth: Optional[float],
    group: int = 1,
) -> dict[str, Any]:
    """GPU spec, count, interconnect and bandwidth: from the flags, else detected through NVML."""
    from dataclasses import replace

    from stackaudit.ceiling.detect import detect_local_gpus, resolve_detected
    from stackaudit.errors import UsageError
    from stackaudit.gputable import UnknownGpuError, lookup

    out: dict[str, Any] = {"interconnect": interconnect, "bandwidth_gbs": bandwidth, "bandwidth_source": ""}
    if bandwidth is not None:
        if bandwidth <= 0:
            raise UsageError("--bandwidth must be positive GB/s")
        out["bandwidth_source"] = "--bandwidth"
    if gpu_name:
        try:
            match = lookup(gpu_name)
        except UnknownGpuError as exc:
            raise UsageError(f"{exc} (stackaudit ceiling --list-gpus shows the table)") from None
        # --tp/--pp without --gpus: one group of that size (not an error).
        out.update(spec=match.spec, note=match.note, gpus=gpus or group, origin=f"--gpu {gpu_name}")
        return out
    detected = detect_local_gpus()
    if detected is None:
        raise UsageError("no NVIDIA GPU detected; pass --gpu NAME")
    spec, note = resolve_detected(detected)
    nvml_bw = detected.bandwidth_gbs
    if spec is None:
        if nvml_bw is None:
            raise UsageError(f"{note}, not in the GPU table and without NVML memory clocks; pass --gpu NAME")
        base = lookup("L40S").spec  # a PCIe row as a template; its FLOPS are cleared below
        spec = replace(
            base, name=detected.names[0], aliases=(), nvidia_smi_names=(detected.names[0],),
            memory_bandwidth_gbs=nvml_bw, tflops={}, source="NVML (not in the GPU table)",
            notes="not in data/gpus.toml: no FLOPS figures, compute ceiling unknown",
        )  # fmt: skip
        note += "; not in the GPU table: bandwidth from NVML clocks, compute unknown"
    if out["bandwidth_gbs"] is None and nvml_bw and abs(nvml_bw / spec.memory_bandwidth_gbs - 1) > 0.03:
        out["bandwidth_gbs"] = nvml_bw
        out["bandwidth_source"] = (
            f"NVML: 2 x {detected.max_memory_clock_mhz} MHz x {detected.memory_bus_bits} bit / 8; "
            f"the table says {spec.memory_bandwidth_gbs:g}"
        )
    out["interconnect"] = interconnect or (detected.interconnect if detected.count > 1 else None)
    out.update(spec=spec, note=note, gpus=gpus or detected.count, origin="NVML")
    return out


@click.command("ceiling", cls=Command)
@click.option("--model", "-m", metavar="MODEL",
              help="config.json, a .gguf file (needs the gguf extra), an MLC mlc-chat-config.json, a model "
              "directory, an id in the local Hugging Face cache, or an id in stackaudit's model catalogue "
              "(never a download).")
@click.option("--gpu", metavar="NAME",
              help="GPU name as people write it (H100, RTX PRO 6000 ...); detected through NVML when absent.")
@click.option("--gpus", type=click.INT, metavar="N", help="GPUs serving the model (default: detected, else 1).")
@click.option("--tp", type=click.INT, metavar="N",
              help="Tensor-parallel size (default: all GPUs); without --gpus it sets them.")
@click.option("--pp", type=click.INT, metavar="N",
              help="Pipeline stages (layer split); default 1, or the split that fits when replicas do not.")
@click.option("--ep", type=click.INT, metavar="N", help="Expert-parallel size for MoE layers (default 1).")
@click.option("--weights", metavar="WEIGHTS",
              help="bf16, fp8, int8, int4-awq-g128, nvfp4, mxfp4, q4_k_m ... or CLASS=FORMAT items "
              "(nvfp4,attention=bf16); default: the config's quantization_config.")
@click.option("--kv-dtype", metavar="DTYPE", help="KV cache dtype: bf16 (default), fp8 ...")
@click.option("--context", type=click.INT, metavar="TOKENS",
              help="Tokens in each KV cache: adds a kv-loaded ceiling (the hardware line stays at context 0).")
@click.option("--concurrency", default="1", metavar="LEVELS", help="Concurrent streams, comma list: 1,10.")
@click.option("--measured", multiple=True, metavar="TOKS",
              help="Measured tokens/s per stream, or C=VALUE pairs (1=10.4,10=8.2); comma list or repeated.")
@click.option("--interconnect", metavar="KIND",
              help="nvlink, xgmi, pcie, pcie-no-p2p (default: detected or from the GPU table).")
@click.option("--allreduce", default="auto", metavar="KIND", help="auto (vLLM's custom all-reduce rules), custom, nccl.")
@click.option("--topology", metavar="CLASS",
              help="The path the all-reduce crosses: nvlink, pcie-switch, pcie-socket, pcie-cross-socket "
              "(default: the fastest class measured for the link, said in the report; `audit` reads it).")
@click.option("--bandwidth", type=click.FLOAT, metavar="GBS", help="Memory bandwidth per GPU in GB/s (override).")
@format_option("ceiling")
@output_option("Write the report to FILE.")
@click.option("--plot", type=FILE, metavar="FILE",
              help="Draw the ceiling ladder to this PNG file (a directory: ceiling.png in it; needs the plot extra).")
@click.option("--list-gpus", is_flag=True, help="Print the GPU table and exit.")
def command(model: Optional[str], gpu: Optional[str], gpus: Optional[int], tp: Optional[int], pp: Optional[int],
            ep: Optional[int], weights: Optional[str], kv_dtype: Optional[str], context: Optional[int],
            concurrency: str, measured: tuple[str, ...], interconnect: Optional[str], allreduce: str,
            topology: Optional[str], bandwidth: Optional[float], fmt: str, output: Optional[str], plot: Optional[str],
            list_gpus: bool) -> None:
    """Theoretical decode throughput from a model config and the GPUs, vs measured."""
    from pathlib import Path

    from stackaudit.errors import UsageError
    from stackaudit.render.formats import check_format

    fmt = check_format("ceiling", fmt)
    if list_gpus:
        click.echo(_list_gpus(), nl=False)
        return
    if not model:
        raise UsageError(
            "--model is required: a config.json, a model directory, or a cached Hugging Face id"
        )

    from stackaudit.ceiling import compute, parse_arch
    from stackaudit.ceiling.headline import resolve_model

    concurrencies = _parse_concurrency(concurrency)
    measured_rates = _parse_measured(list(measured), concurrencies)
    if context is not None and context < 0:
        raise UsageError("--context must be 0 or more tokens")
    choice = resolve_model(model)  # a path, the local Hugging Face cache, else the shipped catalogue
    arch = parse_arch(choice.config, name=choice.name)
    hardware = _resolve_gpu(gpu, gpus, interconnect, bandwidth, group=(tp or 1) * (pp or 1))
    from stackaudit.ceiling.ladder import display_source

    report = compute(
        arch,
        hardware["spec"],
        gpus=hardware["gpus"],
        tp=tp,
        ep=ep,
        pp=pp,
        weights=weights or choice.weights,
        kv_dtype=kv_dtype,
        context=0,
        kv_context=context,
        concurrencies=concurrencies,
        interconnect=hardware["interconnect"],
        allreduce=allreduce,
        topology=topology,
        measured=measured_rates,
        bandwidth_gbs=hardware["bandwidth_gbs"],
        bandwidth_source=hardware["bandwidth_source"],
        gpu_note=hardware["note"],
        source={
            # A cached Hugging Face id is named as typed; a file by its directory and name.
            "model": (choice.source if choice.source.startswith("stackaudit's catalogue")
                      else model if arch.name == model else (display_source(arch.source) or model)),
            "gpu": hardware["origin"],
            "command": "stackaudit ceiling",
        },
    )
    from stackaudit.ceiling.render import render

    text = render(report, fmt)
    if plot:
        from stackaudit.bench.plot import resolve_plot_path
        from stackaudit.ceiling.plot import plot_ladder

        # One meaning of --plot across commands: a file; a directory gets ceiling.png.
        plot_file = resolve_plot_path(plot, "ceiling.png")
        warning = plot_ladder(report, Path(plot_file))
        if warning:
            from stackaudit.cli.output import note

            note(f"stackaudit: warning: {warning}")
        elif plot_file != plot:
            click.echo(f"stackaudit: chart written to {plot_file}", err=True)
    from stackaudit.cli.output import emit

    emit(text, output)
