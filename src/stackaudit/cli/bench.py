"""`bench`, `bench history`, `bench compare`: argument wiring only.

Only click is imported here; aiohttp and the bench package load when the command runs, so
that `stackaudit --help` stays fast.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Optional

import click

from stackaudit.cli.options import FILE, Group, HelpArgument, format_option, output_option
from stackaudit.errors import UsageError


def _ints(text: str, flag: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise UsageError(f"{flag} takes a comma list of integers, e.g. 1,10; got {text!r}") from None
    if not values or min(values) < 1:
        raise UsageError(f"{flag} takes positive integers, got {text!r}")
    return sorted(set(values))


def _floats(text: str, flag: str) -> list[float]:
    try:
        values = [float(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise UsageError(f"{flag} takes a comma list of numbers, e.g. 0.5,2; got {text!r}") from None
    if not values or min(values) <= 0:
        raise UsageError(f"{flag} takes positive numbers, got {text!r}")
    return sorted(set(values))


def _scrub(value: Any, secret: str | None) -> Any:
    """A report as stored and printed: the API key removed wherever it stands (defence in depth: it is
    never put there), and what the server says about itself (launch flags, model ids, `*_info` labels,
    error bodies) without URL credentials or secrets known by their shape."""
    from stackaudit.host.redact import redact_shapes, redact_url_credentials

    if isinstance(value, dict):
        return {k: _scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secret) for v in value]
    if isinstance(value, str):
        if secret and secret in value:
            value = value.replace(secret, "***")
        return redact_url_credentials(redact_shapes(value))
    return value


DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def _api_key(flag_value: str | None, env_name: str) -> str | None:
    """The bearer token, from the environment only: an argument is readable by every user in
    /proc/PID/cmdline. Neither message repeats what was given (it may be the key)."""
    if flag_value is not None:
        raise UsageError(
            "--api-key VALUE is refused: a command line is readable by every user (/proc/PID/cmdline); "
            f"export the key and name its variable with --api-key-env VAR (default {DEFAULT_KEY_ENV})"
        )
    if not _ENV_NAME.fullmatch(env_name):
        raise UsageError("--api-key-env takes the name of an environment variable (letters, digits and _), not the key")
    key = os.environ.get(env_name)
    if key is None and env_name != DEFAULT_KEY_ENV:
        raise UsageError(f"--api-key-env {env_name}: the variable {env_name} is not set")
    return key or None


def _progress(quiet: bool):  # type: ignore[no-untyped-def]
    if quiet:
        return None

    def say(line: str) -> None:
        sys.stderr.write(f"bench: {line}\n")
        sys.stderr.flush()

    return say


_INT = click.INT
_FLOAT = click.FLOAT


@click.group("bench", cls=Group, invoke_without_command=True, no_args_is_help=False,
             help="Honest baseline of an OpenAI-compatible inference server, with history and comparison.")
@click.option("--url", metavar="URL", help="Server base URL, e.g. http://127.0.0.1:8000")
@click.option("--model", metavar="NAME", help="Model name (default: the first at /v1/models).")
@click.option("--endpoint", default="completions", metavar="ENDPOINT", help="completions or chat.")
@click.option("--concurrency", "-c", default="1", metavar="LEVELS",
              help="Concurrency levels (closed loop), comma list, e.g. 1,10.")
@click.option("--request-rate", metavar="RATES",
              help="Request rates per second (open loop, Poisson arrivals), comma list, instead of --concurrency.")
@click.option("--max-concurrency", type=_INT, metavar="N", help="Cap in-flight requests with --request-rate.")
@click.option("--requests", "-n", type=_INT, metavar="N",
              help="Requests per level and repeat (default 4 × concurrency, at least 20).")
@click.option("--duration", type=_FLOAT, metavar="SECONDS", help="Seconds per level and repeat instead of --requests.")
@click.option("--input-tokens", type=_INT, default=512, metavar="N", help="Prompt length in the server's tokens.")
@click.option("--output-tokens", type=_INT, metavar="N",
              help="Output tokens asked (max_tokens); default 256, or the dataset's reply lengths.")
@click.option("--dataset", type=FILE, metavar="FILE", help="Prompts from a ShareGPT JSON or JSON Lines file, sampled with --seed.")
@click.option("--prefix-tokens", type=_INT, default=0, metavar="N",
              help="The first N prompt tokens shared by every request (measures prefix caching).")
@click.option("--turns", type=_INT, default=1, metavar="N", help="Conversations of N turns, each carrying the earlier ones.")
@click.option("--goodput", metavar="SLOS",
              help="SLOs in ms, comma list, e.g. ttft:500,tpot:50,e2e:10000: share of requests meeting all, goodput tok/s.")
@click.option("--percentiles", metavar="PCTS",
              help="Percentiles to report, comma list, e.g. 50,90,95,99,99.9 (default 50,90,99).")
@click.option("--requests-jsonl", type=FILE, metavar="FILE",
              help="Write one JSON line per measured request (times, chunks, tokens, errors).")
@click.option("--repeats", type=_INT, default=1, metavar="N", help="Repeats of every level, run in shuffled order.")
@click.option("--warmup", default="auto", metavar="N", help="auto (until TPOT stops changing), 0, or a number of requests.")
@click.option("--seed", type=_INT, default=0, metavar="N", help="Seed for prompts, arrivals, order and sampling.")
@click.option("--temperature", type=_FLOAT, default=0.0, metavar="T", help="Sampling temperature sent.")
@click.option("--no-ignore-eos", is_flag=True, help="Let the server stop at EOS.")
@click.option("--eos-token-id", type=_INT, metavar="ID", help="EOS id for logit_bias where ignore_eos is unsupported.")
@click.option("--api-key-env", default=DEFAULT_KEY_ENV, metavar="VAR",
              help="Environment variable that holds the bearer token; the token is never stored or printed.")
@click.option("--api-key", "api_key_value", metavar="VALUE", hidden=True, show_default=False)
@click.option("--timeout", type=_FLOAT, default=600.0, metavar="SECONDS", help="Per-request timeout, seconds.")
@click.option("--tokenizer", type=FILE, metavar="PATH",
              help="Local tokenizer: tokenizer.json, a directory holding one, or a model id already in the HF cache "
              "(never downloaded). Re-counts output text when the server sends no usage. Needs stackaudit[tokenizer].")
@click.option("--max-event-kb", type=_INT, default=16384, metavar="KIB", help="Largest SSE event accepted, KiB.")
@click.option("--continuous-usage", is_flag=True, help="Ask for per-chunk usage (vLLM) for exact tokens per chunk.")
@click.option("--no-shuffle", is_flag=True, help="Run levels and repeats in order.")
@click.option("--no-self-check", is_flag=True, hidden=True,
              help="No effect, kept for old scripts: the client is judged per level from its own CPU readings.")
@click.option("--label", metavar="LABEL", help="A label stored with the run.")
@click.option("--db", type=FILE, metavar="FILE", help="History database (default: in the user data directory).")
@click.option("--no-history", is_flag=True, help="Do not store the run.")
@click.option("--plot", type=FILE, metavar="FILE",
              help="Write the charts to this PNG file (a directory: bench.png in it; needs matplotlib).")
@click.option("--ceiling-model", metavar="MODEL",
              help="Model for the decode ceiling: config.json, model directory or local HF cache id "
              "(default: the engine serving on this host).")
@click.option("--ceiling-gpu", metavar="NAME",
              help="GPU for the ceiling, e.g. 'H100', 'RTX 4090' (default: detected on this host).")
@click.option("--ceiling-gpus", type=_INT, metavar="N", help="GPUs serving the model (default: the TP size).")
@click.option("--ceiling-tp", type=_INT, metavar="N", help="Tensor-parallel size (default: the engine's, else all GPUs).")
@click.option("--ceiling-weights", metavar="WEIGHTS",
              help="Weight format as `stackaudit ceiling --weights` (default: the model config).")
@click.option("--ceiling-context", type=_INT, metavar="TOKENS",
              help="KV-cache tokens per sequence (default: input + output/2 of the run).")
@format_option("bench", lead="Format",
               notes={"vllm-json": "the key names of vllm bench serve"})
@output_option("Write the report to FILE.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines or bar on stderr.")
@click.pass_context
def command(ctx: click.Context, url: Optional[str], model: Optional[str], endpoint: str, concurrency: str,
            request_rate: Optional[str], max_concurrency: Optional[int], requests: Optional[int],
            duration: Optional[float], input_tokens: int, output_tokens: Optional[int], dataset: Optional[str],
            prefix_tokens: int, turns: int, goodput: Optional[str], percentiles: Optional[str],
            requests_jsonl: Optional[str], repeats: int, warmup: str, seed: int, temperature: float,
            no_ignore_eos: bool, eos_token_id: Optional[int], api_key_env: str, api_key_value: Optional[str],
            timeout: float, tokenizer: Optional[str], max_event_kb: int, continuous_usage: bool, no_shuffle: bool,
            no_self_check: bool, label: Optional[str], db: Optional[str], no_history: bool, plot: Optional[str],
            ceiling_model: Optional[str], ceiling_gpu: Optional[str], ceiling_gpus: Optional[int],
            ceiling_tp: Optional[int], ceiling_weights: Optional[str], ceiling_context: Optional[int], fmt: str,
            output: Optional[str], quiet: bool) -> Optional[int]:
    """Measure TTFT, TPOT, ITL, E2E and throughput per concurrency level, and each against its decode ceiling."""
    if ctx.invoked_subcommand is not None:
        return None
    api_key = _api_key(api_key_value, api_key_env)
    from stackaudit.render.formats import check_format

    fmt = check_format("bench", fmt)
    from stackaudit.bench.slo import DEFAULT_PERCENTILES, parse_goodput, parse_percentiles

    objectives = parse_goodput(goodput) if goodput is not None else {}
    chosen_percentiles = parse_percentiles(percentiles) if percentiles is not None else list(DEFAULT_PERCENTILES)
    if not url:
        raise UsageError("--url is required, e.g. stackaudit bench --url http://127.0.0.1:8000")
    import asyncio

    from stackaudit.bench.runner import BenchConfig, run_bench
    from stackaudit.cli.output import emit

    config = BenchConfig(
        url=url,
        model=model,
        endpoint=endpoint,
        concurrency=_ints(concurrency, "--concurrency") if not request_rate else [],
        request_rate=_floats(request_rate, "--request-rate") if request_rate else [],
        max_concurrency=max_concurrency,
        requests=requests,
        duration_s=duration,
        input_tokens=input_tokens,
        output_tokens=output_tokens if output_tokens is not None else 256,
        output_tokens_given=output_tokens is not None,
        dataset=dataset,
        prefix_tokens=prefix_tokens,
        turns=turns,
        goodput=objectives,
        percentiles=chosen_percentiles,
        repeats=repeats,
        warmup=warmup,
        seed=seed,
        temperature=temperature,
        ignore_eos=not no_ignore_eos,
        eos_token_id=eos_token_id,
        timeout_s=timeout,
        tokenizer=tokenizer,
        max_event_bytes=max_event_kb * 1024,
        shuffle=not no_shuffle,
        continuous_usage=continuous_usage,
        label=label,
    )
    config.validate()
    plot_file = None
    if plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install 'stackaudit[plot]'") from None
        from stackaudit.bench.plot import resolve_plot_path

        plot_file = resolve_plot_path(plot, "bench.png")
    from stackaudit.bench.ceiling import CeilingFlags, prepare

    # Checked before any request is sent: a bad --ceiling-* flag exits 2 with one line.
    ceiling_plan = prepare(CeilingFlags(
        model=ceiling_model, gpu=ceiling_gpu, gpus=ceiling_gpus, tp=ceiling_tp, weights=ceiling_weights,
        context=ceiling_context,
    ))
    from stackaudit.bench.progress import make_progress

    bar = make_progress(quiet)
    say = bar.line if bar is not None else _progress(quiet)
    outcome = asyncio.run(run_bench(config, api_key, progress=say, ceiling=ceiling_plan, bar=bar))
    result = _scrub(outcome.result, api_key)
    if not no_history:
        from stackaudit.bench.history import History

        with History(db) as history:
            history.add(result, outcome.records)
    if requests_jsonl:
        from stackaudit.bench.export import request_lines, write_requests_jsonl

        count = write_requests_jsonl(requests_jsonl, _scrub(request_lines(outcome.records, outcome.workload), api_key))
        if not quiet:
            sys.stderr.write(f"bench: {count} requests written to {requests_jsonl}\n")
    if plot_file:
        from stackaudit.bench.metrics import RequestMetrics
        from stackaudit.bench.plot import write_plots

        samples = {
            key: [m.tpot for m in (RequestMetrics(r) for _, r in pairs if r.ok) if m.tpot is not None]
            for key, pairs in outcome.records.items()
        }
        write_plots(result, samples, plot_file)
        if not quiet:
            sys.stderr.write(f"bench: chart written to {plot_file}\n")
    if fmt == "vllm-json":
        from stackaudit.bench.export import render_vllm_json

        emit(_scrub(render_vllm_json(result, outcome.records), api_key), output)
    else:
        from stackaudit.bench.render import render_result

        emit(render_result(result, fmt), output, fmt)
    if result.get("partial"):
        # Ctrl-C after a finished level: that level is stored and shown, and the exit says interrupted.
        sys.stderr.write("stackaudit: interrupted: the report holds the finished levels only (partial)\n")
        return 130
    return 0


@command.command("history")
@click.option("--db", type=FILE, metavar="FILE", help="History database.")
@click.option("--limit", type=_INT, default=50, metavar="N", help="Most recent runs to list.")
@format_option("bench-stored", lead="Format")
@output_option()
def history(db: Optional[str], limit: int, fmt: str, output: Optional[str]) -> None:
    """List stored runs."""
    from stackaudit.render.formats import check_format

    fmt = check_format("bench-stored", fmt)
    from stackaudit.bench.history import History, NoHistory, default_db_path
    from stackaudit.bench.render import render_history
    from stackaudit.cli.output import emit

    try:
        store = History(db, create=False)
    except NoHistory:
        # A read creates nothing: no runs, said in one line (an empty list for machine formats).
        emit(render_history([], fmt, db or default_db_path(), missing=True), output)
        return
    with store:
        emit(render_history(store.list_runs(limit), fmt, store.path), output, fmt)


@command.command("compare")
@click.argument("run_a", cls=HelpArgument, metavar="RUN_A", help="Run id, 'latest' or 'latest~N'.")
@click.argument("run_b", cls=HelpArgument, metavar="RUN_B", help="Run id, 'latest' or 'latest~N'.")
@click.option("--db", type=FILE, metavar="FILE", help="History database.")
@click.option("--fail-on", metavar="RULE",
              help="regression:PCT — exit 1 when B is really worse than A by PCT % or more (CI gate).")
@click.option("--force", is_flag=True,
              help="Compare runs of different workloads (endpoint, lengths, dataset, prefix, turns, EOS).")
@format_option("bench-stored", lead="Format")
@output_option()
def compare(run_a: str, run_b: str, db: Optional[str], fail_on: Optional[str], force: bool, fmt: str,
            output: Optional[str]) -> int:
    """Is the difference between two runs beyond noise, and what differed that could explain it?"""
    from stackaudit.render.formats import check_format

    fmt = check_format("bench-stored", fmt)
    from stackaudit.bench.compare import compare_runs, parse_fail_on, workload_mismatch
    from stackaudit.bench.history import History
    from stackaudit.bench.render import render_compare
    from stackaudit.cli.output import emit

    limit = parse_fail_on(fail_on)
    with History(db, create=False) as store:
        a, b = store.get(run_a), store.get(run_b)
        mismatch = workload_mismatch(a, b)
        if mismatch and not force:
            raise UsageError(f"{mismatch}: not compared (--force compares them anyway)")
        report = compare_runs(a, store.requests(a.id), b, store.requests(b.id), fail_on_regression=limit)
    emit(render_compare(report, fmt), output, fmt)
    return 1 if (report.get("fail_on") or {}).get("failed") else 0
