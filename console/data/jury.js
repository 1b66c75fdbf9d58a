// The game jury's page of the sports stage (jury.html; docs/sports-sheet.md): the sheet as the
// console publishes it on <base>/sheet/<part> (console/engine/sports/stage.py), and the jury's
// edits to <base>/jury/command, each taken or refused by the console (an "error" event naming
// what was wrong). Nothing is decided here: the page only shows and sends.
"use strict";

const $ = (id) => document.getElementById(id);
const STORE = `chgk-jury-login:${HALL.ws}`;  // one login per broker
const CONFIG = window.CHGK || {};
const SHEET_ACTIONS = new Set(["add_team", "edit_team", "set_question", "set_team", "set_cell", "set_answer",
  "decide", "open_appeal", "uphold_appeal", "reject_appeal", "remove_question", "restore_question",
  "close_sheet", "reopen_sheet"]);

const sheet = { jury: null, teams: [], appeal: { open: false }, log: [], logRevision: 0, questions: {} };
let client = null;

// ---- sending ----
function send(command) {
  if (!client) return;
  const by = $("judge").value.trim();
  const payload = JSON.stringify(by ? { ...command, by } : command);
  client.publish(`${HALL.base}/jury/command`, payload, { qos: 1, retain: false });
}

// "1 4 7 12-15" or "1, 4, 7": team numbers (a range counts every number in it).
function numbers(text) {
  const out = [];
  for (const part of text.split(/[\s,;]+/).filter(Boolean)) {
    const range = part.match(/^(\d+)[-–](\d+)$/);
    if (range) {
      if (Number(range[1]) > Number(range[2])) throw new Error(`«${part}» — диапазон задом наперёд: ${range[2]}-${range[1]}?`);
      for (let n = Number(range[1]); n <= Number(range[2]) && out.length < 500; n++) out.push(n);
    } else if (/^\d+$/.test(part)) {
      out.push(Number(part));
    } else {
      throw new Error(`«${part}» — не номер команды`);
    }
  }
  return out;
}

function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = !text;
}

function question() { return Number($("q").value) || 1; }  // the question shown
// The question a verdict is for: exactly what is typed, never a stand-in (a 0 or a blank once
// wrote question 1's verdicts over).
function askedQuestion() {
  const text = $("q").value.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`«${text}» — не номер вопроса`);
  return Number(text);
}
function intOf(id) {
  const text = $(id).value.trim();
  if (text === "") return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`«${text}» — не целое число`);
  return Number(text);
}

// ---- drawing ----
function teamName(n) {
  const team = sheet.teams.find((t) => t.team === n);
  return team ? team.name : `№${n}`;
}

function cellsOf(q) {
  const part = sheet.questions[q];
  const cells = {};
  if (part) for (const [team, verdict, answer, was] of part.cells) cells[team] = { verdict, answer, was };
  return { cells, removed: part ? part.removed : false };
}

function drawQuestion() {
  const q = question();
  const { cells, removed } = cellsOf(q);
  const j = sheet.jury;
  const total = j ? j.tours * j.questions_per_tour : 36;
  const tour = q <= total && j ? `тур ${Math.ceil(q / j.questions_per_tour)}` : "перестрелка";
  const right = Object.values(cells).filter((c) => c.verdict === "1").length;
  $("q-info").textContent = `${tour}${removed ? " · снят" : ""} · верно: ${right}`;
  $("chips").replaceChildren(...sheet.teams.map((t) => {
    const b = document.createElement("button");
    const cell = cells[t.team];
    b.textContent = t.team;
    b.title = t.name + (cell && cell.answer ? ` — «${cell.answer}»` : "");
    b.dataset.team = t.team;
    b.className = cell ? { "1": "right", "?": "disputed" }[cell.verdict] || "" : "";
    b.addEventListener("click", () => {
      const verdict = cell && cell.verdict === "1" ? "0" : "1";
      send({ action: "set_cell", team: t.team, question: q, verdict });
    });
    return b;
  }));
  // The answer texts typed for this question: what an appeal or a dispute is about.
  $("answers").replaceChildren(...sheet.teams.filter((t) => cells[t.team] && cells[t.team].answer).map((t) => {
    const li = document.createElement("li");
    const cell = cells[t.team];
    li.className = { "1": "right", "?": "disputed" }[cell.verdict] || "";
    li.textContent = `№${t.team} ${t.name}: «${cell.answer}» — ${{ "1": "верно", "0": "неверно", "?": "спорный" }[cell.verdict]}`;
    return li;
  }));
}

