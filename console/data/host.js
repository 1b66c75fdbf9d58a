// The host's screen (host.html, docs/host-screen.md): everything the host needs to run a game
// from a phone or a tablet. This is the core every game shares: the login, the MQTT link and
// what the page knows; its parts follow it (host-notices.js: «Внимание»; host-dialogs.js: the
// commands and their dialogs; host-view.js: the panels, the action bar and the question). What differs between the games is one module each
// (host-svoya.js, host-chgk.js, ...: the GameKind's `host_pages`, which the display server
// loads after this script), registered with `registerGame(name, module)`:
// - `title`: the screen's title; `phases`: each phase of its state in Russian;
// - `sections`: its own config sections by name, for the resume offer (optional);
// - `actions`: its host actions (see «Arguments» below); `covered`: actions its engine lists
//   that another button covers;
// - `render(s)`: fills #situation, #players and #presses from its host state;
// - optional `timers` (a timer kind in Russian), `timerText(s, timer)`, `players(s)` (who
//   `nameOf` names), `choices(type, f, s)` and `preset(f, s, action)` for its dialogs' fields
//   (null: the core's own), `strayPress(e)`: the words for an event that is a press outside a
//   question (a false start, a press between questions), null for any other; `noButtons`: the
//   game has no players' buttons (no «Проверка кнопок»); `othersActions`: actions another
//   page sends (the jury's), whose refusals that page shows, not this one.
// The core never asks which game it is: `game` (the host state's) only picks the module.
//
// Contract with the console (docs/mqtt.md, docs/mqtt-table.md, the host-screen contract):
// - <base>/host/state (retained) is the whole picture: the public state plus `host_actions`
//   (the host actions the engine would take now: exactly these buttons are enabled),
//   `host_question` (the question's text, answer and comment: shown here, never on the hall's
//   pages) and, in «Своя игра», `presses` (this question's presses in order, each with its
//   `delay_ms` behind the first);
// - <base>/events and <base>/host/events: an `error` event is a refusal (or a driver's
//   problem); its `message` is shown as the engine wrote it;
// - <base>/status: the console is online; commands are sent only while the broker link is up
//   and the console online (MQTT.js would queue a command sent offline and deliver it late,
//   and a late «Верно» is worse than none);
// - commands go to <base>/host/command at QoS 1, never retained.
//
// The login: the page carries no password. Where the broker wants one (window.CHGK.login, or
// an anonymous login refused), a form asks for the host account once and the browser keeps it
// in localStorage; a refused login clears it and asks again.
"use strict";

const CONFIG = window.CHGK || {};
const TOPICS = ["host/state", "host/events", "events", "status", "host/notices"];
const STORE = `chgk-host-login:${HALL.ws}`;  // one login per broker

// ---- the games' modules ----
// Arguments are asked for in a dialog: player (a player of the game; the quartet's teams),
// sector (one of the table's), team (a team the table knows; the quartet's teams, `seated`:
// those at the table in this theme), member (a player of the team picked in the dialog's
// `team` field; `skip`: a choice sending "" (or null in a list); `only`: "present"/"absent"),
// choice (`options`), bool (a checkbox: sent as true when ticked), int, text. optional: left
// out when empty. A field with an `index` is one entry of an array sent under its name; an
// optional array that is all empty is left out. `fields` may be a function of the host state
// (what the quartet's assignment asks depends on the round's type); `note` explains a dialog
// that is not a confirmation.
const GAMES = {};
function registerGame(name, module) {
  GAMES[name] = module;
}
const NO_GAME = { title: "Пульт ведущего", phases: {}, actions: [], render: () => {} };
const current = () => GAMES[game] || NO_GAME;
// The button games' player states (the players' cards of «Своя игра» and the quartet).
const PLAYER_STATUS = { idle: "", in_play: "в игре", answering: "ОТВЕЧАЕТ", out: "выбыл" };

// ---- what the page knows ----
let state = null;        // the latest host state
let game = null;         // its game (or the status's, before a state came)
let linkUp = false;      // the broker connection is open
let consoleOnline = false;
let loginRefused = false;
let client = null;
let clockOffset = null;  // local performance.now() ms minus the console's clock in ms
let countdown = null;    // {end: local ms} or {frozen: ms left} or null
let pending = null;      // the dialog's action
let sources = {};        // each input source's state, from the retained status
let devices = {};        // what else the status shows of a source (the phones' code and clocks)
let journalState = null; // the journal's health, from the retained status (null: none kept)
let fightJournal = null;  // the journal file of the fight this page's notices are about
let packShelf = null;     // the packs the host may choose (the retained status; null: the game plays none)
let hallMediaShown = null; // the pack's picture, sound or video the hall is shown ({name, kind})
let resumeOffer = null;  // a journal of today kept under another config, offered (the status)
let buttonCheck = null;  // «Проверка кнопок», from the retained status (null: none yet)
let startProblems = {};  // what the game started with wrong (the retained status: a pack not read)
let noticesSeen = false; // a live notice came: the retained list is older

const $ = (id) => document.getElementById(id);
const online = () => linkUp && consoleOnline;

function el(tag, props, text) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- the login ----
function storedLogin() {
  try { return JSON.parse(localStorage.getItem(STORE)); } catch (e) { return null; }
}

