"""What the «Эрудит-квартет» fight shows (seed 004 §III): its snapshots, as one pure function
each of a `FightView`, the record the fight builds of itself for them (docs/mqtt-quartet.md).

Contract: `snapshot(view, now)` is the public state (the retained state topic), with the
theme's referee's own snapshot inside; `host_snapshot(view, now)` adds `host_actions` (the
theme referee's, or an appeal's corrections right after a theme, then the fight's) and what the
referee shows the host only. Nothing here decides: the fight's rules are in fight.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from console.engine.corrections import AdjustScore, Reverse
from console.engine.model import HostAction, Json
from console.engine.quartet.places import Places, Tally
from console.engine.quartet.round import RoundState
from console.engine.quartet.rules import FightPhase, QuartetRules
from console.engine.quartet.themes import ThemeRecord
from console.engine.svoya.referee import SvoyaReferee
from console.engine.svoya.roster import RosterAction

__all__ = ["SVOYA_ACTIONS", "FightView", "host_snapshot", "snapshot", "taken"]

# A theme's referee's actions when it lists none: all but new_game (the fight's own new_fight).
SVOYA_ACTIONS = [a.value for a in HostAction if a is not HostAction.NEW_GAME]


@dataclass(frozen=True)
class FightView:
    """The fight as a snapshot shows it (QuartetFight builds it; see the module docstring)."""

    phase: FightPhase
    rules: QuartetRules
    round: RoundState | None
    theme_index: int  # the theme of the round in play or next, from 0
    next_theme: str | None  # the next theme's name, between themes
    theme: ThemeRecord | None  # the theme in play
    question: tuple[int, int] | None  # its question in play: (number, value)
    referee: SvoyaReferee | None  # the theme's referee
    appeal: tuple[ThemeRecord, SvoyaReferee] | None  # the theme just played, still hearing appeals
    present: Mapping[str, set[str]]  # each team's players present
    warnings: Mapping[str, int]
    themes: tuple[ThemeRecord, ...]  # the themes played
    totals: Mapping[str, int]
    tallies: Mapping[str, Tally]
    places: Places | None
    timer: tuple[str, int] | None  # (kind, ends at) of the running count
    actions: tuple[Json, ...]  # the fight's own host actions allowed now


def snapshot(view: FightView, now: int) -> dict[str, Json]:
    """The whole public state (the retained state topic, docs/mqtt-quartet.md)."""
    totals = view.totals
    tallies = view.tallies
    rnd = view.round
    theme = view.theme
    referee = view.referee
    places = view.places
    round_view: Json = None
    if rnd is not None:
        round_view = {
            "number": rnd.number, "type": rnd.type.value, "plays": dict[str, Json](rnd.plays),
            "themes": list[Json](rnd.names), "theme": view.theme_index + 1,
            "order": {t: list[Json](o) for t, o in rnd.order.items()},
        }
    timer = view.timer
    teams = {t.id: t for t in view.rules.teams}
    return {
        "phase": view.phase.value,
        "stage": view.rules.stage.value,
        "rounds": [r.value for r in view.rules.rounds],
        "round": round_view,
        "next_theme": view.next_theme,
        "theme": None if theme is None else {
            "round": theme.round, "number": theme.number, "name": theme.name, "shootout": theme.shootout,
            "seats": [{"team": t, "pad": teams[t].pad, "player": p}
                      for t, p in theme.seats.items()],
            "question": None if view.question is None else {"number": view.question[0],
                                                              "value": view.question[1]},
            "referee": None if referee is None else referee.snapshot(now),
        },
        "teams": [
            {
                "id": t.id, "name": t.name, "pad": t.pad,
                "players": [{"name": p, "present": p in view.present[t.id]} for p in t.players],
                "total": totals[t.id], "plus": tallies[t.id].plus,
                "taken": dict[str, Json](taken(tallies[t.id])),
                "warnings": view.warnings[t.id],
                "themes": [th.score(t.id) if t.id in th.seats else None for th in view.themes
                           if not th.shootout],
            }
            for t in view.rules.teams
        ],
        "themes": [
            {"round": th.round, "number": th.number, "name": th.name, "shootout": th.shootout,
             "seats": dict[str, Json](th.seats), "scores": {t: th.score(t) for t in th.seats}}
            for th in view.themes
        ],
        "places": None if places is None else {
            "order": list[Json](places.order), "by": list[Json](places.by),
            "pending": [{"teams": list[Json](p.teams), "first": p.first, "last": p.last}
                        for p in places.pending],
        },
        "timer": None if timer is None else {"kind": timer[0], "ends_ns": timer[1],
                                             "remaining_ms": max(0, (timer[1] - now) // 1_000_000)},
    }


# The theme's referee would take these, the fight does not: it ends by its rounds and themes,
# its packs come from its own config, and its roster is the teams' (add_member, rename_member).
NOT_THE_FIGHTS = frozenset({"end_game", "skip_theme", "next_fight", "choose_pack",
                            *(a.value for a in RosterAction)})


def host_snapshot(fight: FightView, now: int) -> dict[str, Json]:
    """`snapshot` plus `host_actions` and what the theme's referee shows the host only."""
    view = snapshot(fight, now)
    referee_actions: list[Json] = []
    if fight.referee is not None:
        public = fight.referee.snapshot(now)
        host = fight.referee.host_snapshot(now)
        listed = host.get("host_actions")
        referee_actions = list(listed) if isinstance(listed, list) else list[Json](SVOYA_ACTIONS)
        referee_actions = [a for a in referee_actions if a not in NOT_THE_FIGHTS]
        view.update({k: v for k, v in host.items() if k not in public and k != "host_actions"})
    if fight.appeal is not None:
        # Until the next theme's reading starts, the theme just played's referee still hears
        # an appeal (4.1): its corrections, and they are the only ones (the new theme has none).
        listed = fight.appeal[1].host_snapshot(now).get("host_actions")
        corrections = (AdjustScore.ACTION.value, Reverse.ACTION.value)
        referee_actions = [a for a in referee_actions if a not in corrections]
        referee_actions += [a for a in listed if a in corrections] if isinstance(listed, list) else []
    view["host_actions"] = [*referee_actions, *fight.actions]
    return view


def taken(tally: Tally) -> dict[str, int]:
    """Questions taken by value, the highest first (the 3.10 indicators), keyed "50", "40", ..."""
    return {str(v): n for v, n in sorted(tally.taken.items(), reverse=True)}
