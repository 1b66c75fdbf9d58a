"""What the runtime needs of a game engine (the «Своя игра» referee, the ChGK table, the
sports timer): one protocol, generic in the inputs the engine takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from console.engine.model import Json, Output

InputT_contra = TypeVar("InputT_contra", contravariant=True)


class Game(Protocol[InputT_contra]):
    """A pure engine: inputs at `now` in, outputs out; `next_deadline` says when to call back."""

    def handle_all(self, inputs: Sequence[InputT_contra], now: int) -> list[Output]: ...

    def on_timer(self, now: int) -> list[Output]: ...

    def next_deadline(self) -> int | None: ...

    def snapshot(self, now: int) -> dict[str, Json]: ...

    def host_snapshot(self, now: int) -> dict[str, Json]:
        """`snapshot` plus what only the host's screen may show (published on host/state)."""
        ...

    def running_timer(self) -> tuple[str, int] | None: ...