function showLogin(problem) {
  $("login-error").textContent = problem || "";
  $("login").hidden = false;
  $("login-password").focus();
}

function connect(login) {
  if (client) client.end(true);
  loginRefused = false;
  client = hallConnect(TOPICS, onMessage, login);
  // Each (re)connection: what happened while the link was down (a console restarted with its own
  // broker: «Игра восстановлена…») is in the retained list that comes with the subscription.
  client.on("connect", () => { linkUp = true; noticesSeen = false; render(); });
  client.on("close", () => { linkUp = false; consoleOnline = false; render(); });
  client.on("error", (error) => {
    if (!error || ![4, 5, 134, 135].includes(error.code)) return;
    // Refused: stop retrying a wrong password every second and ask the host.
    loginRefused = true;
    client.end(true);
    client = null;
    localStorage.removeItem(STORE);
    showLogin(login && login.username ? "Брокер не принял эту учётную запись или пароль" : "");
    render();
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

// ---- messages ----
function onMessage(kind, payload, packet) {
  const received = performance.now();
  const live = !(packet && packet.retain);
  if (kind === "status") {
    consoleOnline = payload.state === "online";
    if (payload.game && !game) game = payload.game;
    sources = payload.sources || {};
    devices = payload.devices || {};
    journalState = payload.journal || null;
    // Another journal file is another fight (a restart that resumes keeps its file): the last
    // fight's warnings are not this one's, so «Внимание» starts empty.
    const file = journalState && journalState.state === "writing" ? journalState.detail : null;
    if (file && fightJournal && file !== fightJournal) { showNotices([]); noticesSeen = false; }
    if (file) fightJournal = file;
    resumeOffer = payload.resume_offer || null;
    buttonCheck = payload.button_check || null;
    startProblems = payload.problems || {};
    hallMediaShown = payload.hall_media || null;
    packShelf = payload.packs || null;
    render();
  } else if (kind === "host/notices") {
    // What happened before the page opened (the retained list, as delivered at subscription):
    // shown until live ones come. A live update of the list repeats events this page shows as
    // they come: taking it too said them twice («Начат новый бой…» ×2).
    if (!live && !noticesSeen) showNotices((payload.notices || []).map(n => [n.time, n.event]));
  } else if (kind === "host/state") {
    takeState(payload, received, live);
  } else if (kind === "events" || kind === "host/events") {
    if (live && typeof payload.t_ns === "number") clockOffset = received - payload.t_ns / 1e6;
    if (payload.type === "error" && payload.details && payload.details.action) {
      if (!(current().othersActions || new Set()).has(payload.details.action)) showRefusal(payload);
    } else if (live) {
      notice(payload);
      stray(payload);
      if (payload.type === "signal_accepted" && (payload.inputs_lost || []).length) askAboutLost(payload);
      if (payload.type === "signals_wait_over") askAboutWait(payload);
      if (payload.type === "question_ended" && (payload.inputs_lost || []).length) askAboutLostEnd(payload);
      if (PROTOCOL_CHANGES.has(payload.type)) protocolChanged();
    }
  }
}

// ---- the fight's protocol (window.CHGK.protocol: the console serves it from its journal) ----
// The question by question record an organiser files (console/tools/export.py): shown here on
// demand, printable on its own page, and as CSV and JSON. It follows the fight while shown.
const PROTOCOL_CHANGES = new Set(["question_ended", "score_adjusted", "judgement_reversed",
                                  "judgement_undone", "fight_over", "game_over", "sheet_changed"]);
let protocolReload = null;
$("protocol-box").hidden = !CONFIG.protocol;
function showProtocol() {
  $("protocol-frame").src = `/protocol?at=${Date.now()}`;  // a new address: never the cached one
}
function protocolChanged() {
  if ($("protocol-frame").hidden) return;
  clearTimeout(protocolReload);  // a burst of events (an end and its scores) is one reload
  protocolReload = setTimeout(showProtocol, 500);
}
$("protocol-show").addEventListener("click", () => {
  const frame = $("protocol-frame");
  frame.hidden = !frame.hidden;
  $("protocol-show").textContent = frame.hidden ? "Показать ход боя" : "Скрыть ход боя";
  if (!frame.hidden) showProtocol();
});

// ---- presses outside a question (false starts, between questions): the module says which ----
const MAX_STRAYS = 5;
const strays = [];  // [time, text], newest first
function stray(e) {
  const text = current().strayPress ? current().strayPress(e) : null;
  if (!text) return;
  strays.unshift([new Date().toLocaleTimeString("ru-RU"), text]);
  strays.length = Math.min(strays.length, MAX_STRAYS);
  $("stray-box").hidden = false;
  $("strays").replaceChildren(...strays.map(([time, t]) => el("li", {}, `${time} · ${t}`)));
}

// ---- start: once every game's module (loaded after this script) has registered ----
document.addEventListener("DOMContentLoaded", () => {
  new ResizeObserver(fitActionBar).observe($("action-bar"));
  render();
  tick();
  const saved = storedLogin();
  if (saved) connect(saved);
  else if (CONFIG.login) showLogin("");
  else connect({});  // an anonymous demo broker; a refusal brings the form up
});
