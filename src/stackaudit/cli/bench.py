"""`bench`, `bench history`, `bench compare`: argument wiring only.

Only typer is imported here; aiohttp and the bench package load when the command runs, so
that `stackaudit --help` stays fast.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Optional

import typer

from stackaudit.cli.output import format_option
from stackaudit.errors import UsageError

_FORMATS = ("text", "markdown", "json")
# `bench` itself also writes the key names of `vllm bench serve --save-result`.
_RUN_FORMATS = (*_FORMATS, "vllm-json")


def _check_format(fmt: str, formats: tuple[str, ...] = _FORMATS) -> str:
    if fmt not in formats:
        raise UsageError(f"--format must be one of {', '.join(formats)}, got {fmt!r}")
    return fmt


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


def register(app: typer.Typer) -> None:
    bench_app = typer.Typer(
        name="bench",
        help="Honest baseline of an OpenAI-compatible inference server, with history and comparison.",
        invoke_without_command=True,
        no_args_is_help=False,
        add_completion=False,
        rich_markup_mode=None,
    )

    @bench_app.callback()
    def bench(
        ctx: typer.Context,
        url: Optional[str] = typer.Option(None, "--url", help="Server base URL, e.g. http://127.0.0.1:8000"),
        model: Optional[str] = typer.Option(None, "--model", help="Model name (default: the first at /v1/models)."),
        endpoint: str = typer.Option("completions", "--endpoint", help="completions or chat."),
        concurrency: str = typer.Option("1", "--concurrency", "-c", help="Concurrency levels (closed loop), e.g. 1,10."),
        request_rate: Optional[str] = typer.Option(
            None, "--request-rate", help="Request rates per second (open loop, Poisson arrivals) instead of --concurrency."
        ),
        max_concurrency: Optional[int] = typer.Option(None, "--max-concurrency", help="Cap in-flight requests with --request-rate."),
        requests: Optional[int] = typer.Option(None, "--requests", "-n", help="Requests per level and repeat (default 4 × concurrency, at least 20)."),
        duration: Optional[float] = typer.Option(None, "--duration", help="Seconds per level and repeat instead of --requests."),
        input_tokens: int = typer.Option(512, "--input-tokens", help="Prompt length in the server's tokens."),
        output_tokens: Optional[int] = typer.Option(
            None, "--output-tokens", help="Output tokens asked (max_tokens); default 256, or the dataset's reply lengths.",
        ),
        dataset: Optional[str] = typer.Option(
            None, "--dataset", help="Prompts from a ShareGPT JSON or JSON Lines file, sampled with --seed.",
        ),
        prefix_tokens: int = typer.Option(
            0, "--prefix-tokens", help="The first N prompt tokens shared by every request (measures prefix caching).",
        ),
        turns: int = typer.Option(1, "--turns", help="Conversations of N turns, each carrying the earlier ones."),
        goodput: Optional[str] = typer.Option(
            None, "--goodput", help="SLOs in ms, e.g. ttft:500,tpot:50,e2e:10000: share of requests meeting all, goodput tok/s.",
        ),
        percentiles: Optional[str] = typer.Option(
            None, "--percentiles", help="Percentiles to report, e.g. 50,90,95,99,99.9 (default 50,90,99).",
        ),
        requests_jsonl: Optional[str] = typer.Option(
            None, "--requests-jsonl", help="Write one JSON line per measured request (times, chunks, tokens, errors).",
        ),
        repeats: int = typer.Option(1, "--repeats", help="Repeats of every level, run in shuffled order."),
        warmup: str = typer.Option("auto", "--warmup", help="auto (until TPOT stops changing), 0, or a number of requests."),
        seed: int = typer.Option(0, "--seed", help="Seed for prompts, arrivals, order and sampling."),
        temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature sent."),
        no_ignore_eos: bool = typer.Option(False, "--no-ignore-eos", help="Let the server stop at EOS."),
        eos_token_id: Optional[int] = typer.Option(None, "--eos-token-id", help="EOS id for logit_bias where ignore_eos is unsupported."),
        api_key_env: str = typer.Option(
            DEFAULT_KEY_ENV, "--api-key-env",
            help="Environment variable that holds the bearer token; the token is never stored or printed.",
        ),
        api_key_value: Optional[str] = typer.Option(None, "--api-key", hidden=True, show_default=False),
        timeout: float = typer.Option(600.0, "--timeout", help="Per-request timeout, seconds."),
        tokenizer: Optional[str] = typer.Option(
            None, "--tokenizer",
            help="Local tokenizer: tokenizer.json, a directory holding one, or a model id already in the HF cache "
            "(never downloaded). Re-counts output text when the server sends no usage. Needs stackaudit[tokenizer].",
        ),
        max_event_kb: int = typer.Option(16384, "--max-event-kb", help="Largest SSE event accepted, KiB."),
        continuous_usage: bool = typer.Option(False, "--continuous-usage", help="Ask for per-chunk usage (vLLM) for exact tokens per chunk."),
        no_shuffle: bool = typer.Option(False, "--no-shuffle", help="Run levels and repeats in order."),
        no_self_check: bool = typer.Option(
            False, "--no-self-check", hidden=True,
            help="No effect, kept for old scripts: the client is judged per level from its own CPU readings.",
        ),
        label: Optional[str] = typer.Option(None, "--label", help="A label stored with the run."),
        db: Optional[str] = typer.Option(None, "--db", help="History database (default: in the user data directory)."),
        no_history: bool = typer.Option(False, "--no-history", help="Do not store the run."),
        plot: Optional[str] = typer.Option(
            None, "--plot", help="Write the charts to this PNG file (a directory: bench.png in it; needs matplotlib).",
        ),
        ceiling_model: Optional[str] = typer.Option(
            None, "--ceiling-model",
            help="Model for the decode ceiling: config.json, model directory or local HF cache id "
            "(default: the engine serving on this host).",
        ),
        ceiling_gpu: Optional[str] = typer.Option(
            None, "--ceiling-gpu", help="GPU for the ceiling, e.g. 'H100', 'RTX 4090' (default: detected on this host)."
        ),
        ceiling_gpus: Optional[int] = typer.Option(None, "--ceiling-gpus", help="GPUs serving the model (default: the TP size)."),
        ceiling_tp: Optional[int] = typer.Option(None, "--ceiling-tp", help="Tensor-parallel size (default: the engine's, else all GPUs)."),
        ceiling_weights: Optional[str] = typer.Option(
            None, "--ceiling-weights", help="Weight format as `stackaudit ceiling --weights` (default: the model config)."
        ),
        ceiling_context: Optional[int] = typer.Option(
            None, "--ceiling-context", help="KV-cache tokens per sequence (default: input + output/2 of the run)."
        ),
        fmt: str = typer.Option(
            "text", "--format", "-f", callback=format_option, help="text, markdown, json, or vllm-json (the key names of vllm bench serve).",
        ),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the report to FILE."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines or bar on stderr."),
    ) -> None:
        """Measure TTFT, TPOT, ITL, E2E and throughput per concurrency level, and each against its decode ceiling."""
        if ctx.invoked_subcommand is not None:
            return
        api_key = _api_key(api_key_value, api_key_env)
        _check_format(fmt, _RUN_FORMATS)
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
            return
        from stackaudit.bench.render import render_result

        emit(render_result(result, fmt), output)

    @bench_app.command("history")
    def history(
        db: Optional[str] = typer.Option(None, "--db", help="History database."),
        limit: int = typer.Option(50, "--limit", help="Most recent runs to list."),
        fmt: str = typer.Option("text", "--format", "-f", callback=format_option, help="text, markdown or json."),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE."),
    ) -> None:
        """List stored runs."""
        _check_format(fmt)
        from stackaudit.bench.history import History
        from stackaudit.bench.render import render_history
        from stackaudit.cli.output import emit

        with History(db) as store:
            emit(render_history(store.list_runs(limit), fmt, store.path), output)

    @bench_app.command("compare")
    def compare(
        run_a: str = typer.Argument(..., help="Run id, 'latest' or 'latest~N'."),
        run_b: str = typer.Argument(..., help="Run id, 'latest' or 'latest~N'."),
        db: Optional[str] = typer.Option(None, "--db", help="History database."),
        fail_on: Optional[str] = typer.Option(
            None, "--fail-on", help="regression:PCT — exit 1 when B is really worse than A by PCT % or more (CI gate)."
        ),
        fmt: str = typer.Option("text", "--format", "-f", callback=format_option, help="text, markdown or json."),
        output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE."),
    ) -> None:
        """Is the difference between two runs beyond noise, and what differed that could explain it?"""
        _check_format(fmt)
        from stackaudit.bench.compare import compare_runs, parse_fail_on
        from stackaudit.bench.history import History
        from stackaudit.bench.render import render_compare
        from stackaudit.cli.output import emit

        limit = parse_fail_on(fail_on)
        with History(db) as store:
            a, b = store.get(run_a), store.get(run_b)
            report = compare_runs(a, store.requests(a.id), b, store.requests(b.id), fail_on_regression=limit)
        emit(render_compare(report, fmt), output)
        if (report.get("fail_on") or {}).get("failed"):
            raise typer.Exit(1)

    app.add_typer(bench_app, name="bench")
