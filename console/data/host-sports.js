// The sports «Что? Где? Когда?» timer on the host's screen (a module of host.js: registerGame).
"use strict";

const SPORTS = [
  { action: "start", label: "Время!", look: "good" },
  { action: "pause", label: "Пауза" },
  { action: "resume", label: "Продолжить отсчёт", look: "good" },
  { action: "cancel", label: "Снять отсчёт", look: "danger",
    confirm: "Снять идущий отсчёт? Вопрос будет заменён, номер сохранится." },
  // The stage's teams in the jury's sheet (console/engine/sports/sheet.py); the sheet itself is
  // the jury's page's (/jury).
  { action: "add_team", menu: true, label: "Добавить команду", look: "correction",
    note: "Команда появится в протоколе жюри; номер — как на её бланках (пусто: следующий).",
    fields: [{ name: "name", label: "Название", type: "text" },
             { name: "town", label: "Город", type: "text", optional: true },
             { name: "team", label: "Номер команды", type: "int", optional: true },
             { name: "rating_id", label: "ID в рейтинге", type: "int", optional: true }] },
  { action: "edit_team", menu: true, label: "Изменить команду", look: "correction",
    fields: [{ name: "team", label: "Номер команды", type: "int" },
             { name: "name", label: "Название", type: "text", optional: true },
             { name: "town", label: "Город", type: "text", optional: true },
             { name: "rating_id", label: "ID в рейтинге", type: "int", optional: true }] },
];

function renderSports(s) {
  const sheet = s.sheet ? ` · команд: ${s.sheet.teams}${s.sheet.preliminary ? " · есть спорные" : ""}` : "";
  $("situation").textContent = (s.shootout ? `Перестрелка, вопрос ${s.question}`
    : s.tour ? `Тур ${s.tour}, вопрос ${s.number} (всего ${s.question})` : `Вопрос ${s.question}`) + sheet;
  $("players-box").hidden = true;
  $("protocol-sheet").hidden = false;  // the stage's protocol: the jury's sheet and its files
  $("presses-box").hidden = true;
}

registerGame("sports", {
  sections: { sports: "секундомер" },
  noButtons: true,  // no players' buttons: no «Проверка кнопок»
  title: "Что? Где? Когда? — секундомер",
  phases: { idle: "ждём «Время!»", counting: "идёт минута", collecting: "сбор ответов" },
  timers: { counting: "минута на обсуждение", collecting: "сбор ответов" },
  actions: SPORTS,
  // The jury's own edits of the sheet (its page, /jury, shows their refusals): not the host's.
  othersActions: new Set(["set_question", "set_team", "set_cell", "set_answer", "decide", "open_appeal",
                          "uphold_appeal", "reject_appeal", "remove_question", "restore_question",
                          "close_sheet", "reopen_sheet"]),
  render: renderSports,
});