function drawDisputed() {
  const items = [];
  for (const [q, part] of Object.entries(sheet.questions)) {
    for (const [team, verdict, answer, was] of part.cells) {
      if (verdict !== "?") continue;
      const li = document.createElement("li");
      li.dataset.team = team;
      li.dataset.question = q;
      li.append(`вопрос ${q}, ${teamName(team)} (№${team})${answer ? ` — «${answer}»` : ""}`
        + `${was === "1" ? " (был засчитан)" : ""} `);
      for (const [verdictOf, label] of [["1", "Засчитать"], ["0", "Не засчитывать"]]) {
        const b = document.createElement("button");
        b.textContent = label;
        b.dataset.verdict = verdictOf;
        b.addEventListener("click", () => send({ action: "decide", team, question: Number(q),
          verdict: verdictOf, why: $("dispute-why").value }));
        li.append(b, " ");
      }
      items.push(li);
    }
  }
  $("disputed").replaceChildren(...items);
  if (!items.length) $("disputed").textContent = "нет";
}

function drawAppeal() {
  const a = sheet.appeal;
  $("appeal-open").hidden = !a.open;
  if (!a.open) return;
  $("appeal-text").textContent = `Команда ${a.team} (${teamName(a.team)}), вопрос ${a.question}: «${a.answer}». `
    + (a.candidates.length ? "Похожие ответы — отметьте те, что засчитать:" : "Похожих ответов нет.");
  $("candidates").replaceChildren(...a.candidates.map(([team, answer, edits]) => {
    const li = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = true;
    box.dataset.team = team;
    li.append(box, ` №${team} ${teamName(team)}: «${answer}» `);
    const small = document.createElement("small");
    small.textContent = edits ? `(правок: ${edits})` : "(то же)";
    li.append(small);
    return li;
  }));
}

