"""The fight's players changed from the host's tablet: renamed, added, removed, given a button.

Contract: `RosterChange` is a host input like `console.engine.model.Host`, stamped `at`, with
its arguments (`command()` is its host command's JSON and its scenario line, so the journal
writes it whole and a replay takes it again). `refusal(change, rules, scores)` says in Russian
why it cannot be taken now, or None; `apply(change, players, new_id)` gives the players after
it. A player is added or given a button by pressing it: `add_player` without a `pad`, and
`bind_pad`, wait for the next press of a button nobody has (`awaiting`), which the referee
then gives. Between questions only: a question's presses are judged against the players it
began with. A fight keeps 2 to 4 players (004 App.1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from console.engine.names import name_refusal
from console.engine.refusals import Reason, Why, why
from console.engine.svoya.rules import Player, SvoyaRules

__all__ = ["ROSTER_ARGS", "RosterAction", "RosterChange", "apply", "refusal"]



class RosterAction(StrEnum):
    RENAME = "rename_player"  # player, name
    ADD = "add_player"  # name, and pad (or "": the next press of a free button)
    REMOVE = "remove_player"  # player
    BIND = "bind_pad"  # player: the next press of a free button becomes theirs


ROSTER_ARGS = {RosterAction.RENAME: ("player", "name"), RosterAction.ADD: ("name", "pad"),
               RosterAction.REMOVE: ("player",), RosterAction.BIND: ("player",)}


@dataclass(frozen=True, slots=True)
class RosterChange:
    action: RosterAction
    at: int
    player: str = ""
    name: str = ""
    pad: str = ""

    def command(self) -> dict[str, str | int]:
        """The host command's JSON, as the journal writes it: every argument as given, an
        empty one too (a replay reads back what the referee judged); `pad` only when given."""
        args = {"player": self.player, "name": self.name, "pad": self.pad}
        return {"action": self.action.value,
                **{k: args[k] for k in ROSTER_ARGS[self.action] if args[k] or k != "pad"}}


def refusal(change: RosterChange, rules: SvoyaRules) -> Reason | None:
    """Why `change` cannot be taken with these `rules`' players, or None."""
    ids = {p.id for p in rules.players}
    named = change.action in (RosterAction.RENAME, RosterAction.REMOVE, RosterAction.BIND)
    if named and change.player not in ids:
        return why(Why.NO_PLAYER, player=change.player, players=", ".join(sorted(ids)))
    if change.action in (RosterAction.RENAME, RosterAction.ADD):
        others = (p.name for p in rules.players if p.id != change.player)
        problem = name_refusal(change.name, others, word="имя", who="игрок")
        if problem is not None:
            return problem
    if change.action is RosterAction.ADD:
        if len(rules.players) >= 4:
            return why(Why.MAX_PLAYERS)
        if change.pad:
            return pad_refusal(change.pad, rules)
    if change.action is RosterAction.REMOVE and len(rules.players) <= 2:
        return why(Why.MIN_PLAYERS)
    return None


def pad_refusal(pad: str, rules: SvoyaRules) -> Reason | None:
    """Why `pad` cannot be a new button of a player, or None."""
    source, _, index = pad.partition(":")
    if source not in rules.sources or not index.isdigit():
        return why(Why.PAD_NOT_OF_BOX, pad=pad, sources=", ".join(rules.sources))
    owner = rules.pads.get(pad)
    if owner is not None:
        return why(Why.PAD_TAKEN, pad=pad, owner=owner.name)
    return None


def apply(change: RosterChange, players: tuple[Player, ...], new_id: str) -> tuple[Player, ...]:
    """The players after `change` (refused by `refusal` if it was not allowed)."""
    match change.action:
        case RosterAction.RENAME:
            name = change.name.strip()
            return tuple(replace(p, name=name) if p.id == change.player else p for p in players)
        case RosterAction.ADD:
            return (*players, Player(new_id, change.name.strip(), change.pad))
        case RosterAction.REMOVE:
            return tuple(p for p in players if p.id != change.player)
        case RosterAction.BIND:
            return tuple(replace(p, pad=change.pad) if p.id == change.player else p for p in players)
