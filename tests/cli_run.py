"""`chgk-console` commands run in-process, for the tests of what a command says: the same
`console.cli.main` the installed command calls, its output captured (a process test only where
the process itself is what is tested)."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

from console.cli import main

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Done:
    """What the command did: as `subprocess.CompletedProcess` has it."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args: str, cwd: Path = ROOT) -> Done:
    """`chgk-console ARGS` run from `cwd`, in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's refusals
            code = exc.code if isinstance(exc.code, int) else 2
    return Done(code, out.getvalue(), err.getvalue())
