"""`stackaudit investigate`: argument wiring only (plain click; docs/investigate.md)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import tempfile
from typing import Any

import click

from stackaudit.cli.options import Command, format_option, output_option
from stackaudit.errors import UsageError


def _open_snapshot(sources: list[str], allow_partial: bool) -> Any:
    """The MemoryHost to investigate: a snapshot, pasted outputs, or both (as `audit --from` reads them)."""
    from stackaudit.cli.audit import open_from

    return open_from(sources, allow_partial)


def _capture_live(directory: str, deadline: float) -> Any:
    """A snapshot of this machine, taken first: the investigators read only the snapshot, never the host."""
    from stackaudit.capture import capture_host
    from stackaudit.host.live import LiveHost
    from stackaudit.host.snapshot_reader import load_snapshot

    path = os.path.join(directory, "investigate-snapshot.tar.gz")
    summary, _ = capture_host(LiveHost(), path, deadline)
    from stackaudit.cli.output import note

    note(f"stackaudit: took a snapshot of this host ({summary})")
    return load_snapshot(path)


def _have_openai() -> bool:
    return importlib.util.find_spec("openai") is not None


def _positive(name: str, value: float | None) -> None:
    if value is not None and value <= 0:
        raise UsageError(f"{name} must be positive")


@click.command("investigate", cls=Command)
@click.option("--llm-url", required=True, metavar="URL", help="OpenAI-compatible endpoint (vLLM, SGLang, llama.cpp, hosted).")
@click.option("--model", required=True, metavar="NAME", help="Model name to ask for.")
@click.option("--api-key-env", default=None, metavar="VAR",
              help="Environment variable holding the API key (default OPENAI_API_KEY; none needed locally).")
@click.option("--from", "sources", multiple=True, metavar="SRC",
              help="Investigate a snapshot or pasted outputs instead of taking a snapshot of this host; "
              "repeat it or give a comma list.")
@click.option("--domains", multiple=True, metavar="DOMAINS", help="Only these domains (comma list: FW,CTR,DRV,KERN,KVER,MEM,PCIE,PWR,IC,RT).")
@click.option("--parallel", default=10, show_default=True, type=int, metavar="N", help="Investigators at once.")
@click.option("--max-rounds", default=8, show_default=True, type=int, metavar="N", help="Model turns per investigator.")
@click.option("--max-tokens", "max_tokens_each", default=None, type=int, metavar="N", help="Tokens per investigator.")
@click.option("--max-tokens-total", default=None, type=int, metavar="N", help="Tokens for all investigators together.")
@click.option("--timeout", default=300.0, show_default=True, type=float, metavar="SECONDS", help="Seconds for the whole investigation.")
@click.option("--request-timeout", default=120.0, show_default=True, type=float, metavar="SECONDS", help="Seconds per model request.")
@click.option("--stream/--no-stream", default=False, help="Stream the model's answers.")
@format_option("investigate", show_default=True)
@output_option("Write the report to FILE.")
@click.option("--fail-on", default=None, metavar="PRIORITY", help="Exit 1 on a rule-engine result at or above P0, P1 or P2.")
@click.option("--allow-partial", is_flag=True, help="Replay a snapshot that is cut short or fails its manifest.")
def command(llm_url: str, model: str, api_key_env: str | None, sources: tuple[str, ...], domains: tuple[str, ...],
            parallel: int, max_rounds: int, max_tokens_each: int | None, max_tokens_total: int | None, timeout: float,
            request_timeout: float, stream: bool, fmt: str, output: str | None, fail_on: str | None,
            allow_partial: bool) -> int:
    """Audit, then send one read-only investigator per domain to your own LLM; keep only claims it can quote."""
    from stackaudit.cli.output import emit, invocation, split_paths
    from stackaudit.render.formats import check_format
    from stackaudit.report.render import FAIL_ON

    fmt = check_format("investigate", fmt)
    if fail_on and fail_on.upper() not in FAIL_ON:
        raise UsageError(f"--fail-on takes P0, P1 or P2, not {fail_on!r}")
    if not llm_url.startswith(("http://", "https://")):
        raise UsageError("--llm-url takes an http:// or https:// URL")
    if not model.strip():
        raise UsageError("--model must name a model")
    if parallel < 1 or max_rounds < 1:
        raise UsageError("--parallel and --max-rounds must be at least 1")
    for name, value in (("--timeout", timeout), ("--request-timeout", request_timeout),
                        ("--max-tokens", max_tokens_each), ("--max-tokens-total", max_tokens_total)):
        _positive(name, value)
    if not _have_openai():
        raise UsageError("stackaudit investigate needs the openai SDK: pip install 'stackaudit[investigate]'")
    from stackaudit.investigate.session import parse_domains

    try:
        chosen = parse_domains(domains)
    except ValueError as exc:
        raise UsageError(f"--domains: {exc}") from None
    env_name = api_key_env or "OPENAI_API_KEY"
    if api_key_env and not os.environ.get(api_key_env):
        raise UsageError(f"--api-key-env {api_key_env}: that environment variable is not set")
    api_key = os.environ.get(env_name) or None
    return _run(llm_url, model, api_key, split_paths(list(sources)), chosen, parallel, max_rounds, max_tokens_each,
                max_tokens_total, timeout, request_timeout, stream, fmt, output, fail_on, allow_partial,
                emit, invocation())


def _run(llm_url: str, model: str, api_key: str | None, sources: list[str], domains: tuple[str, ...],
         parallel: int, max_rounds: int, max_tokens_each: int | None, max_tokens_total: int | None, timeout: float,
         request_timeout: float, stream: bool, fmt: str, output: str | None, fail_on: str | None,
         allow_partial: bool, emit: Any, argv: list[str] | None) -> int:
    from stackaudit.cli.audit import headline_ceiling
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.investigate.loop import InvestigationConfig
    from stackaudit.investigate.session import investigate
    from stackaudit.report.render import exit_code, render
    from stackaudit.report.sections import RenderOptions

    config = InvestigationConfig(url=llm_url, model=model, api_key=api_key, domains=domains, parallel=parallel,
                                 max_rounds=max_rounds, max_tokens_total=max_tokens_total,
                                 max_tokens_each=max_tokens_each, timeout_s=timeout,
                                 request_timeout_s=request_timeout, stream=stream)
    with contextlib.ExitStack() as stack:
        if sources:
            host = _open_snapshot(sources, allow_partial)
        else:
            directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="stackaudit-investigate-"))
            host = _capture_live(directory, 20.0)
        report = run_audit(host, AuditOptions(ceiling=headline_ceiling()))
        investigated = investigate(host, report, config)
    emit(render(investigated, fmt, options=RenderOptions(argv=argv)), output, fmt)
    return exit_code(investigated, fail_on)
