"""The console's own host actions, whatever the game: a table beside the game's parser.

Contract: `OwnActions` carries out the host commands that are the console's, not a game's:
the offered journal (resume it or start afresh: console/shell/resume_offer.py), the hall's
media (console/shell/hall_media.py), the tablet's packs (console/shell/pack_shelf.py) and
«Проверка кнопок» (console/shell/button_check.py). `take(command)` carries one out and says
True, or says False for a game's command (ValueError naming what was wrong: refused, nothing
changed). A game's action never takes one of `OWN_ACTIONS`' names (tests/test_runtime.py).

Beside the table it keeps what those actions decide for the rest of the console: `checked`
takes a check's presses out of the game's inputs, `referee_lamps` holds the referee's lamps
while a check lights its own, `played_on` takes the host's playing on as «start afresh», and
`status()` is their part of the retained status; a source's own command (a phone's seat freed,
`FREE_SEAT`) goes to that source. It reaches the console only through the callables it is
built with.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from console.config import Config
from console.engine.events import Event
from console.engine.game import Game
from console.engine.model import AngleSample, LampMode, Press, SourceLink, Watermark
from console.games.kind import GameInput, GameKind, only_keys
from console.shell.button_check import ButtonCheck
from console.shell.hall_media import HIDE_MEDIA, SHOW_MEDIA, HallMedia
from console.shell.journal import Journal
from console.shell.pack_shelf import CHOOSE_PACK, LIST_PACKS, PackShelf
from console.shell.resume_offer import RESUME_JOURNAL, SHELL_ACTIONS, START_FRESH, ResumeOffer
from console.state_people import names

__all__ = ["CHECK_BUTTONS", "END_CHECK", "FREE_SEAT", "OWN_ACTIONS", "OwnActions"]

log = logging.getLogger("chgk.console")

# The host's «Проверка кнопок» (console/shell/button_check.py): the console's own commands.
CHECK_BUTTONS, END_CHECK = "check_buttons", "end_check"
# The host frees a phone's seat (console/sources/phones.py): a source's own command.
FREE_SEAT = "free_seat"
# Every host action the console carries out itself, whatever the game.
OWN_ACTIONS = frozenset({*SHELL_ACTIONS, SHOW_MEDIA, HIDE_MEDIA, LIST_PACKS, CHOOSE_PACK,
                         CHECK_BUTTONS, END_CHECK, FREE_SEAT})
# Inputs that do not mean the host plays on (a journal offered stays offered): the sources'
# own traffic, a player's press (between questions it is a false start at most).
PASSIVE = (Press, Watermark, SourceLink, AngleSample)


class OwnActions:
    """See the module docstring."""

    def __init__(
        self,
        game: GameKind,
        config: Config,
        *,
        clock: Callable[[], int],
        engine: Callable[[], Game[Any]],
        pads_now: Callable[[], dict[str, str]],
        feed: Callable[[Sequence[Any]], None],
        publish: Callable[[Event], None],
        report_error: Callable[[str, str], None],
        set_status: Callable[..., None],
        set_lamps: Callable[[dict[str, LampMode]], None],
        journal: Journal,
        source_command: Callable[[str, dict[str, Any]], None] = lambda source, command: None,
    ) -> None:
        self._game = game
        self._clock = clock
        self._engine = engine  # as the journal's times have it (console/shell/checkpoint.py)
        self._pads_now = pads_now
        self._feed = feed
        self._publish = publish
        self._report_error = report_error
        self._set_status = set_status
        self._set_lamps = set_lamps
        self._journal = journal
        self._source_command = source_command
        # A journal of another config offered to the host (console/shell/resume_offer.py), and
        # what the daemon does when the host takes it (starts again with `run --resume FILE`).
        self.offer: ResumeOffer | None = None
        self.on_resume: Callable[[Path], None] | None = None
        self.button_check: ButtonCheck | None = None  # the last «Проверка кнопок» (it may be over)
        self._game_lamps: dict[str, LampMode] = {}  # the referee's lamps, set again after a check
        # The pictures, sounds and videos of the pack played now, which the host may show the hall.
        self.hall_media = HallMedia(lambda: game.media_pack(config, engine()), self._hall_media_shown)
        # The packs the host may choose on the tablet (None: the game plays none).
        self.pack_shelf = self._pack_shelf(config)
        # What the game starts with wrong (a pack not read: the game goes on without it), said
        # once as an error and kept in the retained status for as long as it stands.
        self.problems = dict(game.start_problems(engine()))
        for source, problem in self.problems.items():
            report_error(source, problem)
        self._table: dict[str, Callable[[dict[str, Any]], None]] = {
            **dict.fromkeys(SHELL_ACTIONS, lambda command: self._choose(str(command["action"]))),
            **dict.fromkeys((SHOW_MEDIA, HIDE_MEDIA), self.hall_media.command),
            **dict.fromkeys((LIST_PACKS, CHOOSE_PACK), self._pack_command),
            **dict.fromkeys((CHECK_BUTTONS, END_CHECK), self._check_command),
            FREE_SEAT: lambda command: self._source_command(str(command.get("source", "")), command),
        }
        assert set(self._table) == OWN_ACTIONS

    def take(self, command: dict[str, Any]) -> bool:
        """Carry out `command` if it is the console's own (True); False for a game's."""
        action = command.get("action")
        own = self._table.get(action) if isinstance(action, str) else None
        if own is None:
            return False
        own(command)
        return True

    def status(self) -> dict[str, Any]:
        """Their part of the retained status, as it stands (the MQTT link's start)."""
        return {**({} if self.offer is None else {"resume_offer": self.offer.view()}),
                **({"problems": dict(self.problems)} if self.problems else {})}

    # ------------------------------------------------------------------ the offered journal

    def offer_resume(self, path: Path, differs: tuple[str, ...]) -> None:
        """Offer today's journal of another config to the host (console/shell/resume_offer.py)."""
        self.offer = ResumeOffer(path, differs, self._journal, self._publish, self._clock,
                                 lambda chosen: self.on_resume(chosen) if self.on_resume else None)
        self._set_status(resume_offer=self.offer.view())

    def played_on(self, inputs: Sequence[GameInput]) -> None:
        """The game is handed `inputs`: one that is the host's playing on takes the fresh game."""
        if self.offer is not None and any(not isinstance(i, PASSIVE) for i in inputs):
            self._choose(START_FRESH, implicit=True)

    def _choose(self, action: str, *, implicit: bool = False) -> None:
        offer = self.offer
        if offer is None:
            self._report_error("mqtt", f"«{action}»: no journal is waiting to be resumed or set aside")
            return
        if action == RESUME_JOURNAL and self.on_resume is None:
            self._report_error("mqtt", f"«{action}»: this console cannot start again by itself; "
                                       f"run chgk-console run --resume {offer.path}")
            return
        self.offer = None
        offer.choose(action, implicit=implicit)
        self._set_status(resume_offer=None)

    # ------------------------------------------------------------------ packs and hall media

    def _pack_command(self, command: dict[str, Any]) -> None:
        if self.pack_shelf is None:
            raise ValueError(f"{self._game.title} plays no pack: there is none to choose")
        self.pack_shelf.command(command)

    def _pack_shelf(self, config: Config) -> PackShelf | None:
        packs = self._game.pack_choice
        if packs is None:
            return None

        def chosen(choice: object) -> None:
            before = self._game.media_pack(config, self._engine())
            self._feed([choice])
            if self._game.media_pack(config, self._engine()) != before:
                self.hall_media.hide()  # what the hall was shown is the old pack's
            # What the game started with wrong was the config's pack's: now the chosen one's.
            problems = dict(self._game.start_problems(self._engine()))
            for source, problem in problems.items():
                if self.problems.get(source) != problem:
                    self._report_error(source, problem)
            self.problems = problems
            self._set_status(problems=problems)

        def listed(shelf: dict[str, Any]) -> None:
            if shelf.get("problem"):
                log.info("packs in %s: %s", packs.folder(config), shelf["problem"])
            self._set_status(packs=shelf)

        return PackShelf(packs.folder(config), read_list=packs.catalogue,
                         read_choice=lambda path, number: packs.choice(path, number, self._clock()),
                         on_list=listed, on_choice=chosen,
                         on_problem=lambda problem: self._report_error("pack", problem))

    def _hall_media_shown(self, shown: dict[str, str] | None) -> None:
        """What the hall's boards show now: in the retained status, for a board opened later."""
        log.info("hall media: %s", f"{shown['kind']} {shown['name']}" if shown else "none")
        self._set_status(hall_media=shown)

    # ------------------------------------------------------------------ «Проверка кнопок»

    def _check_command(self, command: dict[str, Any]) -> None:
        only_keys(command, ("action",))
        self._check_buttons(str(command["action"]))

    def _check_buttons(self, action: str) -> None:
        """Start or end «Проверка кнопок» (console/shell/button_check.py): between questions
        only, so that no press of the game is taken by it."""
        check = self.button_check
        if action == END_CHECK:
            if check is None or not check.active:
                self._report_error("button_check", "no check of the buttons is running")
                return
            check.active = False
            silent = check.silent()
            log.info("button check over; %s",
                     f"never pressed: {', '.join(silent)}" if silent else "every button answered")
            self._set_lamps(self._game_lamps)
        else:
            owners = self.button_owners()
            if not owners:
                self._report_error("button_check", f"{self._game.title} has no players' buttons to check")
                return
            if self._game.interrupted(self._engine(), self._clock()) is not None:
                self._report_error("button_check", "a question is in play: the buttons are checked "
                                                   "between questions")
                return
            self.button_check = check = ButtonCheck(owners)
            self._set_lamps(check.lamps())
        self._set_status(button_check=check.view())

    def button_owners(self) -> dict[str, str]:
        """Each button of the game (pad -> its owner's name, as the game's state names them)."""
        named = names(self._engine().snapshot(self._clock()))
        return {pad: named.get(owner, owner) for pad, owner in self._pads_now().items()}

    def checked(self, inputs: Sequence[GameInput]) -> Sequence[GameInput]:
        """During «Проверка кнопок» the presses go to it (lit, on the status), not to the game."""
        check = self.button_check
        if check is None or not check.active or not any(isinstance(i, Press) for i in inputs):
            return inputs
        if any([check.press(i.pad, i.at) for i in inputs if isinstance(i, Press)]):
            self._set_lamps(check.lamps())
            self._set_status(button_check=check.view())
        return [i for i in inputs if not isinstance(i, Press)]

    def referee_lamps(self, lamps: dict[str, LampMode]) -> None:
        """The referee's lamps: lit now, or once a check of the buttons that lights its own ends."""
        self._game_lamps = lamps
        if self.button_check is None or not self.button_check.active:
            self._set_lamps(lamps)