function drawStandings() {
  const j = sheet.jury;
  if (!j) return;
  $("tour-heads").textContent = Array.from({ length: j.tours }, (_, i) => `т${i + 1}`).join(" · ");
  $("standings").replaceChildren(...j.standings.map(([team, total, place, , winner, shootout, tours]) => {
    const tr = document.createElement("tr");
    tr.className = winner ? "winner" : shootout ? "shootout" : "";
    const town = (sheet.teams.find((t) => t.team === team) || {}).town || "";
    for (const text of [place, team, teamName(team), town, tours.join(" · "), total]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  const status = $("status");
  status.textContent = j.closed ? "протокол закрыт" : j.preliminary
    ? `предварительно: спорных ${j.disputed}` : `ревизия ${j.revision}`;
  status.className = j.closed ? "closed" : j.preliminary ? "preliminary" : "";
  const removed = Object.entries(j.removed);
  $("removed").textContent = removed.length ? "Сняты: " + removed.map(([q, why]) => `${q} (${why})`).join("; ") : "";
  const next = j.next_shootout;
  $("shootout-entry").hidden = !(next && j.stage_over);
  $("shootout-info").textContent = !j.stage_over
    ? (next ? `Пока равенство на границе ${j.winners}-го места: ${next.teams.join(", ")}.`
       : "Этап идёт: победители — после последнего вопроса.")
    : !next ? "Перестрелка не нужна: победители определены."
    : `Вопрос ${next.question}: играют команды ${next.teams.map((t) => `${t} (${teamName(t)})`).join(", ")}.`;
  $("shootout-info").dataset.question = next ? next.question : "";
}

function drawLog() {
  $("log").replaceChildren(...sheet.log.slice().reverse().map((e) => {
    const li = document.createElement("li");
    li.textContent = e.text + (e.why ? ` — ${e.why}` : "");
    const small = document.createElement("small");
    small.textContent = ` (${e.by}${e.when ? ", " + e.when.slice(11, 16) : ""})`;
    li.append(small);
    return li;
  }));
}

function render() {
  drawQuestion();
  drawDisputed();
  drawAppeal();
  drawStandings();
  drawLog();
}

// ---- messages ----
function onMessage(kind, payload) {
  if (kind === "sheet/jury") sheet.jury = payload;
  else if (kind === "sheet/teams") sheet.teams = payload.teams;
  else if (kind === "sheet/appeal") sheet.appeal = payload;
  else if (kind === "sheet/log") {
    if (sheet.log.length && payload.revision !== sheet.logRevision) showError("");  // an edit was taken
    sheet.log = payload.log;
    sheet.logRevision = payload.revision;
  }
  else if (kind.startsWith("sheet/q/")) sheet.questions[payload.question] = payload;
  else if (kind === "events" && payload.type === "error") {
    const action = payload.details && payload.details.action;
    if (SHEET_ACTIONS.has(action) || payload.source === "jury") showError(payload.message);
    return;
  } else return;
  render();
}

// ---- controls ----
function on(id, handler) {
  $(id).addEventListener("click", () => {
    try { handler(); } catch (e) { showError(e.message); }
  });
}
on("q-prev", () => { $("q").value = Math.max(1, question() - 1); drawQuestion(); });
on("q-next", () => { $("q").value = question() + 1; drawQuestion(); });
$("q").addEventListener("change", drawQuestion);
on("q-save", () => send({ action: "set_question", question: askedQuestion(), teams: numbers($("q-right").value) }));
$("q-right").addEventListener("keydown", (e) => { if (e.key === "Enter") $("q-save").click(); });
on("cell-answer-save", () => send({ action: "set_answer", team: intOf("cell-team"), question: askedQuestion(),
  answer: $("cell-answer").value }));
on("cell-dispute", () => send({ action: "set_cell", team: intOf("cell-team"), question: askedQuestion(), verdict: "?",
  answer: $("cell-answer").value || undefined }));
on("t-save", () => send({ action: "set_team", team: intOf("t-team"), tour: intOf("t-tour"), mask: $("t-mask").value }));
on("a-open", () => send({ action: "open_appeal", team: intOf("a-team"), question: intOf("a-question") }));
on("a-uphold", () => send({ action: "uphold_appeal", why: $("a-why").value, teams:
  [...document.querySelectorAll("#candidates input:checked")].map((b) => Number(b.dataset.team)) }));
on("a-reject", () => send({ action: "reject_appeal", why: $("a-why").value }));
on("r-remove", () => send({ action: "remove_question", question: intOf("r-question"), why: $("r-why").value }));
on("r-restore", () => send({ action: "restore_question", question: intOf("r-question"), why: $("r-why").value }));
on("s-save", () => send({ action: "set_question", question: Number($("shootout-info").dataset.question),
  teams: numbers($("s-right").value) }));
$("s-right").addEventListener("keydown", (e) => { if (e.key === "Enter") $("s-save").click(); });
on("n-add", () => send({ action: "add_team", name: $("n-name").value, town: $("n-town").value || undefined,
  team: intOf("n-number"), rating_id: intOf("n-rating") || undefined }));
on("close-sheet", () => send({ action: "close_sheet" }));
on("reopen-sheet", () => send({ action: "reopen_sheet", why: $("reopen-why").value }));
on("error-close", () => showError(""));

// ---- the login (as the host's screen's: host.js) ----
function showLogin(problem) {
  $("login-error").textContent = problem || "";
  $("login").hidden = false;
  $("login-password").focus();
}

function connect(login) {
  if (client) client.end(true);
  client = hallConnect(["status", "state", "events", "sheet/#"], onMessage, login);
  client.on("error", (error) => {
    if (!error || ![4, 5, 134, 135].includes(error.code)) return;
    client.end(true);
    client = null;
    localStorage.removeItem(STORE);
    showLogin(login && login.username ? "Брокер не принял эту учётную запись или пароль" : "");
  });
}

$("login-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const login = { username: $("login-user").value.trim(), password: $("login-password").value };
  localStorage.setItem(STORE, JSON.stringify(login));
  $("login").hidden = true;
  $("login-password").value = "";
  connect(login);
});

document.addEventListener("DOMContentLoaded", () => {
  render();
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(STORE)); } catch (e) { saved = null; }
  if (saved) connect(saved);
  else if (CONFIG.login) showLogin("");
  else connect({});  // an anonymous demo broker; a refusal brings the form up
});
