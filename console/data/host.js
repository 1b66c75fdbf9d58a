// The host's screen (host.html, docs/host-screen.md): everything the host needs to run a game
// from a phone or a tablet. This is the core every game shares: the login, the MQTT link, the
// notices, the dialogs and the action bar. What differs between the games is one module each
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
//   game has no players' buttons (no «Проверка кнопок»).
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
let journalState = null; // the journal's health, from the retained status (null: none kept)
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
  client.on("connect", () => { linkUp = true; render(); });
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
    journalState = payload.journal || null;
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
    if (payload.type === "error" && payload.details && payload.details.action) showRefusal(payload);
    else if (live) {
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

// ---- what the host must know about the devices and the decisions (Russian) ----
const MAX_NOTICES = 6;
const SOURCE_STATES = { connected: "подключено", disconnected: "нет связи",
                        incompatible: "другая версия прошивки",
                        resyncing: "часы устройства сбились: пересинхронизация, проверьте решения" };

// The console's own problems by where they come from; a button source's driver otherwise. The
// details stay as the console logs them (English), for whoever fixes it.
const PROBLEMS = { mqtt: "Команда от другого клиента не принята", journal: "Журнал игры",
                   record: "Протокол игры не сохранён", pack: "Пакет вопросов не прочитан",
                   pack_cells: "Пакет вопросов прочитан, но часть вопросов пропущена",
                   button_check: "Проверка кнопок",
                   console: "Сбой пульта (игра идёт дальше)" };

// Whose press a decision names: a player («Своя игра», the quartet) or a team («Брейн-ринг»).
const whoOf = (e) => e.player || e.team;

function noticeText(e) {
  const lost = e.inputs_lost && e.inputs_lost.length
    ? `нажатия с ${e.inputs_lost.join(", ")} могли потеряться — проверьте решение` : "";
  switch (e.type) {
    case "error": return `${Object.hasOwn(PROBLEMS, e.source) ? PROBLEMS[e.source] : `Неполадка устройства «${e.source}»`}. `
      + `Подробности (для техника): ${e.message}`;
    case "source_status": return `Устройство ${e.source}: ${SOURCE_STATES[e.state] || e.state}`;
    case "button_held": {
      const whose = e.player ? ` (${nameOf(e.player)})` : "";
      const seconds = (e.held_ms / 1000).toFixed(1).replace(".", ",");
      return e.state === "held" ? `Кнопка ${e.pad}${whose} зажата уже ${seconds} с: проверьте её`
                                : `Кнопка ${e.pad}${whose} отпущена (была нажата ${seconds} с)`;
    }
    case "signals_held": return `Пауза: нет связи с кнопками ${e.source} — решение ждёт их `
      + "(нажатия за это время засчитаются по их времени)";
    case "signals_wait_over": return `Кнопки ${e.source} не вернулись: снимите вопрос или закончите его без них`;
    case "signals_resumed": return e.given_up
      ? `Кнопки ${e.source} не вернулись: вопрос решается без них (решение под сомнением)`
      : `Кнопки ${e.source} снова на связи`;
    case "console_held": return `Пульт задержался на ${(e.held_ms / 1000).toFixed(1).replace(".", ",")} с `
      + "(система была занята): нажатия за это время засчитаны по их времени";
    case "journal_status": return e.state === "failing"
      ? `${JOURNAL_FAILING}. Подробности (для техника): ${e.detail}` : JOURNAL_BACK;
    case "resume_offer": return {
      offered: `Бой ${e.journal} записан с другими настройками — выберите: продолжить его или начать новый`,
      accepted: `Продолжаем бой ${e.journal} с его настройками: пульт перезапускается`,
      declined: `Начат новый бой${e.implicit ? " (вы продолжили игру)" : ""}; журнал прежнего сохранён как ${e.journal}`,
    }[e.state] || "";
    case "resumed": return "Игра восстановлена после перезапуска по журналу " + e.journal
      + (e.voided ? ` (${{ question: "вопрос", round: "раунд", count: "отсчёт" }[e.voided] || e.voided} отменён и будет сыгран снова)` : "")
      + (e.torn ? "; последняя строка журнала была оборвана" : "");
    case "signal_accepted": return lost ? `Сигнал ${nameOf(whoOf(e))}: ${lost}` : "";
    case "question_ended": return lost ? `Никто не ответил: ${lost}` : "";
    default: return "";
  }
}

// Put a decision under doubt to the host as a question: withdraw the question (`cancel`: it is
// played again) or keep it. Never over a dialog the host has open. `listed`: only while the
// engine lists cancel (a question just ended: the state saying so may not have come yet).
function askToWithdraw(label, text, keep, listed) {
  if (pending || (listed && !(state && (state.host_actions || []).includes("cancel")))) return;
  const spec = specOf("cancel");
  if (!spec) return;
  openDialog({ ...spec, label, confirm: text, ok: "Снять вопрос", keep }, []);
}

// A first signal over a span where a source may have lost a press (frames lost for good, a
// clock that could not be trusted): someone may have pressed earlier.
function askAboutLost(e) {
  askToWithdraw("Решение под сомнением", `Первым засчитан сигнал: ${nameOf(whoOf(e))}. Но нажатия с `
    + `${e.inputs_lost.join(", ")} могли потеряться (связь с кнопками или их часы): кто-то мог нажать раньше.`,
    "Оставить решение", true);
}

// The lost box did not come back in time: withdraw the question here, or end it without the
// box (the action bar's «Закончить без кнопок»).
function askAboutWait(e) {
  askToWithdraw("Кнопки не вернулись", `Нет связи с кнопками ${e.source}. Снять вопрос (он будет сыгран `
    + "заново)? Или закройте это окно и нажмите «Закончить без кнопок».", "Закрыть", true);
}

// «Nobody signalled» over a span where a source may have lost a press.
function askAboutLostEnd(e) {
  askToWithdraw("Решение под сомнением", `Вопрос окончен без сигналов, но нажатия с ${e.inputs_lost.join(", ")} `
    + "могли потеряться (связь с кнопками или их часы). Снять вопрос? Он будет сыгран заново.",
    "Оставить решение", false);
}

function notice(e) {
  const text = noticeText(e);
  if (!text) return;
  noticesSeen = true;
  addNotice(new Date().toLocaleTimeString("ru-RU"), text);
}

// The same line again, with nothing said between, is folded into the last one with a count:
// repeats never push the other notices out of the few shown.
function addNotice(time, text) {
  const list = $("notices");
  const last = list.firstElementChild;
  if (last && last.dataset.text === text) {
    last.dataset.count = String(Number(last.dataset.count) + 1);
    last.textContent = `${time} ${text} (×${last.dataset.count})`;
  } else {
    const item = document.createElement("li");
    item.dataset.text = text;
    item.dataset.count = "1";
    item.textContent = `${time} ${text}`;
    list.prepend(item);
    while (list.children.length > MAX_NOTICES) list.lastChild.remove();
  }
  $("notices-box").hidden = false;
}

// The console's retained list, oldest first: the page's «Внимание» as it would have been.
function showNotices(kept) {
  $("notices").replaceChildren();
  for (const [time, e] of kept) {
    const text = noticeText(e);
    if (text) addNotice(time, text);
  }
}

const JOURNAL_FAILING = "Журнал не записывается (диск полон, извлечён или только для чтения): "
  + "игра идёт, решения хранятся в памяти и будут записаны, как только диск их примет; "
  + "не выключайте пульт";
const JOURNAL_BACK = "Журнал снова записывается: ничего не потеряно";

// Each source that is not connected, by name, and a journal that cannot be written, from the
// moment the page opens (the retained status).
function renderSources() {
  const down = Object.entries(sources).filter(([, state]) => state !== "connected")
    .map(([name, state]) => `Устройство ${name}: ${SOURCE_STATES[state] || state}`);
  if (journalState && journalState.state === "failing") down.push(JOURNAL_FAILING);
  const box = $("sources");
  box.hidden = !consoleOnline || down.length === 0;
  box.textContent = down.join("; ");
}

// Today's fight was kept under another config: the host resumes it (with its own settings)
// or starts afresh; nothing is renamed or lost until then (docs/journal.md).
// «Проверка кнопок»: each button's owner, lit once pressed; after it, the ones never pressed.
function renderButtonCheck() {
  $("check-box").hidden = !!current().noButtons;
  const check = buttonCheck;
  const active = !!(check && check.active);
  $("check-list").replaceChildren(...(active && check ? check.buttons : []).map(b => {
    const li = el("li", { className: b.pressed ? "pressed" : "" }, `${b.pressed ? "✓ " : ""}${b.name} (${b.pad})`);
    li.dataset.pad = b.pad;
    return li;
  }));
  const silent = check ? check.buttons.filter(b => !b.pressed) : [];
  $("check-result").textContent = !check || active ? ""
    : silent.length ? `Не ответили: ${silent.map(b => `${b.name} (${b.pad})`).join(", ")}` : "Все кнопки ответили";
  $("check-start").hidden = active;
  $("check-end").hidden = !active;
  $("check-start").disabled = $("check-end").disabled = !online();
}
$("check-start").addEventListener("click", () => send({ action: "check_buttons" }));
$("check-end").addEventListener("click", () => send({ action: "end_check" }));

// The packs of the console's folder (game.pack_dir), each round a button: a new fight on it
// from the round's first theme, between questions (choose_pack). The list is read again on
// «Обновить список» (list_packs), after a pack was copied onto the console.
function renderPacks() {
  $("packs-box").hidden = !packShelf;
  if (!packShelf) return;
  const chosen = state && state.pack;
  $("pack-now").textContent = chosen ? `Играем: ${chosen.name}, ${chosen.round_name}` : "";
  $("packs-problem").textContent = packShelf.problem || (packShelf.packs.length ? "" : "В папке пакетов нет файлов .siq и .toml");
  const allowed = online() && !!state && (state.host_actions || []).includes("choose_pack");
  const key = JSON.stringify(packShelf.packs);
  const list = $("packs-list");
  if (list.dataset.key !== key) {  // rebuilt only when the list changes: a finger on a button keeps it
    list.dataset.key = key;
    list.replaceChildren(...packShelf.packs.map(pack => {
      const li = el("li", {});
      li.append(el("div", {}, pack.problem ? `${pack.file}: не играется — ${pack.problem}` : `${pack.name} (${pack.file})`));
      li.dataset.file = pack.file;
      (pack.rounds || []).forEach((r, i) => {
        const label = `${r.name} · тем: ${r.themes}`;
        const b = el("button", { type: "button", className: "small" }, label);
        b.dataset.round = String(i + 1);
        b.addEventListener("click", () => press({
          action: "choose_pack", label: `${pack.name}: ${r.name}`, look: "danger", args: { file: pack.file, round: i + 1 },
          confirm: "Начать новый бой на этом пакете с этого раунда? Счёт всех игроков обнулится." }));
        li.append(b);
      });
      return li;
    }));
  }
  for (const b of list.querySelectorAll("button")) b.disabled = !allowed;
  $("packs-refresh").disabled = !online();
}
$("packs-refresh").addEventListener("click", () => send({ action: "list_packs" }));

// What the game started with wrong, for as long as it stands (not a notice that scrolls away).
function renderProblems() {
  const entries = Object.entries(startProblems);
  $("problems").hidden = entries.length === 0;
  $("problems-list").replaceChildren(...entries.map(([source, problem]) =>
    el("li", {}, `${PROBLEMS[source] || source}. Подробности (для техника): ${problem}`)));
}

function renderResumeOffer() {
  const box = $("resume-offer");
  box.hidden = !consoleOnline || !resumeOffer;
  if (!resumeOffer) return;
  const differs = resumeOffer.differs.includes("kind") ? "это была другая игра"
    : "отличаются " + resumeOffer.differs.map(s => ({ ...SECTION_NAMES, ...(current().sections || {}) })[s]
      || "прочие настройки")
      .filter((name, i, all) => all.indexOf(name) === i).join(", ");
  $("resume-offer-text").textContent = `Сегодняшний бой (${resumeOffer.journal}) записан с другими `
    + `настройками: ${differs}. Сейчас идёт новый бой; продолжить тот — с его игроками `
    + "и правилами, или оставить его в стороне (журнал сохранится)?";
}
// The shared config sections by name, a game's own in its module (`sections`); a key the host
// does not know is «прочие настройки», never shown raw.
const SECTION_NAMES = { players: "игроки", teams: "команды", game: "правила и пакет", sources: "кнопки",
                        host: "пульт ведущего" };
$("resume-journal").addEventListener("click", () => send({ action: "resume_journal" }));
$("start-fresh").addEventListener("click", () => send({ action: "start_fresh" }));

function takeState(s, received, live) {
  state = s;
  if (s.game) game = s.game;
  const timer = s.timer;
  if (!timer) {
    countdown = null;
  } else if (timer.paused) {
    countdown = { frozen: timer.remaining_ms, paused: true };  // held by the host: it stands still
  } else {
    const endNs = timer.ends_ns !== undefined ? timer.ends_ns : timer.deadline_ns;
    if (live) {
      // Counted from the receipt (docs/mqtt.md, «How a display counts down»); the same
      // figures give the console's clock, for a retained state later.
      countdown = { end: received + timer.remaining_ms };
      clockOffset = received - (endNs / 1e6 - timer.remaining_ms);
    } else if (clockOffset !== null) {
      countdown = { end: endNs / 1e6 + clockOffset };
    } else {
      // A retained state may be seconds old: show what it said, without counting.
      countdown = { frozen: timer.remaining_ms };
    }
  }
  render();
}

function showRefusal(e) {
  const spec = specOf(e.details && e.details.action);
  const phase = e.details && e.details.phase ? (current().phases[e.details.phase] || "") : "";
  // The lead line from the refusal's details (the button's own label), then the engine's
  // reason (Russian, `details.reason`); an error without one (a driver's) shows its message.
  // An action the engine takes now (host_actions lists it) was refused for its arguments (a
  // score change of 0, no reason): "not accepted", not "not now".
  const takenNow = spec && state && (state.host_actions || []).includes(spec.action);
  const lead = !spec ? "Команда не принята" + (phase ? ` (${phase})` : "")
    : takenNow ? `«${spec.label}»: не принято` : `«${spec.label}» сейчас нельзя` + (phase ? ` (${phase})` : "");
  const reason = (e.details && e.details.reason) || e.message;
  $("refusal-text").textContent = `${lead}. Причина: ${reason}`;
  $("refusal").hidden = false;
}
$("refusal-close").addEventListener("click", () => { $("refusal").hidden = true; });

// ---- commands ----
function specOf(action) {
  return action ? current().actions.find(a => a.action === action) : undefined;
}

function send(command) {
  if (!client || !online()) return;
  $("refusal").hidden = true;
  // When it was sent, on the console's clock as this page estimates it (docs/mqtt.md): a
  // command sent in time while the console was held up is judged in time.
  const sent = clockOffset === null ? {} : { sent_ns: Math.round((performance.now() - clockOffset) * 1e6) };
  client.publish(`${HALL.base}/host/command`, JSON.stringify({ ...command, ...sent }), { qos: 1, retain: false });
}

const evaluated = (value) => typeof value === "function" ? value(state || {}) : value;
const fieldId = (f) => f.index === undefined ? `field-${f.name}` : `field-${f.name}-${f.index}`;

function press(spec) {
  const fields = evaluated(spec.fields) || [];
  if (spec.confirm || fields.length) openDialog(spec, fields);
  else send({ action: spec.action, ...(spec.args || {}) });
}

function openDialog(spec, fields) {
  pending = { spec, fields };
  $("dialog-title").textContent = spec.label;
  $("dialog-text").textContent = evaluated(spec.confirm) || evaluated(spec.note) || "";
  const box = $("dialog-fields");
  box.replaceChildren();
  for (const f of fields) {
    const input = fieldInput(f);
    if (f.type === "bool") {
      const label = el("label", { htmlFor: fieldId(f), className: "check" });
      label.append(input, document.createTextNode(` ${f.label}`));
      box.append(label);
    } else box.append(el("label", { htmlFor: fieldId(f) }, f.label), input);
  }
  // A player list follows the team picked in the same dialog.
  const team = fields.find(f => f.name === "team");
  if (team) $(fieldId(team)).addEventListener("change", () => refillMembers(fields));
  refillMembers(fields);
  $("dialog-ok").className = spec.look === "good" ? "good" : spec.look === "correction" ? "correction" : "danger";
  $("dialog-ok").textContent = spec.ok || "Подтвердить";
  $("dialog-error").textContent = "";
  $("dialog-cancel").textContent = spec.keep || "Отмена";
  $("dialog").hidden = false;
}

function fieldInput(f) {
  const id = fieldId(f);
  if (f.type === "int" || f.type === "text") {
    const input = el("input", { id, name: f.name, type: f.type === "int" ? "number" : "text",
                                required: !f.optional, step: 1 });
    if (f.value !== undefined) input.value = f.value;
    return input;
  }
  if (f.type === "bool") return el("input", { id, name: f.name, type: "checkbox" });
  // A select with an empty choice is not `required` (the browser would refuse the empty one).
  const empty = f.optional || f.skip;
  const select = el("select", { id, name: f.name, required: !empty });
  if (f.type === "member") return select;  // filled from the team picked (refillMembers)
  if (f.optional) select.append(el("option", { value: "" }, "—"));
  for (const [value, text] of choices(f.type, f)) select.append(el("option", { value }, text));
  const preset = presetFor(f);
  if (preset !== null) select.value = String(preset);
  return select;
}

function refillMembers(fields) {
  const team = fields.find(f => f.name === "team");
  const teamId = team ? $(fieldId(team)).value : "";
  for (const f of fields.filter(f => f.type === "member")) {
    const select = $(fieldId(f));
    select.replaceChildren();
    // In an order the skip comes first (its entries are preset below); for one player it comes
    // last, so the preset is a player and not a skipped theme.
    const skip = f.skip ? el("option", { value: "" }, f.skip) : null;
    if (skip && f.index !== undefined) select.append(skip);
    for (const [value, text] of members(teamId, f.only)) select.append(el("option", { value }, text));
    if (skip && f.index === undefined) select.append(skip);
    // The order's entries preset to the team's players in turn (or its current order).
    if (f.index !== undefined) {
      const current = (((state || {}).round || {}).order || {})[teamId];
      const preset = current ? current[f.index] : (members(teamId, "present")[f.index] || [null])[0];
      select.value = preset === null || preset === undefined ? "" : preset;
      if (select.selectedIndex < 0) select.selectedIndex = 0;
    }
  }
}

function members(teamId, only) {
  const team = ((state || {}).teams || []).find(t => t.id === teamId);
  return team ? team.players.filter(p => !only || (only === "present") === p.present).map(p => [p.name, p.name]) : [];
}

function choices(type, f) {
  const s = state || {};
  const own = current().choices ? current().choices(type, f, s) : null;
  if (own) return own;
  if (type === "choice") return f.options;
  if (type === "player") return (s.players || []).map(p => [p.id, p.name]);
  return [];
}

function presetFor(f) {
  const s = state || {};
  const own = current().preset ? current().preset(f, s, pending ? pending.spec.action : null) : null;
  if (own !== null && own !== undefined) return own;
  if (f.type === "player" && s.question && s.question.answerer) return s.question.answerer;
  return null;
}

$("dialog-cancel").addEventListener("click", () => { $("dialog").hidden = true; pending = null; });
$("dialog-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const command = { action: pending.spec.action, ...(pending.spec.args || {}) };
  const lists = new Set();
  for (const f of pending.fields) {
    const input = $(fieldId(f));
    if (f.type === "bool") {
      if (input.checked) command[f.name] = true;
      continue;
    }
    const raw = input.value.trim();
    if (f.index !== undefined) {  // an array's entry: a skipped player is null
      lists.add(f);
      (command[f.name] = command[f.name] || [])[f.index] = raw === "" && f.skip ? null : raw;
      continue;
    }
    if (raw === "" && f.optional) continue;
    if (f.type === "int" && !/^[+-]?\d{1,9}$/.test(raw)) {
      // «1e3» or «2,5» is not a whole number: say so here, send nothing (parseInt read «1e3» as 1).
      $("dialog-error").textContent = `«${f.label}»: нужно целое число, например 10 или -20`;
      input.focus();
      return;
    }
    command[f.name] = (f.type === "int" || f.type === "sector") ? parseInt(raw, 10) : raw;
  }
  for (const f of lists) {
    if (f.optional && command[f.name] && command[f.name].every(v => v === "")) delete command[f.name];
  }
  $("dialog").hidden = true;
  pending = null;
  send(command);
});

