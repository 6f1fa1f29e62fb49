"""Shared test helpers: the real CLI entry point, and the corpus of real captures."""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
CAPTURES = REPO / "tests" / "data" / "captures"


def _own_path(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest, kind: str) -> Path:
    """A path of this test's own under the session's temp root, not created: made only by the code that
    needs it. A folder made per test (mktemp) would cost every later one a scan of the temp root."""
    return tmp_path_factory.getbasetemp() / kind / hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]


@pytest.fixture(autouse=True)
def own_data_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
                  request: pytest.FixtureRequest) -> None:
    """An audit reads `bench`'s history in the user's data directory (XDG_DATA_HOME): each test gets a path of
    its own, not created, so that no run stored under the real $HOME, or by another test, reaches its report."""
    monkeypatch.setenv("XDG_DATA_HOME", str(_own_path(tmp_path_factory, request, "data-home")))


def _shared_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the workers of a run share what they read of the corpus: the run's temporary root under pytest-xdist
    (the parent of each worker's own)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "corpus-reports"


@pytest.fixture(scope="session")
def corpus_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every corpus file's report by file name (None: refused), audited once per run, each worker auditing a part."""
    from corpus import corpus_reports as shared_reports

    return shared_reports(_shared_corpus(tmp_path_factory))


@pytest.fixture(scope="session")
def corpus_recognised(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What was recognised in every corpus file, by file name: read with its report, once per run."""
    from corpus import corpus_recognised as shared_recognised

    return shared_recognised(_shared_corpus(tmp_path_factory))


@pytest.fixture
def captures_dir() -> Path:
    """tests/data/captures: the corpus of real pasted outputs, in the repository."""
    return CAPTURES


class CliRun:
    def __init__(self, rc: int, out: str, err: str) -> None:
        self.rc, self.out, self.err = rc, out, err


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run `stackaudit ARGS` in-process through the real entry point; returns rc, stdout, stderr."""
    from stackaudit.cli.main import main

    def run(*args: str) -> CliRun:
        capsys.readouterr()
        rc = main(list(args))
        captured = capsys.readouterr()
        return CliRun(rc, captured.out, captured.err)

    return run


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ from the current renderers instead of comparing with it")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True under `pytest --update-golden`: golden tests write their files instead of comparing."""
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def golden(update_golden: bool, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """`golden(path, got)`: under --update-golden writes `got` to `path`; else asserts the file holds `got`.

    `got` is the text itself, or a dict for a status golden (written one key a line, compared as a dict so a
    failure names the IDs that changed). tests/golden/README.md says which test writes which file.
    """
    import json

    def check(path: Path, got: str | dict[str, object]) -> None:
        text = got if isinstance(got, str) else (
            "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(got.items())) + "\n}\n")
        if update_golden:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        assert path.exists(), f"{path} missing: run pytest {request.node.path} --update-golden"
        if isinstance(got, str):
            assert got == path.read_text(), f"{path.name} differs; if intended, refresh with --update-golden"
        else:
            assert got == json.loads(path.read_text()), f"{path.name}: a status changed; if intended, --update-golden"

    return check


@pytest.fixture(scope="session")
def chromium():  # type: ignore[no-untyped-def]
    """One headless Chromium (tests/browser.py) for every page test in this process; skipped, saying why,
    where it cannot start."""
    import browser

    why = browser.missing()
    if why:
        pytest.skip(why)
    b = browser.Browser()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(autouse=True)
def _fix_lock_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                     request: pytest.FixtureRequest) -> None:
    """`fix --apply/--revert` lock in a scratch root-only directory of this test's own, never the host's
    /run/stackaudit (the lock makes its missing folders, mode 0700)."""
    from stackaudit.fixes import journal

    monkeypatch.setattr(journal, "LOCK_PATH", str(_own_path(tmp_path_factory, request, "run") / "stackaudit" / "fix.lock"),
                        raising=False)


@pytest.fixture(autouse=True)
def _frozen_heap_for_timing(request: pytest.FixtureRequest) -> Iterator[None]:
    """A timing test (marked serial) runs with the heap it starts with frozen. The bench collects garbage before
    each repeat, off the clock; in this process that walks pytest's heap and every module's (about 50 ms each),
    which a run from the command line never pays. Objects the test makes are collected as usual."""
    if request.node.get_closest_marker("serial") is None:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(scope="session", autouse=True)
def _catalogue_loaded() -> None:
    """Every check registered, as the CLI has them before a plan or a revert: fixes/catalogue_fix.py holds
    each check's declared fix once the checks are loaded."""
    from stackaudit.checks.registry import load_all

    load_all()
