// The «Что? Где? Когда?» table on the host's screen (a module of host.js: registerGame): its
// actions, phases and view (the score, the round, the top), and its dialogs' sectors and teams.
"use strict";

const TABLE = [
  { action: "pick_sector", label: "Выбрать сектор", fields: [{ name: "sector", label: "Сектор", type: "sector" }] },
  { action: "draw_lototron", label: "Лототрон" },
  { action: "start_timer", label: "Время!", look: "good" },
  { action: "pause", label: "Пауза" },
  { action: "resume", label: "Продолжить отсчёт", look: "good" },
  { action: "early_answer", label: "Досрочный ответ" },
  { action: "answer_correct", label: "Верно", look: "good" },
  { action: "answer_wrong", label: "Неверно", look: "danger" },
  { action: "player_leaves", label: "Игрок уходит (цейтнот)" },
  { action: "fortochka", label: "Это форточка" },
  { action: "extra_time", label: "Помощь: доп. время" },
  { action: "club_help", label: "Помощь клуба" },
  { action: "use_saved_minute", label: "Сэкономленная минута" },
  { action: "move_question", label: "Перенести конверт",
    fields: [{ name: "sector", label: "С сектора", type: "sector" },
             { name: "to_sector", label: "На сектор", type: "sector" }] },
  { action: "refill", label: "Новый конверт", fields: [{ name: "sector", label: "Сектор", type: "sector" }] },
  { action: "hall_correct", label: "Зал ответил верно",
    fields: [{ name: "team", label: "Команда в зале", type: "team" },
             { name: "round", label: "Раунд (пусто: текущий)", type: "int", optional: true },
             { name: "part", label: "Вопрос раунда (пусто: текущий)", type: "int", optional: true }] },
  { action: "hint_from_hall", label: "Подсказка из зала", look: "danger",
    confirm: "Подсказка из зала: раунд проигран, игрок уходит из-за стола. Засчитать?" },
  { action: "decisive_round", label: "Решающий раунд", look: "danger",
    confirm: "Команда берёт решающий раунд?" },
  { action: "cancel_round", label: "Снять раунд", look: "danger",
    confirm: "Снять раунд? Очков никто не получит, конверт вернётся на сектор." },
  { action: "correct_round", label: "Исправить итог раунда", look: "correction",
    confirm: (s) => s.correction
      ? `Раунд ${s.correction.round} (сектор ${s.correction.sector}): очко переходит к стороне «${
          s.correction.to === "team" ? "знатоки" : s.opponent}».`
      : "Отдать очко последнего раунда другой стороне?",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
  { action: "new_game", menu: true, label: "Новая игра", look: "danger",
    confirm: "Начать новую игру за столом? Счёт обнулится, все сектора снова в игре.",
    fields: [{ name: "team", label: "Команда за столом (пусто: никого)", type: "team", optional: true }] },
];

function renderTable(s) {
  const team = s.team ? s.team.name : "команда не за столом";
  const c = s.current;
  let line = `${team} ${s.score.team} : ${s.score.club} ${s.opponent}`;
  if (c) line += ` · раунд ${c.round}, сектор ${c.sector} — ${c.title}` + (c.parts > 1 ? `, вопрос ${c.part} из ${c.parts}` : "");
  if (s.winner) line += s.winner === "team" ? " · победа команды" : ` · победа: ${s.opponent}`;
  $("situation").textContent = line;
  const notes = [];
  if (s.top && s.top.unsure) notes.push(`волчок у границы секторов ${s.top.unsure.sector} и ${s.top.unsure.neighbour}: выберите сектор`);
  if (s.fortochka && s.fortochka.sector) notes.push(`форточка на секторе ${s.fortochka.sector}`);
  if (s.top && s.top.sensor === "fault") notes.push("датчик волчка неисправен: сектор выбирает ведущий");
  if (s.top && s.top.sensor === "silent") notes.push("от датчика волчка нет данных");
  $("phase").textContent = [(TABLE_PHASES[s.phase] || s.phase), ...notes].join(" · ");
  $("players-box").hidden = true;
  $("presses-box").hidden = true;
}

const TABLE_PHASES = { ready: "между раундами: волчок", asked: "вопрос на столе", discussion: "обсуждение",
                       answer: "ответ команды", game_over: "игра окончена" };

// A sector of the table; a team the table knows (the one at the table, the hall's).
function tableChoices(type, f, s) {
  if (type === "sector") return (s.sectors || []).map(x => [x.sector, `${x.sector} — ${x.title}${x.played ? " (сыгран)" : ""}`]);
  if (type === "team") {
    const ids = new Set(Object.keys(s.hall || {}));
    if (s.team) ids.add(s.team.id);
    return [...ids].map(id => [id, s.team && s.team.id === id ? `${s.team.name} (${id})` : id]);
  }
  return null;
}

// The sector the top stopped on (or near a boundary of) is the one the host most likely picks.
function tablePreset(f, s) {
  const top = s.top || {};
  if (f.type === "sector" && f.name === "sector") {
    if (top.unsure) return top.unsure.sector;
    if (top.last_stop) return top.last_stop.sector;
  }
  return null;
}

registerGame("chgk", {
  sections: { table: "стол", spin: "волчок" },
  noButtons: true,  // no players' buttons: no «Проверка кнопок»
  title: "Что? Где? Когда? — стол",
  phases: TABLE_PHASES,
  timers: { discussion: "обсуждение" },
  actions: TABLE,
  render: renderTable,
  choices: tableChoices,
  preset: tablePreset,
});
