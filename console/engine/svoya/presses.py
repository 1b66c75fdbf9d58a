"""«Своя игра» press arbitration: which presses count, and who was first.

Contract: `PressJudge` owns the `Arbiter` (source times, ties, when a decision is final) and
the false-start lockouts. It says why a press can never count in a question and a phase
(`refusal`, 004 App.4, App.8), or, for a press delivered after its question ended, why it no
longer counts (`refusal_after_end`); it drops the pending presses that can never count with a
`PressIgnored` each (`judge_pending`); it answers a false start (`false_start`); and it
takes the first eligible press of the pending ones as the answerer (`take_first`, App.5), ties
broken by the configured policy (pad order, or a draw from ``random.Random(rules.seed)``).
It changes only the question it is given and its own lockouts; the referee keeps the phase.
"""

from __future__ import annotations

import random

from console.engine.arbiter import Arbiter
from console.engine.model import Output, Press, ns_to_ms
from console.engine.svoya.events import IgnoreReason, PressIgnored, PressRecord, SignalAccepted
from console.engine.svoya.question import Phase, Question
from console.engine.svoya.rules import FalseStartPolicy, Player, SvoyaRules, TiePolicy


class PressJudge:
    """Arbitration of one fight's presses. See the module docstring."""

    def __init__(self, rules: SvoyaRules) -> None:
        self.rules = rules
        self.arbiter = Arbiter(rules.sources, rules.tie_window_ns)
        self._rng = random.Random(rules.seed)
        self._pad_order = {p.pad: i for i, p in enumerate(rules.players)}  # for ties by pad order
        self._false_start_until: dict[str, int] = {}

    def set_rules(self, rules: SvoyaRules) -> None:
        """The fight's players changed between questions (console/engine/svoya/roster.py)."""
        self.rules = rules
        self._pad_order = {p.pad: i for i, p in enumerate(rules.players)}
        known = {p.id for p in rules.players}
        self._false_start_until = {k: v for k, v in self._false_start_until.items() if k in known}

    def new_game(self) -> None:
        """A new fight: false-start lockouts are forgotten (the tie draw goes on)."""
        self._false_start_until.clear()

    def false_start(self, press: Press, player: Player, now: int) -> PressIgnored:
        """A press before the value is announced never wins (004 App.4)."""
        locked_until: int | None = None
        if self.rules.false_start is FalseStartPolicy.LOCKOUT:
            until = press.at + self.rules.false_start_lockout_ns
            locked_until = max(until, self._false_start_until.get(player.id, 0))
            self._false_start_until[player.id] = locked_until
        return PressIgnored(t_ns=now, player=player.id, pad=press.pad, at_ns=press.at,
                            reason=IgnoreReason.FALSE_START, locked_until_ns=locked_until)

    def refusal(self, q: Question, press: Press, player: Player, phase: Phase) -> IgnoreReason | None:
        """Why `press` can never count in `q` in `phase`, or None if it counts or may still count."""
        if player.id in q.out:
            return IgnoreReason.OUT_OF_QUESTION  # answered wrongly already (App.8)
        if self._false_start_until.get(player.id, 0) > press.at:
            return IgnoreReason.FALSE_START_LOCKOUT
        if press.at < q.counting_from:
            return IgnoreReason.BEFORE_RESET  # App.8: only after the host reset the previous signal
        window_end = q.window_end(self.rules.signal_window_ns)
        if window_end is not None and press.at > window_end:
            return IgnoreReason.LATE
        if phase is Phase.ANSWERING:
            if q.answer_press is not None and press.at < q.answer_press.at:
                # Made before the winner's press but delivered later than its source declared:
                # the decision stands (it was final), and the host sees this press for what it is.
                return IgnoreReason.DELIVERED_TOO_LATE
            return IgnoreReason.ANSWERER_CHOSEN
        return None

    def refusal_after_end(self, q: Question, press: Press, player: Player) -> IgnoreReason:
        """Why a press made during ended question `q` does not count (it reached us after the end)."""
        assert q.ended_in is not None
        reason = self.refusal(q, press, player, q.ended_in)
        if reason is not None:
            return reason
        if q.ended_in is Phase.AWAIT_RESET:
            return IgnoreReason.BEFORE_RESET  # the host never reset, so no later signal counted (App.8)
        if q.ended_in is Phase.OPEN:
            # Made inside the window, delivered after it closed: the window closes only once every
            # source has reported through its end, so this source took longer than it declared.
            return IgnoreReason.WINDOW_CLOSED
        return IgnoreReason.QUESTION_CANCELLED

    def judge_pending(self, q: Question, phase: Phase, now: int, out: list[Output]) -> None:
        """Drop presses that can never count, with an event naming why."""
        keep: list[Press] = []
        for press in q.pending:
            player = self.rules.pads[press.pad]
            reason = self.refusal(q, press, player, phase)
            if reason is None:
                keep.append(press)
            else:
                out.append(ignored(now, q, press, player, reason))
        q.pending = keep

    def take_first(self, q: Question, now: int) -> SignalAccepted:
        """The first eligible signal takes the turn (App.5); ties by the configured policy.

        `q`'s pending presses are spent: its answerer is the winner, with no answer clock yet.
        """
        ordered = sorted(q.pending, key=lambda p: (p.at, self._pad_order[p.pad]))
        t0 = ordered[0].at
        tied = [p for p in ordered if p.at < t0 + self.arbiter.tie_between(ordered[0].source, p.source)]
        winner = self._break_tie(tied)
        q.pending = []
        player = self.rules.pads[winner.pad]
        q.answerer, q.answer_press = player, winner
        q.answer_deadline, q.answer_started = None, False
        # By the press's own time (App.6): a signal made before the host's «дочитан» key stopped
        # the reading even when the key reached the console first.
        stopped_reading = q.reading_end is None or winner.at < q.reading_end
        q.reading_stopped = stopped_reading
        presses = tuple(
            PressRecord(player=self.rules.pads[p.pad].id, pad=p.pad, at_ns=p.at,
                        behind_ms=ns_to_ms(p.at - t0))
            for p in ordered
        )
        tie = len(tied) > 1
        lost = self.arbiter.lost_between(q.counting_from, t0 + self.arbiter.tie_ns - 1)
        return SignalAccepted(
            t_ns=now,
            player=player.id,
            name=player.name,
            pad=winner.pad,
            press_at_ns=winner.at,
            value=q.value,
            stop_reading=stopped_reading,
            tie=tie,
            presses=presses,
            tie_policy=self.rules.tie_policy if tie else None,
            tied=tuple(self.rules.pads[p.pad].id for p in tied) if tie else None,
            inputs_lost=lost or None,
        )

    def _break_tie(self, tied: list[Press]) -> Press:
        if len(tied) == 1:
            return tied[0]
        if self.rules.tie_policy is TiePolicy.PAD_ORDER:
            return min(tied, key=lambda p: self._pad_order[p.pad])
        return tied[self._rng.randrange(len(tied))]


def ignored(now: int, q: Question, press: Press, player: Player, reason: IgnoreReason) -> PressIgnored:
    """The event for `press` not counting in `q`, with how far behind the answerer's it was made."""
    behind: float | None = None
    if q.answer_press is not None and reason in (IgnoreReason.ANSWERER_CHOSEN,
                                                 IgnoreReason.DELIVERED_TOO_LATE):
        behind = ns_to_ms(press.at - q.answer_press.at)
    return PressIgnored(t_ns=now, player=player.id, pad=press.pad, at_ns=press.at, reason=reason,
                        behind_ms=behind)
