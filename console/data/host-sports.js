// The sports «Что? Где? Когда?» timer on the host's screen (a module of host.js: registerGame).
"use strict";

const SPORTS = [
  { action: "start", label: "Время!", look: "good" },
  { action: "pause", label: "Пауза" },
  { action: "resume", label: "Продолжить отсчёт", look: "good" },
  { action: "cancel", label: "Снять отсчёт", look: "danger",
    confirm: "Снять идущий отсчёт? Вопрос будет заменён, номер сохранится." },
];

function renderSports(s) {
  $("situation").textContent = s.shootout ? `Перестрелка, вопрос ${s.question}`
    : s.tour ? `Тур ${s.tour}, вопрос ${s.number} (всего ${s.question})` : `Вопрос ${s.question}`;
  $("players-box").hidden = true;
  $("presses-box").hidden = true;
}

registerGame("sports", {
  noButtons: true,  // no players' buttons: no «Проверка кнопок»
  title: "Что? Где? Когда? — секундомер",
  phases: { idle: "ждём «Время!»", counting: "идёт минута", collecting: "сбор ответов" },
  timers: { counting: "минута на обсуждение", collecting: "сбор ответов" },
  actions: SPORTS,
  render: renderSports,
});
