// «Эрудит-квартет»'s words (seed 004 §III), in one place for every page that shows the fight
// (the host's screen, the hall's board, the organiser's page) and for the console's own texts
// (console/games/quartet/texts.py reads this file: what follows the name below is JSON).
// A round type is its adjective («открытый»): a page says «раунд» itself.
const QUARTET_TEXTS = {
  "phases": {
    "before_round": "перед раундом",
    "between_themes": "между темами",
    "theme": "розыгрыш темы",
    "shootout_due": "нужна перестрелка",
    "over": "бой окончен"
  },
  "round_types": {"open": "открытый", "half_dark": "полутёмный", "dark": "тёмный"},
  "stages": {
    "group": "групповой этап",
    "semifinal": "полуфинал",
    "consolation": "утешительный бой",
    "final": "финал"
  },
  "penalties": {"warning": "предупреждение", "void": "незачёт ответа", "minus": "снятие очков"}
};
