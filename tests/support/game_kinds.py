"""Each game kind at its smallest, as a club runs it (`KINDS`, by the registry's name): the
game's own part of a config's TOML, a host command it takes at the start, the event that command
makes, and what the game's page shows then (its title, a JavaScript check, its topics' schemas)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "Kind"]


@dataclass(frozen=True)
class Kind:
    config: str  # the game's own part of the TOML
    title: str  # the page's <title> begins with it
    command: bytes  # a host command the game takes at the start
    event: str  # the event that command makes
    shown: str  # JavaScript, truthy once the page shows that the command was played
    schemas: dict[str, str]  # the last part of a topic -> its schema (console/schemas.py)


KINDS = {
    "svoya": Kind(
        config='[game]\nkind = "svoya"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
               '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
               '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n',
        title="Своя игра",
        command=b'{"action": "next"}',
        event="question_started",
        shown="document.getElementById('question').textContent.startsWith('Тема 1')",
        schemas={},
    ),
    "chgk": Kind(
        config='[game]\nkind = "chgk"\n[sources.top]\nkind = "simulated_mcu"\npads = 1\n'
               '[[teams]]\nid = "t1"\nname = "Совы"\n[table]\nteam = "t1"\n',
        title="Что? Где? Когда?",
        command=b'{"action": "pick_sector", "sector": 3}',
        event="sector_chosen",
        shown="document.querySelector('path.sector.current')?.dataset.sector === '3'",
        schemas={"events": "table_event", "state": "table_state"},
    ),
    "sports": Kind(
        config='[game]\nkind = "sports"\n[sports]\ncount_s = 45\nwarning_at_s = 35\n',
        title="Что? Где? Когда? — секундомер",
        command=b'{"action": "start"}',
        event="sports_timer_started",
        shown="(n => n > 35 && n <= 45)(parseInt(document.getElementById('timer').textContent))",
        schemas={"events": "table_event", "state": "sports_state"},
    ),
    "quartet": Kind(
        config='[game]\nkind = "quartet"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
               '[[players]]\nid = "t1"\nname = "Совы"\npad = "mcu:0"\n'
               '[[players]]\nid = "t2"\nname = "Ежи"\npad = "mcu:1"\n'
               '[[quartet.teams]]\nid = "t1"\nplayers = ["Аня", "Боря", "Вика", "Гоша"]\n'
               '[[quartet.teams]]\nid = "t2"\nplayers = ["Ель", "Жора", "Зоя"]\n',
        title="Эрудит-квартет",
        command='{"action": "start_round", "themes": ["Реки", "Горы", "Моря", "Леса"]}'.encode(),
        event="round_started",
        shown="document.getElementById('round').textContent.startsWith('Раунд 1')",
        schemas={"events": "quartet_event", "state": "quartet_state"},
    ),
    "brainring": Kind(
        config='[game]\nkind = "brainring"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 4\n'
               '[[brainring.teams]]\nid = "t1"\nname = "Совы"\npads = ["mcu:0", "mcu:1"]\n'
               '[[brainring.teams]]\nid = "t2"\nname = "Ежи"\npads = ["mcu:2", "mcu:3"]\n',
        title="Брейн-ринг",
        command=b'{"action": "next"}',
        event="question_started",
        shown="document.getElementById('question').textContent.startsWith('Вопрос 1')",
        schemas={"events": "brainring_event", "state": "brainring_state"},
    ),
}
