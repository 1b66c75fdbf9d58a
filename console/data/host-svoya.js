// «Своя игра» on the host's screen (a module of host.js: registerGame). Its actions, phases
// and timers; its view: the question or what comes next, the players' cards, the presses.
"use strict";

const SVOYA = [
  { action: "next", label: "Следующий вопрос" },
  { action: "reading_finished", label: "Вопрос прочитан" },
  { action: "name", label: "Назвать отвечающего" },
  { action: "short_form", label: "Краткая форма дана" },
  { action: "answer_started", label: "Начал отвечать" },
  { action: "correct", label: "Верно", look: "good" },
  { action: "wrong", label: "Неверно", look: "danger" },
  { action: "reset", label: "Сброс: сигналы снова" },
  { action: "cancel", label: "Снять вопрос", look: "danger",
    confirm: "Снять вопрос без изменения счёта? Он будет сыгран заново." },
  { action: "end_question", label: "Закончить без кнопок", look: "danger",
    confirm: "Кнопки не на связи. Закончить вопрос без них? Нажатия, которые они могли сделать, не будут учтены." },
  { action: "end_game", menu: true, label: "Закончить бой", look: "danger",
    confirm: "Закончить бой сейчас? Победитель — по очкам; следующий начните кнопкой «Новая игра»." },
  { action: "skip_theme", menu: true, label: "Пропустить тему", look: "danger",
    confirm: "Пропустить оставшиеся вопросы темы? Следующим будет первый вопрос следующей темы." },
  { action: "next_fight", menu: true, label: "Новый бой дальше по пакету", look: "danger",
    confirm: "Начать следующий бой? Счёт обнулится, игра пойдёт со следующей несыгранной темы пакета." },
  { action: "new_game", menu: true, label: "Новая игра", look: "danger",
    confirm: "Начать новую игру? Счёт всех игроков обнулится, пакет начнётся с первой темы." },
  { action: "adjust_score", label: "Поправить счёт", look: "correction",
    fields: [{ name: "player", label: "Игрок", type: "player" },
             { name: "delta", label: "На сколько очков (можно со знаком минус)", type: "int" },
             { name: "reason", label: "Причина", type: "text" }] },
  { action: "undo", label: "Отменить решение", look: "correction",
    note: "Ошибочное нажатие: решение снимается, очки возвращаются, игрок снова отвечает, ведущий решает заново.",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
  { action: "reverse", label: "Пересмотреть решение", look: "correction",
    confirm: "Обратить решение по только что сыгранному вопросу (верно ↔ неверно)?",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
  // The players, between questions (console/engine/svoya/roster.py).
  { action: "rename_player", menu: true, label: "Переименовать игрока", look: "correction",
    fields: [{ name: "player", label: "Игрок", type: "player" },
             { name: "name", label: "Новое имя", type: "text" }] },
  { action: "add_player", menu: true, label: "Добавить игрока", look: "correction",
    note: "Без кнопки: после «Подтвердить» нажмите свободную кнопку — она станет кнопкой игрока.",
    fields: [{ name: "name", label: "Имя", type: "text" },
             { name: "pad", label: "Кнопка (например mcu:3; пусто — нажатием)", type: "text", optional: true }] },
  { action: "remove_player", menu: true, label: "Убрать игрока", look: "danger",
    confirm: "Убрать игрока из боя? Счёт остальных не изменится.",
    fields: [{ name: "player", label: "Игрок", type: "player" }] },
  { action: "bind_pad", menu: true, label: "Кнопка нажатием", look: "correction",
    note: "После «Подтвердить» нажмите свободную кнопку — она станет кнопкой игрока.",
    fields: [{ name: "player", label: "Игрок", type: "player" }] },
];

function renderSvoya(s) {
  const q = s.question;
  const hq = s.host_question;
  // The pack's theme name where there is one (the public state's theme_name), else its number.
  const theme = (p) => (p.theme_name || (hq && hq.theme) || `тема ${p.theme}`);
  // Why the last answerer was out: the host's «Неверно», or the 3 s run out (App.7).
  const wrong = q && q.last_wrong ? ` · неверно: ${nameOf(q.last_wrong.player)} — ${
    q.last_wrong.by === "timeout" ? "ответ не начат за 3 секунды (прил. 7)" : "ответ не принят ведущим"}` : "";
  $("situation").textContent = q ? `${theme(q)} · ${q.value} очков${wrong}`
    : s.phase === "game_over" ? `Бой окончен · ${winners(s.players)}`
    : s.next ? `Дальше: ${theme(s.next)}, вопрос ${s.next.number} за ${s.next.value}` : "Своя игра";
  // A button awaited for a player (bind_pad, add_player without one): the host presses it now.
  if (s.awaiting_pad) $("situation").textContent += ` · нажмите свободную кнопку: она станет кнопкой «${s.awaiting_pad.name}»`;
  $("players-box").hidden = false;
  $("players-title").textContent = "Игроки";
  $("players").replaceChildren(...s.players.map(p => {
    const card = el("div", { className: `player ${p.status}` });
    card.dataset.player = p.id;
    card.append(el("div", { className: "name" }, p.name), el("div", { className: "score" }, String(p.score)),
                el("div", { className: "status" }, PLAYER_STATUS[p.status] || ""));
    return card;
  }));
  renderPresses(s, q);
}

// The fight's winner (the best score; a tie names them all), as the hall's scoreboard says it.
function winners(players) {
  if (!players.length) return "";
  const best = Math.max(...players.map(p => p.score));
  const top = players.filter(p => p.score === best).map(p => p.name);
  return top.length === 1 ? `победитель: ${top[0]} (${best})` : `ничья: ${top.join(", ")} (${best})`;
}

// A press that never took part in a question (004 App.4): before the value was announced, or
// within the lockout after one.
const SVOYA_STRAY = { false_start: "фальстарт (до объявления номинала)",
                      false_start_lockout: "нажатие в блокировке после фальстарта" };
function svoyaStray(e) {
  return e.type === "press_ignored" && SVOYA_STRAY[e.reason] ? `${nameOf(e.player)}: ${SVOYA_STRAY[e.reason]}` : null;
}

registerGame("svoya", {
  title: "Своя игра",
  phases: { idle: "между вопросами", reading: "вопрос читается (сигналы уже считаются)",
            open: "идёт время на сигнал", answering: "игрок отвечает",
            await_reset: "неверный ответ: ждём сброса", game_over: "бой окончен" },
  timers: { signal: "время на сигнал", answer: "время на ответ" },
  actions: SVOYA,
  covered: ["choose_pack"],  // its buttons are the rounds of «Пакет и раунд» (host.js: renderPacks)
  render: renderSvoya,
  strayPress: svoyaStray,
});
