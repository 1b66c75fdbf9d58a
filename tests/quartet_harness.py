"""A hand-stepped clock around the «Эрудит-квартет» fight, for rules tests (no sleeping)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from console.engine.arbiter import SourceTiming
from console.engine.model import NS_PER_MS, NS_PER_S, Host, HostAction, Output, Press, Watermark
from console.engine.quartet.fight import QuartetFight
from console.engine.quartet.rules import (
    Penalty,
    QuartetAction,
    QuartetHost,
    QuartetRules,
    QuartetTeam,
    RoundType,
    Stage,
)
from console.engine.svoya.rules import Player, SvoyaRules
from console.playback import VirtualTable
from console.wire import events_json

MS = NS_PER_MS
S = NS_PER_S
MCU = SourceTiming(resolution_ns=1_000, max_delay_ns=5 * MS, ordered=True)
ROSTERS = {
    "t1": ("Аня", "Боря", "Вика", "Гоша", "Даша"),
    "t2": ("Ель", "Жора", "Зоя", "Ира"),
    "t3": ("Кот", "Лев", "Мир", "Ник"),
    "t4": ("Оля", "Петя", "Рая", "Сёма"),
}
TEAMS = tuple(QuartetTeam(t, f"Команда {t}", f"mcu:{i}", players)
              for i, (t, players) in enumerate(ROSTERS.items()))


def make_rules(teams: Sequence[QuartetTeam] = TEAMS, **overrides: Any) -> QuartetRules:
    svoya = SvoyaRules(players=tuple(Player(t.id, t.name, t.pad) for t in teams), sources={"mcu": MCU})
    return QuartetRules(teams=tuple(teams), svoya=svoya, **overrides)


# One question's outcome: a team that answers right, "-tX" a team that answers wrong first, or
# None: nobody signals. ("-t1", "t2"): t1 wrong, then t2 right.
Outcome = str | tuple[str, ...] | None


class Fight(VirtualTable):
    def __init__(self, rules: QuartetRules | None = None, start: int = 1_000 * S) -> None:
        fight = QuartetFight(rules or make_rules())
        super().__init__(fight, start)
        self.fight = fight
        self.pads = {t.id: t.pad for t in self.rules.teams}

    @property
    def rules(self) -> QuartetRules:
        """The fight's rules now: a roster changed from the tablet is in them."""
        return self.fight.rules

    def advance(self, dt: int) -> None:
        self.advance_to(self.now + dt)

    def deliver(self, inp: Any, arrive: int | None = None) -> list[Output]:
        return super().deliver(inp, arrive)

    def cmd(self, action: str, **args: Any) -> list[Output]:
        if isinstance(args.get("players"), list):
            args["players"] = tuple(args["players"])
        if isinstance(args.get("penalty"), str):
            args["penalty"] = Penalty(args["penalty"])
        if isinstance(args.get("themes"), list):
            args["themes"] = tuple(args["themes"])
        return self.deliver(QuartetHost(QuartetAction(action), self.now, **args))

    def host(self, action: HostAction) -> list[Output]:
        return self.deliver(Host(action, self.now))

    def press(self, team: str) -> list[Output]:
        pad = self.pads[team]
        return self.deliver(Press("mcu", pad, self.now)) + self.deliver(Watermark("mcu", self.now))

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in events_json(self.outputs) if kind is None or e["type"] == kind]

    def refusals(self, out: list[Output]) -> list[str]:
        return [e["message"] for e in events_json(out) if e["type"] == "error"]

    # ---- playing

    def read(self) -> None:
        """The next question announced and read to its end: the 7-s window opens."""
        self.host(HostAction.NEXT)
        self.advance(2 * S)
        self.host(HostAction.READING_FINISHED)

    def answer(self, team: str, *, correct: bool) -> None:
        """`team` signals half a second on, is named and answers, judged `correct` or not."""
        self.advance(500 * MS)
        self.press(team)
        self.advance(20 * MS)
        self.host(HostAction.NAME)
        self.advance(1 * S)
        self.host(HostAction.CORRECT if correct else HostAction.WRONG)

    def question(self, outcome: Outcome) -> None:
        """One question of the theme in play, from the value's announcement to its end."""
        self.read()
        steps = () if outcome is None else (outcome,) if isinstance(outcome, str) else outcome
        for step in steps:
            wrong = step.startswith("-")
            self.answer(step.lstrip("-"), correct=not wrong)
            if wrong:
                self.advance(100 * MS)
                self.host(HostAction.RESET)
        if not steps or all(s.startswith("-") for s in steps):
            self.advance(8 * S)  # nobody else signals: the window closes (App.10.3)

    def theme(self, outcomes: Sequence[Outcome] = (None,) * 5) -> None:
        """Start the theme whose players are assigned and play its five questions."""
        out = self.cmd("start_theme")
        assert not self.refusals(out), self.refusals(out)
        self.theme_questions(outcomes)

    def theme_questions(self, outcomes: Sequence[Outcome]) -> None:
        """The five questions of the theme in play (None for those not listed)."""
        for outcome in (*outcomes, *(None,) * (5 - len(outcomes))):
            self.question(outcome)

    def round_open(self, themes: Sequence[Sequence[Outcome]] = (),
                   orders: dict[str, list[str | None]] | None = None) -> None:
        """An open round: four themes named, every team's order given at once, the themes played."""
        out = self.cmd("start_round", themes=[f"Тема {i}" for i in range(1, 5)])
        assert not self.refusals(out), self.refusals(out)
        self.assign_all(orders)
        for i in range(4):
            self.theme(themes[i] if i < len(themes) else (None,) * 5)

    def round_dark(self, themes: Sequence[Sequence[Outcome]] = ()) -> None:
        out = self.cmd("start_round")
        assert not self.refusals(out), self.refusals(out)
        self.assign_all(None)
        for i in range(4):
            self.cmd("name_theme", name=f"Тёмная {i + 1}")
            self.theme(themes[i] if i < len(themes) else (None,) * 5)

    def round_half_dark(self, themes: Sequence[Sequence[Outcome]] = ()) -> None:
        out = self.cmd("start_round")
        assert not self.refusals(out), self.refusals(out)
        for i in range(4):
            self.cmd("name_theme", name=f"Полутёмная {i + 1}")
            for t in self.rules.teams:
                refused = self.refusals(self.cmd("assign", team=t.id, player=t.players[i]))
                assert not refused, refused
            self.theme(themes[i] if i < len(themes) else (None,) * 5)

    def assign_all(self, orders: dict[str, list[str | None]] | None) -> None:
        for t in self.rules.teams:
            order = (orders or {}).get(t.id) or list(t.players[:4])
            refused = self.refusals(self.cmd("assign", team=t.id, players=order))
            assert not refused, refused


__all__ = ["MS", "TEAMS", "Fight", "RoundType", "S", "Stage", "make_rules"]
