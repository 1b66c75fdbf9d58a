"""tests/hardware runs only with `pytest --hardware` (docs/hardware-tests.md); the tests that
need someone at the table only with `--hardware-interactive` as well."""

from __future__ import annotations

from collections.abc import Callable

import pytest

HOW = ("needs the real devices: on the Pi, stop the console (sudo systemctl stop chgk-console) "
       "and run `pytest --hardware tests/hardware` (docs/hardware-tests.md)")


@pytest.fixture(autouse=True)
def _hardware_only(request: pytest.FixtureRequest) -> None:
    if not (request.config.getoption("--hardware") or request.config.getoption("--hardware-interactive")):
        pytest.skip(HOW)


@pytest.fixture
def ask(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> Callable[[str], None]:
    """Print an instruction to the person at the table (past pytest's capture); the test is
    skipped unless --hardware-interactive was given."""
    if not request.config.getoption("--hardware-interactive"):
        pytest.skip("asks someone at the table to press a button: run with --hardware-interactive")

    def say(text: str) -> None:
        with capsys.disabled():
            print(f"\n>>> {text}", flush=True)

    return say
