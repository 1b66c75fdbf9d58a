"""The commands that come over MQTT: the host's, the game jury's, and a retained one refused.

Contract: `CommandIntake` turns a payload into the game's input and hands it on (`feed`), or
refuses it with an error that names what was wrong (`report_error`), changing nothing. A
host command is the console's own (`take`, console/shell/own_actions.py) or the game's
(`GameKind.parse_command`); a jury command the game's jury parser (the sports stage's sheet,
docs/sports-sheet.md). A command's time is the host screen's ``sent_ns`` when it is
plausible (console/shell/commands.py `command_time`, bounded by the lag watch's `alive_at()`).
A command the broker kept (published with the retain flag) is never executed: it would run
again at every reconnect.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from console.games.kind import GameInput, GameKind
from console.shell.commands import command_object, command_time, refusal

__all__ = ["CommandIntake"]


class CommandIntake:
    """See the module docstring."""

    def __init__(
        self,
        game: GameKind,
        *,
        command_topic: str,
        clock: Callable[[], int],
        alive_at: Callable[[], int],
        take: Callable[[dict[str, Any]], bool],
        feed: Callable[[Sequence[GameInput]], None],
        report_error: Callable[[str, str], None],
    ) -> None:
        self._game = game
        self._command_topic = command_topic
        self._clock = clock
        self._alive_at = alive_at
        self._take = take
        self._feed = feed
        self._report_error = report_error

    def on_command(self, payload: bytes) -> None:
        """A host command from MQTT (docs/mqtt.md): the console's own or the game's; anything
        malformed or unknown is refused with an error event that names the problem."""
        received = self._clock()
        try:
            command = command_object(payload)
            at = command_time(command.pop("sent_ns", None), received, self._alive_at())
            if self._take(command):
                return
            inp = self._game.parse_command(command, at)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
            self._report_error("mqtt", refusal("host", payload, exc, self._game.command_help))
            return
        self._feed([inp])

    def on_jury_command(self, payload: bytes) -> None:
        """The game jury's command from MQTT (``<base>/jury/command``); refused like a host
        command when malformed, changing nothing."""
        parse = self._game.parse_jury_command
        assert parse is not None  # subscribed only for a game with a jury
        received = self._clock()
        try:
            command = command_object(payload)
            # The sheet's log says when each change was made: the console's wall clock at
            # receipt, journalled with the edit (a replay reads it, never the clock).
            command["when"] = time.strftime("%Y-%m-%d %H:%M:%S")
            inp = parse(command, command_time(command.pop("sent_ns", None), received, self._alive_at()))
        except (ValueError, RecursionError) as exc:
            self._report_error("jury", refusal("jury", payload, exc, self._game.jury_help))
            return
        self._feed([inp])

    def on_retained_command(self, payload: bytes, topic: str = "") -> None:
        """A retained command, reported with how to clear it: on the topic it was kept on
        (host/command, a show controller's host/do/<action>, jury/command)."""
        shown, where = payload[:200].decode("utf-8", errors="replace"), topic or self._command_topic
        self._report_error("mqtt", f"retained command {shown!r} on {where} not executed (a command must "
                                   "not be retained: it would replay at every reconnect); clear it with "
                                   f"mosquitto_pub -r -n -t {where}")
