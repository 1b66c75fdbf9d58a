"""The host's actions by their Russian names (issue 19: «no raw action ids»): every action of
every game has one, it is the label of its button on the host's screen, and a refusal says the
action by it, never by its id."""

from __future__ import annotations

import re
from pathlib import Path

from console.engine.action_titles import TITLES
from console.engine.brainring.rules import BrainringAction
from console.engine.brainring.teams import TeamAction
from console.engine.chgk.actions import PICK_SECTOR
from console.engine.chgk.rules import ChgkAction
from console.engine.corrections import UNDO, CorrectionAction
from console.engine.model import HostAction
from console.engine.quartet.rules import QuartetAction
from console.engine.sports.timer import TITLES as SPORTS_TITLES
from console.engine.sports.timer import SportsAction
from console.engine.svoya.pack_choice import CHOOSE_PACK
from console.engine.svoya.roster import RosterAction
from tests.brainring_harness import Ring
from tests.chgk_harness import SportsClock

DATA = Path(__file__).resolve().parent.parent / "console" / "data"
BUTTON = re.compile(r'action: "(\w+)",(?:\s*menu: true,)?\s*label: "([^"]+)"')


def labels() -> dict[str, set[str]]:
    """Each action's button labels on the host's screen, over every game's module."""
    found: dict[str, set[str]] = {}
    for page in DATA.glob("host-*.js"):
        for action, label in BUTTON.findall(page.read_text(encoding="utf-8")):
            found.setdefault(action, set()).add(label)
    return found


def test_every_action_of_every_game_has_its_buttons_name() -> None:
    actions = {*(a.value for a in HostAction), *(a.value for a in CorrectionAction), UNDO,
               *(a.value for a in RosterAction), CHOOSE_PACK, *(a.value for a in BrainringAction),
               *(a.value for a in TeamAction), *(a.value for a in ChgkAction), PICK_SECTOR,
               *(a.value for a in SportsAction), *(a.value for a in QuartetAction)}
    assert actions - set(TITLES) == set()
    buttons = labels()
    for action, title in TITLES.items():
        if action in buttons:  # choose_pack's buttons are the rounds; pick is pick_sector's
            assert title in buttons[action], (action, title, buttons[action])
    assert SPORTS_TITLES["cancel"] in buttons["cancel"] and SPORTS_TITLES["cancel"] != TITLES["cancel"]


def test_a_refusal_says_the_action_by_its_name() -> None:
    ring = Ring()
    ring.host("wrong")
    assert ring.last("error")["message"].startswith("«Неверно» сейчас нельзя: ")
    assert ring.last("error")["details"]["action"] == "wrong"  # a program still gets the id
    clock = SportsClock()
    clock.host(SportsAction.CANCEL)
    assert clock.last("error")["message"].startswith("«Снять отсчёт» сейчас нельзя: ")