// ---- the view ----
function render() {
  const g = current();
  $("title").textContent = g.title;
  const banner = $("offline");
  banner.hidden = online();
  banner.textContent = loginRefused ? "Брокер не пустил пульт: войдите снова"
    : !linkUp ? "Нет связи с брокером: команды не отправляются, пульт переподключается сам"
    : "Консоль игры не в сети: команды не отправляются";
  renderActions();
  renderSources();
  renderResumeOffer();
  renderButtonCheck();
  renderProblems();
  renderPacks();
  if (!state) return;
  $("phase").textContent = g.phases[state.phase] || state.phase || "";
  g.render(state);
  renderQuestion(state.host_question);
  const timer = state.timer;
  $("clock").hidden = !timer;
  $("timer").className = timer ? timer.kind : "";
  $("timer-kind").textContent = !timer ? ""
    : (g.timerText && g.timerText(state, timer)) || (g.timers || {})[timer.kind] || timer.kind;
}

let actionsFor = null;
function renderActions() {
  const known = current().actions;
  const allowed = state && Array.isArray(state.host_actions) ? state.host_actions : null;
  // An action the engine offers that this page does not know still gets a button.
  const covered = current().covered || [];
  const extra = (allowed || []).filter(a => !known.some(k => k.action === a) && !covered.includes(a))
    .map(a => ({ action: a, label: a }));
  const specs = [...known, ...extra];
  const key = `${game}|${specs.map(s => s.action).join(",")}`;
  // The question's actions in the fixed bar; the evening's (`menu`: fights, players) below the
  // page, so that on a phone the bar stays a few rows.
  const bar = $("actions"), menu = $("menu-actions");
  if (key !== actionsFor) {  // rebuilt only when the set changes: a finger on a button keeps it
    actionsFor = key;
    const button = spec => {
      const b = el("button", { type: "button", className: spec.look || "" }, spec.label);
      b.dataset.action = spec.action;
      b.addEventListener("click", () => press(spec));
      return b;
    };
    bar.replaceChildren(...specs.filter(spec => !spec.menu).map(button));
    menu.replaceChildren(...specs.filter(spec => spec.menu).map(button));
    $("menu-box").hidden = menu.children.length === 0;
  }
  for (const b of [...bar.children, ...menu.children]) {
    // Before the engines list host_actions (an older console) every button is offered and
    // the engine refuses what it cannot take.
    b.disabled = !online() || (allowed !== null && !allowed.includes(b.dataset.action));
  }
}

