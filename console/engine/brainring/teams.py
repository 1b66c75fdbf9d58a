"""The fight's teams changed from the host's tablet: renamed, given a button by pressing it,
added or removed.

Contract: `TeamChange` is a host input like `BrainringHost`, stamped `at`, with its arguments
(`command()` is its host command's JSON and its scenario line, so the journal writes it whole
and a replay takes it again). `refusal(change, rules)` says in Russian why it cannot be taken
with these rules' teams, or None; `renamed(...)` and `with_pad(...)` give the teams after it.
`bind_pad` waits for the next press of a button no team has, which the referee then gives the
team (a team may have a button for each of its players: §5, one signal a team); `add_team`
waits the same way for the new team's first button. Between questions only: a question's
presses are judged against the buttons it began with; a team joins or leaves between fights
(before a fight's first question, or once it is over), and a fight keeps 2 teams or more (§5).
A team keeps its id, so the game's standings follow it under its new name; a new team gets an
id no team of the game had.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from console.engine.brainring.rules import BrainringRules, Team
from console.engine.names import name_refusal
from console.engine.refusals import Reason, Why, why

__all__ = ["TEAM_ARGS", "TeamAction", "TeamChange", "refusal", "renamed", "with_pad", "without"]



class TeamAction(StrEnum):
    RENAME = "rename_team"  # team, name
    BIND = "bind_pad"  # team: the next press of a free button becomes one of its buttons
    ADD = "add_team"  # name: the next press of a free button is its first button
    REMOVE = "remove_team"  # team


TEAM_ARGS = {TeamAction.RENAME: ("team", "name"), TeamAction.BIND: ("team",), TeamAction.ADD: ("name",),
             TeamAction.REMOVE: ("team",)}


@dataclass(frozen=True, slots=True)
class TeamChange:
    action: TeamAction
    at: int
    team: str = ""
    name: str = ""

    def command(self) -> dict[str, str | int]:
        args = {"team": self.team, "name": self.name}
        return {"action": self.action.value, **{k: args[k] for k in TEAM_ARGS[self.action]}}


def refusal(change: TeamChange, rules: BrainringRules) -> Reason | None:
    """Why `change` cannot be taken with these `rules`' teams, or None."""
    ids = [t.id for t in rules.teams]
    if change.action is not TeamAction.ADD and change.team not in ids:
        return why(Why.NO_TEAM_OF_FIGHT, team=change.team, teams=", ".join(ids))
    if change.action in (TeamAction.RENAME, TeamAction.ADD):
        others = (t.name for t in rules.teams if t.id != change.team)
        return name_refusal(change.name, others, word="название", who="команда")
    if change.action is TeamAction.REMOVE and len(rules.teams) <= 2:
        return why(Why.MIN_TEAMS)
    return None


def renamed(teams: tuple[Team, ...], team: str, name: str) -> tuple[Team, ...]:
    return tuple(replace(t, name=name.strip()) if t.id == team else t for t in teams)


def with_pad(teams: tuple[Team, ...], team: str, pad: str) -> tuple[Team, ...]:
    return tuple(replace(t, pads=(*t.pads, pad)) if t.id == team else t for t in teams)


def without(teams: tuple[Team, ...], team: str) -> tuple[Team, ...]:
    return tuple(t for t in teams if t.id != team)
