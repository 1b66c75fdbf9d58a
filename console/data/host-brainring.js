// «Брейн-ринг» on the host's screen (a module of host.js: registerGame; docs/mqtt-brainring.md).
// Its actions («Время!» first among them), phases and count; its view: the question and its
// stake, the teams' cards, this count's presses with their delays (the photo finish).
"use strict";

const BRAINRING = [
  { action: "next", label: "Следующий вопрос" },
  { action: "time", label: "Время!", look: "good" },
  { action: "correct", label: "Верно", look: "good" },
  { action: "wrong", label: "Неверно", look: "danger" },
  { action: "pause", label: "Пауза" },
  { action: "resume", label: "Продолжить отсчёт", look: "good" },
  { action: "cancel", label: "Снять вопрос", look: "danger",
    confirm: "Снять вопрос без изменения счёта? Он будет сыгран заново." },
  { action: "new_fight", menu: true, label: "Новый бой", look: "danger",
    confirm: "Начать следующий бой? Счёт обнулится, итоги игры сохранятся." },
  { action: "new_game", menu: true, label: "Новая игра", look: "danger",
    confirm: "Начать новую игру? Счёт и итоги всех боёв обнулятся." },
  { action: "adjust_score", label: "Поправить счёт", look: "correction",
    fields: [{ name: "player", label: "Команда", type: "player" },
             { name: "delta", label: "На сколько очков (можно со знаком минус)", type: "int" },
             { name: "reason", label: "Причина", type: "text" }] },
  { action: "undo", label: "Отменить решение", look: "correction",
    note: "Ошибочное нажатие: решение снимается, команда снова отвечает, ведущий решает заново.",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
  { action: "reverse", label: "Пересмотреть решение", look: "correction",
    confirm: "Обратить решение по только что сыгранному вопросу (верно ↔ неверно)?",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
  // The teams, between questions (console/engine/brainring/teams.py).
  { action: "rename_team", menu: true, label: "Переименовать команду", look: "correction",
    fields: [{ name: "team", label: "Команда", type: "player" },
             { name: "name", label: "Новое название", type: "text" }] },
  { action: "bind_pad", menu: true, label: "Кнопка команде нажатием", look: "correction",
    note: "После «Подтвердить» нажмите свободную кнопку — она станет кнопкой команды.",
    fields: [{ name: "team", label: "Команда", type: "player" }] },
  { action: "add_team", menu: true, label: "Добавить команду", look: "correction",
    note: "После «Подтвердить» нажмите свободную кнопку — она станет кнопкой новой команды.",
    fields: [{ name: "name", label: "Название", type: "text" }] },
  { action: "remove_team", menu: true, label: "Убрать команду", look: "danger",
    confirm: "Убрать команду из игры? Счёт остальных не изменится.",
    fields: [{ name: "team", label: "Команда", type: "player" }] },
];
const BRAINRING_STATUS = { idle: "", in_play: "в игре", answering: "ОТВЕЧАЕТ", out: "выбыла", benched: "не играет",
                           false_start: "фальстарт" };

function brainringPoints(n) {
  if (n % 10 === 1 && n % 100 !== 11) return "очко";
  return [2, 3, 4].includes(n % 10) && ![12, 13, 14].includes(n % 100) ? "очка" : "очков";
}

function renderBrainring(s) {
  const q = s.question;
  const target = s.target ? `до ${s.target}` : `${s.questions} вопросов`;
  const winner = s.teams.find(t => t.id === s.winner);
  $("situation").textContent = q
    ? `Бой ${s.fight} (${target}) · ${q.extra ? "дополнительный вопрос" : `вопрос ${q.number}`} · ${q.stake} ${brainringPoints(q.stake)}`
    : winner ? `Бой ${s.fight} окончен · победа: ${winner.name}`
    : s.next ? `Бой ${s.fight} (${target}) · дальше вопрос ${s.next.number} за ${s.next.stake} ${brainringPoints(s.next.stake)}`
    : "Брейн-ринг";
  // A button awaited for a team (bind_pad): the host presses it now.
  if (s.awaiting_pad) $("situation").textContent += ` · нажмите свободную кнопку: она станет кнопкой «${s.awaiting_pad.name}»`;
  $("players-box").hidden = false;
  $("players-title").textContent = "Команды";
  const standing = Object.fromEntries((s.standings || []).map(r => [r.team, r]));
  $("players").replaceChildren(...s.teams.map(t => {
    const card = el("div", { className: `player ${t.status}` });
    card.dataset.player = t.id;
    const status = BRAINRING_STATUS[t.status] || "";
    const row = standing[t.id];
    card.append(el("div", { className: "name" }, t.name), el("div", { className: "score" }, String(t.score)),
                el("div", { className: "status" }, t.sent_out.length ? `${status} · удалён: ${t.sent_out.join(", ")}` : status),
                el("div", { className: "standing" }, row && row.fights ? `побед в игре: ${row.won} из ${row.fights}` : ""));
    return card;
  }));
  const presses = Array.isArray(s.presses) ? s.presses : [];
  $("presses-box").hidden = presses.length === 0;
  $("presses").replaceChildren(...presses.map((p, i) => {
    const li = el("li", { className: i === 0 ? "first" : "" },
                  `${nameOf(p.team)} — ${i === 0 ? "первая" : `+${Number(p.delay_ms).toFixed(p.delay_ms < 10 ? 2 : 1)} мс`}`);
    li.dataset.player = p.team;
    return li;
  }));
}

const BRAINRING_STRAY = { between_questions: "нажатие между вопросами", late: "нажатие после конца времени",
                         sent_out: "нажал удалённый игрок", paused: "нажатие во время паузы",
                         not_in_extra: "не играет дополнительные вопросы" };
function brainringStray(e) {
  if (e.type === "false_start") return `${nameOf(e.team)}: фальстарт (до «Время!»)`;
  // A wrong answer in the first second, one button a team: the player is out, the button stays.
  if (e.type === "answer_judged" && e.player_sent_out) {
    return `${nameOf(e.team)}: ответивший игрок удалён — объявите его; команда играет кнопкой без него`;
  }
  return e.type === "press_ignored" && BRAINRING_STRAY[e.reason]
    ? `${nameOf(e.team)}: ${BRAINRING_STRAY[e.reason]} (кнопка ${e.pad})` : null;
}

registerGame("brainring", {
  sections: { brainring: "правила боя" },
  title: "Брейн-ринг",
  phases: { idle: "между вопросами", reading: "вопрос читается: нажатие — фальстарт",
            counting: "идёт время", answering: "команда отвечает", fight_over: "бой окончен" },
  timers: { count: "время на ответ" },
  actions: BRAINRING,
  players: (s) => s.teams || [],
  strayPress: brainringStray,
  choices: (type, f, s) => type === "player" ? (s.teams || []).map(t => [t.id, t.name]) : null,
  render: renderBrainring,
});
