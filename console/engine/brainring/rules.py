"""The parameters of a «Брейн-ринг» fight, and the host's inputs.

No seed covers the game and published rules differ (../shared/RULES.md §5 names the sources),
so every point is a parameter. The defaults are the sports/club preset (windflower: the
student European cup's rules, §2): 60 s after «Время!», 20 s to the other team after a false
start or a wrong answer, 1 point an answer, first to 3, extra questions on a tie. `PRESETS`
names the others: ``tv`` (20 s, to 5; ky.wikipedia «Брейн-Ринг» 1-5) and ``club`` (the time
left instead of the 20 s, stakes rising after an unanswered question, a player sent out for a
wrong answer in the first second; tbclub.ru, professional-event.com). Durations are
host-monotonic nanoseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from console.engine.arbiter import SourceTiming
from console.engine.model import NS_PER_S


class BrainringAction(StrEnum):
    """What the host does in a fight (from the keys, the pedal or the tablet)."""

    NEXT = "next"  # the next question begins (its reading: a press from here is a false start)
    TIME = "time"  # «Время!»: the start signal, the count runs
    CORRECT = "correct"
    WRONG = "wrong"
    CANCEL = "cancel"  # withdraw the question in play: no score change, it is played again
    NEW_FIGHT = "new_fight"  # the next fight of the game: scores to zero, the standings kept
    NEW_GAME = "new_game"  # everything to zero: the standings too
    PAUSE = "pause"  # hold the running count (a dispute): what is left of it is kept
    RESUME = "resume"  # the held count goes on with what it had left


class Rebound(StrEnum):
    """How long the other team has after a false start or a wrong answer (§5, windflower 2.4)."""

    FIXED = "fixed"  # `rebound_ns` (20 s), the sports rule
    REMAINING = "remaining"  # the time left of the count (+`rebound_ns` if under a second left: club)


class SendOut(StrEnum):
    """A wrong answer given within the first second after «Время!» (§5: club, TV 5.2)."""

    OFF = "off"
    FIGHT = "fight"  # the player's button is out until the end of the fight (club)
    GAME = "game"  # ... until the end of the game (TV 5.2)


@dataclass(frozen=True, slots=True)
class Team:
    """A team at the buttons: any of its pads is the team's press (§5: one signal a team)."""

    id: str
    name: str
    pads: tuple[str, ...]  # "<source>:<pad index>"


@dataclass(frozen=True, slots=True)
class BrainringHost:
    """The host did `action` at `at`."""

    action: BrainringAction
    at: int


@dataclass(frozen=True, slots=True)
class BrainringRules:
    teams: tuple[Team, ...]
    sources: Mapping[str, SourceTiming]
    count_ns: int = 60 * NS_PER_S  # after «Время!» (club, windflower; TV: 20 s)
    rebound_ns: int = 20 * NS_PER_S  # the other team's time (windflower 2.4)
    rebound: Rebound = Rebound.FIXED
    points: int = 1  # a correct answer (windflower 2.3)
    target: int = 3  # the fight ends when a team has this many points (0: no target; TV: 5)
    questions: int = 0  # the fight's questions (0: until the target); a tie then: extra questions
    rising_stakes: bool = False  # an unanswered question: the next for 2×, then 3× `points` (club)
    send_out: SendOut = SendOut.OFF
    send_out_within_ns: int = NS_PER_S  # «the first second after «Время!»»
    warning_ns: int = 5 * NS_PER_S  # the 3 short beeps this long before the end of a count
    tie_window_ns: int | None = None  # None: the coarsest source resolution
    # The worst-case delay of the host's key: a press this soon before «Время!» reached the
    # console may have been made after it (the key's own stamp decides, once it is in).
    host_max_delay_ns: int = 20_000_000
    lost_source_wait_ns: int = 30 * NS_PER_S  # a lost box is waited for this long, then not
    seed: int = 0  # the draw between presses on the same tick (logged, replayed)
    pads: Mapping[str, Team] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.teams) < 2:
            raise ValueError(f"a fight needs 2 teams or more at the buttons (§5), got {len(self.teams)}")
        ids = [t.id for t in self.teams]
        if len(set(ids)) != len(ids):
            raise ValueError("team ids must be unique")
        pads: dict[str, Team] = {}
        for team in self.teams:
            if not team.pads:
                raise ValueError(f"team {team.id!r} has no button (pads = [\"mcu:0\", ...])")
            for pad in team.pads:
                if pad in pads:
                    raise ValueError(f"pad {pad!r} is both {pads[pad].id!r}'s and {team.id!r}'s")
                source = pad.split(":", 1)[0]
                if source not in self.sources:
                    raise ValueError(f"team {team.id!r} is on pad {pad!r} of unknown source {source!r}")
                pads[pad] = team
        if self.points < 1:
            raise ValueError("points must be at least 1")
        if self.target < 0 or self.questions < 0:
            raise ValueError("target and questions must not be negative")
        if self.target == 0 and self.questions == 0:
            raise ValueError("a fight needs an end: a target (first to N points) or a number of questions")
        if not 0 < self.warning_ns < min(self.count_ns, self.rebound_ns) + 1:
            raise ValueError("the warning must come before the end of every count")
        object.__setattr__(self, "pads", pads)

    def stake(self, unanswered: int) -> int:
        """The points of a question after `unanswered` questions in a row nobody took."""
        if not self.rising_stakes:
            return self.points
        return self.points * min(3, 1 + unanswered)

