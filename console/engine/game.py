"""What the runtime needs of a game engine (the «Своя игра» referee, the ChGK table)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from console.engine.model import Output


class Game(Protocol):
    """A pure engine: inputs at `now` in, outputs out; `next_deadline` says when to call back."""

    def handle_all(self, inputs: Sequence[Any], now: int) -> list[Output]: ...

    def on_timer(self, now: int) -> list[Output]: ...

    def next_deadline(self) -> int | None: ...

    def snapshot(self, now: int) -> dict[str, Any]: ...

    def running_timer(self) -> tuple[str, int] | None: ...