function nameOf(id) {
  const s = state || {};
  const players = (current().players ? current().players(s) : s.players) || [];
  const p = players.find(p => p.id === id);
  return p ? p.name : id;
}

// This question's presses in order, the first marked, the others with their delay (ms).
function renderPresses(s, q) {
  const out = new Set(q ? q.out : []);
  const presses = Array.isArray(s.presses) ? s.presses.map(p => [p.player, p.delay_ms])
    : s.last_decision && q ? s.last_decision.presses.map(p => [p.player, p.behind_ms]) : [];
  $("presses-box").hidden = presses.length === 0;
  $("presses").replaceChildren(...presses.map(([player, delay], i) => {
    const answering = q && q.answerer === player;
    const li = el("li", { className: i === 0 ? "first" : "" },
                  `${nameOf(player)} — ${i === 0 ? "первый" : `+${Number(delay).toFixed(delay < 10 ? 2 : 1)} мс`}` +
                  (answering ? " · отвечает" : out.has(player) ? " · выбыл" : ""));
    if (out.has(player)) li.classList.add("out");
    li.dataset.player = player;
    return li;
  }));
}

const SPECIAL_CELLS = { cat: "Кот в мешке", auction: "Аукцион", stake_all: "Ставки всех",
                        no_risk: "Вопрос без риска", for_all: "Вопрос для всех" };

