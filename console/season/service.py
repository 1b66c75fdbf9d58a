"""The season service on the organiser's machine (`chgk-console season`, docs/tournament.md).

Contract: `SeasonService(config)` opens the season database (console/season/db.py; one made
for another format is refused) and puts the config's teams in it. `run()` (async) serves the
organiser's page (console/data/season.html, by the display server's code) and keeps an MQTT
session with the organiser's broker until cancelled, where every table's broker bridges its
public topics (config/mosquitto/bridge-table.conf):

- a table's `game_record` (on ``<prefix>/+/events``, and retained on ``<prefix>/+/record`` for a
  result the service missed) is one game's result: offered to the database, which counts it
  once (a repeat is ignored, a different result for the same game is a conflict the page
  shows and that changes nothing). A game is its stage and its team: «Что? То? Там?» takes the
  record's stage (qualifier, semi-final, final); Belgorod's table games are the second stage
  until a team has played it, then the series;
- Belgorod's first stage is the sports stage's sheet (``<prefix>/+/sheet/jury`` and
  ``sheet/teams``), taken once the jury has closed it;
- the organiser's commands on ``<prefix>/season/command`` (JSON, not retained): ``result`` (a
  game typed by hand: stage, team, score, indicators, consolation points), ``ruling`` (a tie
  the seed leaves open), ``choose_slot`` (a captain's choice of a series game, 003 6.5),
  ``undo_slot`` (the latest choice taken back, unless its game is played), ``remove_result`` (a
  game the organiser typed by mistake), ``first_stage`` (the first stage typed by hand),
  ``add_team``;
- it publishes, retained at QoS 1, ``<prefix>/season/state`` (the season table, the decisions
  with their clauses, what is awaited next, the conflicts) and ``<prefix>/season/status``;
  each result's fate and each refused command on ``<prefix>/season/events``.

A message's change is committed inside paho's callback: paho acknowledges a QoS 1 message only
after the callback returns, so a result the broker counts as delivered is in the database.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import logging
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from console.season import belgorod, chto
from console.season.config import FORMATS, SeasonConfig
from console.season.db import HAND, SeasonDb, SeasonDbError
from console.season.model import INDICATORS, Decision, GameResult, Ruling, Team
from console.shell.display_server import DisplayServer

__all__ = ["NODE", "SeasonService", "result_from_record"]

log = logging.getLogger("chgk.season")

QOS = 1
NODE = "season"  # the service's topics: <prefix>/season/...
MAX_COMMAND = 16_384
STAGES = {"chto": ("qualifier", "semifinal", "final", "vprisyadku"), "belgorod": ("second_stage", "series")}
RULING_STEPS = ("semifinal", "consolation_final", "third_place")  # where 000 leaves a tie open


def played_game(record: dict[str, Any], node: str) -> str:
    """The table game a record is ("<node>@<started_at_ns>"), the same in all its versions;
    "" for a console too old to say."""
    started = record.get("started_at_ns")
    return f"{node}@{int(started)}" if isinstance(started, int) and not isinstance(started, bool) else ""


def result_from_record(record: dict[str, Any], stage: str, source: str) -> GameResult:
    """A console's `game_record` (docs/mqtt-table.md) as a season's game of `stage`;
    KeyError/TypeError/ValueError when it is not one."""
    team = record["team"]
    if not isinstance(team, str) or not team:
        raise ValueError("the record names no team at the table")
    score = record["score"]
    consolation = {str(c["team"]): {k: int(c[k]) for k in ("hall", "table", "wrong", "points")}
                   for c in record.get("consolation", [])}
    indicators = {i: int(record.get("indicators", {}).get(i, 0)) for i in INDICATORS}
    return GameResult(f"{stage}:{team}", stage, team, int(score["team"]), int(score["club"]), indicators,
                      consolation, source=source, played=played_game(record, source))


class SeasonService:
    def __init__(self, config: SeasonConfig) -> None:
        self.config = config
        self.prefix = config.prefix
        self.db = SeasonDb(config.database)
        fmt = self.db.meta("format")
        if fmt is not None and fmt != config.format:
            raise SeasonDbError(f"{config.database} is a {FORMATS.get(fmt, fmt)} season, the config's is "
                                f"{FORMATS[config.format]}: give it another database")
        if fmt is None:
            self.db.set_meta("format", config.format)
            self.db.set_meta("name", config.name)
        for team in config.teams:
            self.db.add_team(team)
        self.page: DisplayServer | None = None
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=config.client_id,
                                  clean_session=False, protocol=mqtt.MQTTv311)
        if config.username:
            self.client.username_pw_set(config.username, config.password)
        self.client.will_set(self.topic("status"), json.dumps({"state": "offline"}), QOS, retain=True)
        self.client.reconnect_delay_set(1, 5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._last_state = ""
        self.said: collections.deque[dict[str, Any]] = collections.deque(maxlen=20)  # the latest events
        self._first_stage_refused = ""  # why the latest closed sheet was not taken (Russian)
        # A first stage the jury's sheet changed to after games were played on the one taken
        # (003 5.6-5.8 follow from it): held for the organiser ("accept_first_stage"), with its table.
        self._first_stage_held: tuple[str, dict[str, Any]] | None = None
        self._sheet_reopened: set[str] = set()  # the tables whose taken sheet the jury reopened
        self._sheet: dict[str, dict[str, Any]] = {}  # "<node>/jury", "<node>/teams": the sheet's parts

    def topic(self, name: str) -> str:
        return f"{self.prefix}/{NODE}/{name}"

    # ------------------------------------------------------------------ the season now

    def view(self) -> dict[str, Any]:
        """What the organiser's page shows (published on <prefix>/season/state)."""
        teams = self.db.teams()
        results = self.db.results()
        names = {t.id: t.name for t in teams}
        view: dict[str, Any] = {"name": self.db.meta("name") or self.config.name,
                                "format": self.config.format,
                                "format_title": FORMATS[self.config.format],
                                "teams": [{"id": t.id, "name": t.name, "registered": t.registered,
                                           "players": t.players, "town": t.town} for t in teams],
                                "games": [{**r.document(), "name": names.get(r.team, r.team)}
                                          for r in results.values()],
                                "conflicts": self.db.conflicts()}
        decisions: list[Decision]
        if self.config.format == "chto":
            cs = chto.decide(teams, results, self.db.rulings())
            decisions, waiting = cs.decisions, cs.waiting
            view |= {"game_days": chto.game_days(teams), "consolation": cs.consolation,
                     "main_finalist": cs.main_finalist, "consolation_finalist": cs.consolation_finalist,
                     "semifinalists": list(cs.semifinalists), "third_place": cs.third_place}
        else:
            bs = self._belgorod()
            decisions, waiting = bs.decisions, bs.waiting
            view |= {"first_stage": self.db.first_stage(), "bingo": bs.bingo, "rating": bs.rating,
                     "entrants": list(bs.entrants), "order": {str(k): v for k, v in bs.order.items()},
                     "series": bs.series, "candidates": list(bs.candidates),
                     "next_chooser": belgorod.next_chooser(bs, self.db.slots(), self.config.last_finalist)
                     if bs.entrants and len(bs.order) < len(bs.entrants) else None}
        view["decisions"] = [{"step": d.step, "text": d.text, "clause": d.clause, "teams": list(d.teams)}
                             for d in decisions]
        if self.config.format == "belgorod" and view["first_stage"] is None and self._first_stage_refused:
            waiting = [f"{self._first_stage_refused} (003 5.2-5.5)", *waiting]
        if self._first_stage_held is not None:
            node, doc = self._first_stage_held
            winners = ", ".join(names.get(t, t) for t in doc["winners"])
            waiting = [f"решение оргкомитета: протокол жюри со стола {node} изменился после того, как по "
                       f"прежнему первому этапу сыграны игры (победители по новому: {winners}); примите "
                       "новый («Принять новый протокол») или оставьте прежний (003 5.5-5.8)", *waiting]
        if self._sheet_reopened:
            waiting = [f"протокол жюри открыт снова (стол {', '.join(sorted(self._sheet_reopened))}): итоги "
                       "первого этапа могут измениться (003 5.5)", *waiting]
        view["first_stage_held"] = self._first_stage_held is not None
        open_games = sorted({c["game"] for c in view["conflicts"]})
        if open_games:  # the season is not settled while a game has two results
            waiting = [f"расхождения результатов: {', '.join(open_games)} — введите верный результат "
                       "вручную", *waiting]
        view["waiting"] = waiting
        now = _now()
        for decision in decisions:  # each kept the first time it is taken, with when
            self.db.log_decision(decision, now)
        view["log"] = self.db.decisions()[-40:]  # after this view's own are kept
        return view

    def _belgorod(self) -> belgorod.BelgorodSeason:
        first_doc = self.db.first_stage()
        first = None if first_doc is None else belgorod.FirstStage(
            {str(k): int(v) for k, v in first_doc["places"].items()}, tuple(first_doc["winners"]))
        return belgorod.decide(self.db.teams(), first, self.db.results(), self.db.slots(), self.config.bingo,
                               self.config.last_finalist)

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        if self.config.http_port:
            self.page = DisplayServer(self.config.bind, self.config.http_port, ws_port=self.config.ws_port,
                                      base=f"{self.prefix}/{NODE}", board="season.html",
                                      login_pages=("season.html",), console_pages=False)
            await self.page.start()
            log.info("the organiser's season page: http://%s:%d/", self.config.bind, self.page.port)
        self.client.connect_async(self.config.mqtt_host, self.config.mqtt_port, keepalive=30)
        self.client.loop_start()
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            offline = json.dumps({"state": "offline"})
            info = self.client.publish(self.topic("status"), offline, QOS, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # not connected: the will says it
                await asyncio.to_thread(info.wait_for_publish, 1.0)
            self.client.disconnect()
            self.client.loop_stop()
            self.db.close()
            if self.page is not None:
                await self.page.close()

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, reason: Any,
                    properties: object) -> None:
        if reason.is_failure:
            log.error("the organiser's broker refused the season service: %s", reason)
            return
        log.info("connected to the organiser's broker %s:%d", self.config.mqtt_host, self.config.mqtt_port)
        client.subscribe([(f"{self.prefix}/+/events", QOS), (f"{self.prefix}/+/record", QOS),
                          (f"{self.prefix}/+/sheet/jury", QOS), (f"{self.prefix}/+/sheet/teams", QOS),
                          (self.topic("command"), QOS)])
        client.publish(self.topic("status"), json.dumps({"state": "online", "name": self.config.name}),
                       QOS, retain=True)
        self._last_state = ""
        self.publish_state()

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        if message.retain and message.topic == self.topic("command"):
            return  # a command left retained is never carried out again
        try:
            self.handle(message.topic, bytes(message.payload))
        except Exception:  # one bad message must not stop paho's thread (and the service)
            log.exception("a message on %s could not be handled", message.topic)

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker (public for tests that feed the service directly)."""
        parts = topic.split("/")
        if parts == [self.prefix, NODE, "command"]:
            self._command(payload)
            return
        if len(parts) < 3 or parts[0] != self.prefix or parts[1] in (NODE, "bridges", "tournament"):
            return
        node, kind = parts[1], "/".join(parts[2:])
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if not isinstance(data, dict):
            return
        if kind in ("sheet/jury", "sheet/teams"):
            self._sheet[f"{node}/{kind}"] = data
            self._take_first_stage(node)
        elif (kind == "events" and data.get("type") == "game_record") or kind == "record":
            self._take_record(node, data)

    def _take_record(self, node: str, record: dict[str, Any]) -> None:
        try:
            stage = self._stage_of(record, node)
            result = result_from_record(record, stage, node)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("table %s: a game record that cannot be read (%s)", node, exc)
            self._event({"type": "record_unreadable", "source": node,
                         "message": f"стол {node}: результат игры не прочитан ({exc}): не учтён"})
            return
        self._offer(result)

    def _stage_of(self, record: dict[str, Any], node: str) -> str:
        if self.config.format == "chto":
            stage = str(record["stage"])
            if stage not in STAGES["chto"]:
                raise ValueError(f"stage {stage!r}")
            return stage
        # Belgorod's table games are a team's second-stage game, then its series game. The same
        # game comes again and again (the live event, the retained record at every restart, a
        # new version after a late hall answer or a correction): the game a record names
        # (`played_game`) is the counted game it is a version of.
        team = str(record["team"])
        first = self.db.first_stage()
        if team == self.config.last_finalist and (first is None or team not in first["places"]):
            return "series"  # 5.8: the last finalist is in the series by right; its game is the revanche
        results = self.db.results()
        second, series = results.get(f"second_stage:{team}"), results.get(f"series:{team}")
        played = played_game(record, node)
        if played:
            for counted in (second, series):
                if counted is not None and counted.played == played:
                    return counted.stage
        # A record that does not say its game (an older console), or a hand-typed second stage:
        # the same result as the counted second-stage game is that game again.
        if second is None or (not (played and second.played)
                              and second.same_result(result_from_record(record, "second_stage", node))):
            return "second_stage"
        return "series"

    def _final_of(self, result: GameResult) -> GameResult:
        """000's final result with which final it was: as counted before for its game, else (and
        when the organiser types it again) by the season's pairing now; a final of neither
        finalist is left unnamed."""
        if self.config.format != "chto" or result.stage != "final":
            return result
        counted = self.db.results().get(result.game)
        if counted is not None and counted.final_of and result.source != HAND:
            return dataclasses.replace(result, final_of=counted.final_of)
        season = chto.decide(self.db.teams(), self.db.results(), self.db.rulings())
        which = {season.main_finalist: "main", season.consolation_finalist: "consolation"}
        return dataclasses.replace(result, final_of=which.get(result.team, ""))

    def _offer(self, result: GameResult) -> None:
        teams = {t.id: t for t in self.db.teams()}
        refused = self._refusal(result, teams)
        if refused:
            self._event({"type": "result_foreign", "game": result.game, "source": result.source,
                         "message": f"{result.game} ({result.shown}, {result.source}): {refused}: "
                                    "результат не учтён"})
            log.warning("%s from %s: refused (%s)", result.game, result.source, refused)
            return
        fate = self.db.offer_result(self._final_of(result), _now())
        message = {"recorded": "учтён", "repeat": "уже учтён: повтор не меняет ничего",
                   "updated": "новая версия от того же источника: учтена вместо прежней",
                   "corrected": "исправлен оргкомитетом: учтён вместо прежнего результата",
                   "overruled": "версия, которую оргкомитет исправил: не учтена",
                   "conflict": "отличается от учтённого и пришёл из другого источника: конфликт, "
                               "ничего не изменено; введите верный результат вручную"}[fate]
        (log.info if fate != "conflict" else log.warning)("%s from %s: %s", result.game, result.source, fate)
        self._event({"type": f"result_{fate}", "game": result.game, "source": result.source,
                     "message": f"{result.game} ({result.shown}, {result.source}): {message}"})
        self.publish_state()

    def _refusal(self, result: GameResult, teams: dict[str, Team]) -> str:
        """Why a game cannot be the season's (Russian), or ""."""
        if result.team not in teams:
            return f"команды {result.team!r} нет в сезоне"
        if self.config.format == "chto" and not teams[result.team].registered:
            return f"команда {teams[result.team].name} не заявлена и играет только в зале (000 1.4)"
        strangers = sorted(set(result.consolation) - set(teams))
        if strangers:
            return "в баллах зала команды, которых нет в сезоне: " + ", ".join(strangers)
        if self.config.format == "belgorod" and result.stage == "series":
            entrants = self._belgorod().entrants
            if entrants and result.team not in entrants:
                return f"команда {teams[result.team].name} не в серии (003 5.8)"
        return ""

    def _take_first_stage(self, node: str) -> None:
        jury, teams = self._sheet.get(f"{node}/sheet/jury"), self._sheet.get(f"{node}/sheet/teams")
        if self.config.format != "belgorod" or jury is None or teams is None:
            return
        if not jury.get("closed"):
            # Reopened after it was taken: the first stage may change; the season says so.
            if self.db.first_stage() is not None and node not in self._sheet_reopened:
                self._sheet_reopened.add(node)
                self.publish_state()
            return
        if node in self._sheet_reopened:
            self._sheet_reopened.discard(node)
            self.publish_state()
        try:
            first = belgorod.first_stage_from_sheet(jury, teams, self.db.teams())
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("table %s: the first stage's closed sheet not taken (%s)", node, exc)
            self._first_stage_refused = f"протокол жюри со стола {node} не принят: {exc}"
            self._event({"type": "first_stage_refused", "source": node, "message": str(exc)})
            self.publish_state()
            return
        self._first_stage_refused = ""
        doc = {"places": dict(first.places), "winners": list(first.winners)}
        taken = self.db.first_stage()
        if taken is not None and taken != doc and self._played_on_first_stage():
            self._first_stage_held = (node, doc)
            log.warning("table %s: the first stage's sheet changed after games were played on it: held "
                        "for the organiser", node)
            self.publish_state()
            return
        self._first_stage_held = None
        if taken != doc:
            self.db.set_first_stage(doc, node, _now())
            self._event({"type": "first_stage_recorded", "source": node,
                         "message": "итоги первого этапа взяты из протокола жюри"})
            self.publish_state()

    def _played_on_first_stage(self) -> bool:
        """Whether anything the first stage decides was played or chosen: a second-stage or
        series game, a captain's choice."""
        stages = {r.stage for r in self.db.results().values()}
        return bool(self.db.slots()) or bool(stages & {"second_stage", "series"})

    def _accept_first_stage(self, c: dict[str, Any]) -> None:
        """The jury's changed first stage taken after all (the organiser's decision)."""
        if self._first_stage_held is None:
            raise ValueError("нового протокола первого этапа, ждущего решения, нет")
        node, doc = self._first_stage_held
        self.db.set_first_stage(doc, node, _now())
        self._first_stage_held = None
        self._event({"type": "first_stage_recorded", "source": node,
                     "message": "итоги первого этапа взяты из изменённого протокола жюри "
                                "(решение оргкомитета)"})

    # ------------------------------------------------------------------ the organiser's commands

    def _command(self, payload: bytes) -> None:
        try:
            if len(payload) > MAX_COMMAND:
                raise ValueError(f"команда длиннее {MAX_COMMAND} байт")
            command = json.loads(payload)
            if not isinstance(command, dict):
                raise ValueError("команда — объект JSON")
            action = command.get("action")
            handler = {"result": self._hand_result, "ruling": self._ruling, "choose_slot": self._choose_slot,
                       "undo_slot": self._undo_slot, "remove_result": self._remove_result,
                       "accept_first_stage": self._accept_first_stage,
                       "first_stage": self._hand_first_stage, "add_team": self._add_team}.get(str(action))
            if handler is None:
                raise ValueError(f"неизвестное действие {str(action)[:40]!r} (result, remove_result, ruling, "
                                 "choose_slot, undo_slot, first_stage, accept_first_stage, add_team)")
            handler(command)
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, belgorod.SlotRefused) as exc:
            why = str(exc) if not isinstance(exc, KeyError) else f"нет поля {exc}"
            log.warning("organiser's command refused: %s", why)
            self._event({"type": "command_refused", "message": why})
            return
        self.publish_state()

    def _hand_result(self, c: dict[str, Any]) -> None:
        stage = str(c["stage"])
        if stage not in STAGES[self.config.format]:
            raise ValueError(f"этап {stage!r}: один из {', '.join(STAGES[self.config.format])}")
        score = c["score"]
        if not (isinstance(score, list) and len(score) == 2 and all(_count(x) for x in score)):
            raise ValueError("счёт — два числа через двоеточие, например 6:3")
        team_score, club_score = score
        if not (team_score <= 20 and club_score <= 20):
            raise ValueError("счёт от 0 до 20")
        points = c.get("consolation", {})
        if not (isinstance(points, dict) and all(_count(p) for p in points.values())):
            raise ValueError("баллы зала — команда=число через пробел, например a=3 b=1")
        consolation = {str(t): {"hall": p, "table": 0, "wrong": 0, "points": p} for t, p in points.items()}
        given = c.get("indicators", {})
        if not (isinstance(given, dict) and set(given) <= set(INDICATORS)
                and all(_count(v) for v in given.values())):
            raise ValueError("показатели 000 1.6.1 — " + ", ".join(INDICATORS) + ": числа от 0")
        indicators = {i: int(given.get(i, 0)) for i in INDICATORS}
        day = c.get("day", 0)
        if not _count(day):
            raise ValueError("игровой день — число от 0")
        team = str(c["team"])
        counted = self.db.results().get(f"{stage}:{team}")
        if counted is not None:
            # A table's game corrected by hand: what the organiser leaves empty (the hall's
            # points, the indicators) stays as the table counted it, not zero.
            consolation = consolation or {t: dict(v) for t, v in counted.consolation.items()}
            if not any(indicators.values()):
                indicators = {i: int(counted.indicators.get(i, 0)) for i in INDICATORS}
        self._offer(GameResult(f"{stage}:{team}", stage, team, team_score, club_score, indicators,
                               consolation, day, source=HAND))

    def _remove_result(self, c: dict[str, Any]) -> None:
        """A game typed by mistake (another team's, a wrong «вприсядку» winner) taken out. Only
        the organiser's own: a table's comes back with its retained record, and is settled by
        typing the right result instead."""
        game = str(c["game"])
        counted = self.db.results().get(game)
        if counted is None:
            raise ValueError(f"игры {game[:60]!r} нет в сезоне")
        if counted.source != HAND:
            raise ValueError(f"{game} пришла со стола {counted.source}: введите верный результат вручную, "
                             "он будет учтён вместо неё")
        self.db.remove_result(game, _now())
        self._event({"type": "result_removed", "game": game, "message": f"{game} ({counted.shown}) удалена"})

    def _ruling(self, c: dict[str, Any]) -> None:
        if self.config.format != "chto":
            raise ValueError("решения оргкомитета о равных — в сезоне «Что? То? Там?» (000 1.1.1, 1.7, 1.8)")
        step = str(c["step"])
        if step not in RULING_STEPS:
            raise ValueError(f"шаг {step[:40]!r}: один из {', '.join(RULING_STEPS)}")
        # The page shows names: a team is named by its id or its name (ids may come as "a b").
        teams_now = self.db.teams()
        known = {t.name.casefold(): t.id for t in teams_now} | {t.id.casefold(): t.id for t in teams_now}
        given = [part for t in map(str, c["teams"])
                 for part in ([t] if t.casefold() in known else t.split())]
        unknown = [t for t in given if t.casefold() not in known]
        if unknown:
            raise ValueError(f"нет команд {', '.join(unknown)}")
        teams = tuple(known[t.casefold()] for t in given)
        why = str(c.get("why", "")).strip()
        if not why:
            raise ValueError("решению оргкомитета нужна причина: она остаётся в протоколе сезона")
        ruling = Ruling(step, teams, why)
        # Taken only if it settles the tie the season waits on: else it would lie unused.
        season = chto.decide(self.db.teams(), self.db.results(), {**self.db.rulings(), step: ruling})
        if step not in season.ruled:
            ties = [w for w in season.waiting if w.startswith("решение оргкомитета")]
            raise ValueError("решение не принято: оно не решает равенство, которого ждёт сезон"
                             + (f" ({ties[0]}; назовите команды из равных)" if ties
                                else " (сейчас равных нет)"))
        self.db.set_ruling(ruling, str(c.get("by", "organiser")), _now())

    def _choose_slot(self, c: dict[str, Any]) -> None:
        if self.config.format != "belgorod":
            raise ValueError("выбор игр серии — в сезоне Белгородского чемпионата (003 6.5)")
        season = self._belgorod()
        team, slot = str(c["team"]), c["slot"]
        if not _count(slot):
            raise ValueError("номер игры серии — число, например 3")
        names = {t.id: t.name for t in self.db.teams()}
        belgorod.check_slot(season, self.db.slots(), team, slot, self.config.last_finalist, names)
        self.db.add_slot(team, slot, _now())

    def _undo_slot(self, c: dict[str, Any]) -> None:
        """The latest captain's choice taken back (a mistaken click), unless its game is played."""
        slots = self.db.slots()
        if not slots:
            raise ValueError("выборов игр серии ещё нет")
        team, slot = slots[-1]
        names = {t.id: t.name for t in self.db.teams()}
        if f"series:{team}" in self.db.results():
            raise ValueError(f"игра {slot} ({names.get(team, team)}) уже сыграна: выбор не отменить")
        self.db.remove_last_slot()
        self._event({"type": "slot_undone",
                     "message": f"выбор отменён: {names.get(team, team)}, игра {slot}; выбирает снова"})

    def _hand_first_stage(self, c: dict[str, Any]) -> None:
        places = {str(t): int(p) for t, p in c["places"].items()}
        winners = [str(t) for t in c["winners"]]
        if set(winners) - set(places):
            raise ValueError("победители первого этапа — из команд с местами")
        self.db.set_first_stage({"places": places, "winners": winners}, "hand", _now())

    def _add_team(self, c: dict[str, Any]) -> None:
        players = c.get("players", 6)
        if not _count(players):
            raise ValueError("число игроков команды — число, например 6")
        team = Team(str(c["id"]), str(c["name"]), bool(c.get("registered", True)), players)
        if not team.id or not team.name.strip():
            raise ValueError("команде нужны id и название")
        if self.config.format == "chto" and not (5 if team.registered else 1) <= team.players <= 6:
            raise ValueError("в заявленной команде 5 или 6 игроков (000 1.3), в незаявленной до 6 (1.4)")
        if not self.db.add_team(team):
            raise ValueError(f"команда {team.id!r} уже есть")

    # ------------------------------------------------------------------ publishing

    def publish_state(self) -> None:
        text = json.dumps(self.view(), ensure_ascii=False)
        if text != self._last_state:
            self._last_state = text
            self.client.publish(self.topic("state"), text, QOS, retain=True)

    def _event(self, event: dict[str, Any]) -> None:
        self.said.append(event)
        self.client.publish(self.topic("events"), json.dumps(event, ensure_ascii=False), QOS)


def _count(value: object) -> bool:
    """Whether a command's `value` is a whole number from 0 (JSON's true and 1.5 are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")