function renderQuestion(hq) {
  const box = $("question");
  box.hidden = !hq;
  if (!hq) return;
  const head = [hq.theme, hq.value !== null && hq.value !== undefined ? `${hq.value} очков` : null].filter(Boolean);
  box.querySelector(".theme").textContent = head.join(" · ");
  // A SIGame special cell, played as an ordinary question by these rules: the host is told
  // what the pack meant (docs/packs.md); a select question's options are read out with it.
  const special = hq.special ? SPECIAL_CELLS[hq.special.kind] || hq.special.kind : "";
  box.querySelector(".special").textContent = special
    ? `${special}${hq.special.note ? ` (${hq.special.note})` : ""}: по этим правилам — обычный вопрос` : "";
  box.querySelector(".options").replaceChildren(...(hq.options || []).map(o => el("li", {}, o)));
  box.querySelector(".text").textContent = hq.text || "";
  box.querySelector(".answer").textContent = hq.answer ? `Ответ: ${hq.answer}` : "";
  box.querySelector(".wrong").textContent = hq.wrong && hq.wrong.length ? `Не засчитывать: ${hq.wrong.join("; ")}` : "";
  box.querySelector(".comment").textContent = hq.comment ? `Комментарий: ${hq.comment}` : "";
  // Each picture, sound or video of the question: shown to the hall on the host's command.
  box.querySelector(".media").replaceChildren(...(hq.media || []).map(m => {
    const shown = hallMediaShown && hallMediaShown.name === m;
    const button = el("button", { type: "button", className: "small" },
                      shown ? "Убрать с экрана зала" : "Показать залу");
    button.dataset.media = m;
    button.disabled = !online();
    button.addEventListener("click", () => send(shown ? { action: "hide_media" } : { action: "show_media", name: m }));
    const line = el("div", {}, `медиа: ${m} `);
    line.append(button);
    return line;
  }));
}

function tick() {
  const timer = $("timer");
  if (!countdown) timer.textContent = "";
  else if (countdown.frozen !== undefined) {
    timer.textContent = (countdown.frozen / 1000).toFixed(1) + (countdown.paused ? " · пауза" : "");
    timer.classList.toggle("stale", !countdown.paused);
    timer.classList.toggle("paused", !!countdown.paused);
  } else {
    timer.textContent = (Math.max(0, countdown.end - performance.now()) / 1000).toFixed(1);
    timer.classList.remove("stale", "paused");
  }
  requestAnimationFrame(tick);
}

// The page's foot leaves room for the fixed action bar, whatever its height (its rows follow
// the game's number of actions and the screen's width).
function fitActionBar() {
  document.documentElement.style.setProperty("--bar-height", `${$("action-bar").offsetHeight}px`);
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
