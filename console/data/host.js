// The host's screen (host.html, docs/host-screen.md): everything the host needs to run a game
// from a phone or a tablet, for each game the console plays («Своя игра», the ChGK table, the
// sports timer, «Эрудит-квартет»: `game` in the host state).
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
const TOPICS = ["host/state", "host/events", "events", "status"];
const STORE = `chgk-host-login:${HALL.ws}`;  // one login per broker

// ---- what the host can do, per game: label, look, confirmation, arguments ----
// Arguments are asked for in a dialog: player (a player of the game; the quartet's teams),
// sector (one of the table's), team (a team the table knows; the quartet's teams, `seated`:
// those at the table in this theme), member (a player of the team picked in the dialog's
// `team` field; `skip`: a choice sending "" (or null in a list); `only`: "present"/"absent"),
// choice (`options`), bool (a checkbox: sent as true when ticked), int, text. optional: left
// out when empty. A field with an `index` is one entry of an array sent under its name; an
// optional array that is all empty is left out. `fields` may be a function of the host state
// (what the quartet's assignment asks depends on the round's type); `note` explains a dialog
// that is not a confirmation.
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
  { action: "new_game", label: "Новая игра", look: "danger",
    confirm: "Начать новую игру? Счёт всех игроков обнулится." },
  { action: "adjust_score", label: "Поправить счёт", look: "correction",
    fields: [{ name: "player", label: "Игрок", type: "player" },
             { name: "delta", label: "На сколько очков (можно со знаком минус)", type: "int" },
             { name: "reason", label: "Причина", type: "text" }] },
  { action: "reverse", label: "Пересмотреть решение", look: "correction",
    confirm: "Обратить решение по только что сыгранному вопросу (верно ↔ неверно)?",
    fields: [{ name: "reason", label: "Причина", type: "text" }] },
];
const TABLE = [
  { action: "pick_sector", label: "Выбрать сектор", fields: [{ name: "sector", label: "Сектор", type: "sector" }] },
  { action: "draw_lototron", label: "Лототрон" },
  { action: "start_timer", label: "Время!", look: "good" },
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
  { action: "new_game", label: "Новая игра", look: "danger",
    confirm: "Начать новую игру за столом? Счёт обнулится, все сектора снова в игре.",
    fields: [{ name: "team", label: "Команда за столом (пусто: никого)", type: "team", optional: true }] },
];
const SPORTS = [
  { action: "start", label: "Время!", look: "good" },
  { action: "cancel", label: "Снять отсчёт", look: "danger",
    confirm: "Снять идущий отсчёт? Вопрос будет заменён, номер сохранится." },
];
// «Эрудит-квартет» (docs/mqtt-quartet.md): the fight's own actions, then the «Своя игра» ones
// that judge the theme in play (its referee lists them), the corrections with a team's id.
const ROUND_TYPES = { open: "открытый", half_dark: "полутёмный", dark: "тёмный" };
const PENALTIES = [["warning", "предупреждение"], ["void", "ответ не засчитан"], ["minus", "минус стоимость вопроса"]];
const QUARTET = [
  { action: "start_round", label: "Начать раунд", look: "good",
    note: (s) => {
      const next = quartetNextRound(s);
      return next === "open"
        ? "Открытый раунд: ведущий называет четыре темы сразу (3.6.1); пустые — следующие темы пакета. " +
          "Командам дана минута на расстановку."
        : `Раунд: ${ROUND_TYPES[next] || next}.`;
    },
    fields: (s) => quartetNextRound(s) === "open"
      ? [0, 1, 2, 3].map(i => ({ name: "themes", index: i, label: `Тема ${i + 1}`, type: "text", optional: true }))
      : [] },
  { action: "name_theme", label: "Назвать тему",
    note: (s) => s.phase === "shootout_due" || (s.round && s.round.type === "half_dark")
      ? "После названия у команд 20 секунд на выбор игрока." : "",
    fields: [{ name: "name", label: "Тема (пусто: следующая тема пакета)", type: "text", optional: true }] },
  { action: "assign", label: "Расставить игроков", fields: quartetAssignFields },
  { action: "start_theme", label: "Игроки за столом: начать тему", look: "good" },
  // The theme's questions, judged as in «Своя игра»; a correction names a team.
  ...SVOYA.filter(a => a.action !== "new_game").map(a => a.action !== "adjust_score" ? a
    : { ...a, fields: [{ name: "player", label: "Команда", type: "player" }, ...a.fields.slice(1)] }),
  { action: "penalty", label: "Наказание команде", look: "danger",
    note: "Первое нарушение — предупреждение; снятие ответа или минус — за повторное или грубое (3.5).",
    fields: [{ name: "team", label: "Команда", type: "team", seated: true },
             { name: "penalty", label: "Наказание", type: "choice", options: PENALTIES },
             { name: "gross", label: "Грубое нарушение (без предупреждения)", type: "bool" }] },
  { action: "absent", label: "Игрок отсутствует",
    note: "Учитывается с начала следующего раунда (3.8).",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "player", label: "Игрок", type: "member", only: "present" }] },
  { action: "present", label: "Игрок вернулся",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "player", label: "Игрок", type: "member", only: "absent" }] },
  { action: "new_fight", label: "Новый бой", look: "danger",
    confirm: "Начать бой заново? Очки всех команд обнулятся, раунды начнутся с первого." },
];
const ACTIONS = { svoya: SVOYA, chgk: TABLE, sports: SPORTS, quartet: QUARTET };
// Actions an engine lists that a game's page covers with another button: the fight takes the
// referee's new_game as new_fight, so one «Новый бой» button does for both.
const COVERED = { quartet: ["new_game"] };
const TITLES = { svoya: "Своя игра", chgk: "Что? Где? Когда? — стол", sports: "Что? Где? Когда? — секундомер",
                 quartet: "Эрудит-квартет" };

const PHASES = {
  svoya: { idle: "между вопросами", reading: "вопрос читается (сигналы уже считаются)",
           open: "идёт время на сигнал", answering: "игрок отвечает",
           await_reset: "неверный ответ: ждём сброса", game_over: "бой окончен" },
  chgk: { ready: "между раундами: волчок", asked: "вопрос на столе", discussion: "обсуждение",
          answer: "ответ команды", game_over: "игра окончена" },
  sports: { idle: "ждём «Время!»", counting: "идёт минута", collecting: "сбор ответов" },
  quartet: { before_round: "перед раундом", between_themes: "между темами: команды расставляют игроков",
             theme: "идёт тема", shootout_due: "нужна перестрелка", over: "бой окончен" },
};
const TIMER_KINDS = { signal: "время на сигнал", answer: "время на ответ", discussion: "обсуждение",
                      counting: "минута на обсуждение", collecting: "сбор ответов",
                      assign: "время на расстановку" };
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
    render();
  } else if (kind === "host/state") {
    takeState(payload, received, live);
  } else if (kind === "events" || kind === "host/events") {
    if (live && typeof payload.t_ns === "number") clockOffset = received - payload.t_ns / 1e6;
    if (payload.type === "error" && payload.details && payload.details.action) showRefusal(payload);
    else if (live) {
      notice(payload);
      if (payload.type === "signal_accepted" && (payload.inputs_lost || []).length) askAboutLost(payload);
    }
  }
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
                   console: "Сбой пульта (игра идёт дальше)" };

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
    case "resumed": return "Игра восстановлена после перезапуска по журналу " + e.journal
      + (e.voided ? ` (${{ question: "вопрос", round: "раунд", count: "отсчёт" }[e.voided] || e.voided} отменён и будет сыгран снова)` : "")
      + (e.torn ? "; последняя строка журнала была оборвана" : "");
    case "signal_accepted": return lost ? `Сигнал ${nameOf(e.player)}: ${lost}` : "";
    case "question_ended": return lost ? `Никто не ответил: ${lost}` : "";
    default: return "";
  }
}

// A decision over a span where a source may have lost a press (frames lost for good, a clock
// that could not be trusted) is put to the host as a question, not only listed: keep it, or
// withdraw the question and play it again. Never over a dialog the host has open.
function askAboutLost(e) {
  if (pending || !(state && (state.host_actions || []).includes("cancel"))) return;
  const spec = specOf("cancel");
  if (!spec) return;
  openDialog({ ...spec, label: "Решение под сомнением",
               confirm: `Первым засчитан сигнал: ${nameOf(e.player)}. Но нажатия с `
                 + `${e.inputs_lost.join(", ")} могли потеряться (связь с кнопками или их часы): `
                 + "кто-то мог нажать раньше.",
               ok: "Снять вопрос", keep: "Оставить решение" }, []);
}

function notice(e) {
  const text = noticeText(e);
  if (!text) return;
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString("ru-RU")} ${text}`;
  const list = $("notices");
  list.prepend(item);
  while (list.children.length > MAX_NOTICES) list.lastChild.remove();
  $("notices-box").hidden = false;
}

function takeState(s, received, live) {
  state = s;
  if (s.game) game = s.game;
  const timer = s.timer;
  if (!timer) {
    countdown = null;
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
  const phase = e.details && e.details.phase ? ((PHASES[game] || {})[e.details.phase] || "") : "";
  // The lead line from the refusal's details (the button's own label), then the engine's
  // reason (Russian, `details.reason`); an error without one (a driver's) shows its message.
  const lead = (spec ? `«${spec.label}» сейчас нельзя` : "Команда не принята") + (phase ? ` (${phase})` : "");
  const reason = (e.details && e.details.reason) || e.message;
  $("refusal-text").textContent = `${lead}. Причина: ${reason}`;
  $("refusal").hidden = false;
}
$("refusal-close").addEventListener("click", () => { $("refusal").hidden = true; });

// ---- commands ----
function specOf(action) {
  return action ? (ACTIONS[game] || []).find(a => a.action === action) : undefined;
}

function send(command) {
  if (!client || !online()) return;
  $("refusal").hidden = true;
  client.publish(`${HALL.base}/host/command`, JSON.stringify(command), { qos: 1, retain: false });
}

const evaluated = (value) => typeof value === "function" ? value(state || {}) : value;
const fieldId = (f) => f.index === undefined ? `field-${f.name}` : `field-${f.name}-${f.index}`;

function press(spec) {
  const fields = evaluated(spec.fields) || [];
  if (spec.confirm || fields.length) openDialog(spec, fields);
  else send({ action: spec.action });
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
  if (game === "quartet" && (type === "player" || type === "team")) {
    const seated = new Set(s.theme ? s.theme.seats.map(x => x.team) : []);
    const shootout = s.phase === "shootout_due" && s.places && s.places.pending.length
      ? new Set(s.places.pending[0].teams) : null;
    return (s.teams || []).filter(t => !(f && f.seated) || seated.has(t.id))
      .filter(t => !(f && f.name === "team" && shootout) || shootout.has(t.id)).map(t => [t.id, t.name]);
  }
  if (type === "choice") return f.options;
  if (type === "player") return (s.players || []).map(p => [p.id, p.name]);
  if (type === "sector") return (s.sectors || []).map(x => [x.sector, `${x.sector} — ${x.title}${x.played ? " (сыгран)" : ""}`]);
  if (type === "team") {
    const ids = new Set(Object.keys(s.hall || {}));
    if (s.team) ids.add(s.team.id);
    return [...ids].map(id => [id, s.team && s.team.id === id ? `${s.team.name} (${id})` : id]);
  }
  return [];
}

function presetFor(f) {
  const s = state || {};
  const top = s.top || {};
  if (f.type === "sector" && f.name === "sector") {
    if (top.unsure) return top.unsure.sector;
    if (top.last_stop) return top.last_stop.sector;
  }
  const q = s.question || (s.theme && s.theme.referee && s.theme.referee.question);
  if (f.type === "player" && q && q.answerer) return q.answerer;
  // The quartet's assignment: the first team that has not given its players yet.
  if (game === "quartet" && f.type === "team" && f.name === "team" && pending && pending.spec.action === "assign") {
    const waiting = quartetWaiting(s);
    if (waiting.length) return waiting[0];
  }
  return null;
}

$("dialog-cancel").addEventListener("click", () => { $("dialog").hidden = true; pending = null; });
$("dialog-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const command = { action: pending.spec.action };
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
  $("title").textContent = TITLES[game] || "Пульт ведущего";
  const banner = $("offline");
  banner.hidden = online();
  banner.textContent = loginRefused ? "Брокер не пустил пульт: войдите снова"
    : !linkUp ? "Нет связи с брокером: команды не отправляются, пульт переподключается сам"
    : "Консоль игры не в сети: команды не отправляются";
  renderActions();
  if (!state) return;
  $("phase").textContent = (PHASES[game] || {})[state.phase] || state.phase || "";
  if (game === "svoya") renderSvoya(state);
  else if (game === "chgk") renderTable(state);
  else if (game === "sports") renderSports(state);
  else if (game === "quartet") renderQuartet(state);
  renderQuestion(state.host_question);
  const timer = state.timer;
  $("clock").hidden = !timer;
  $("timer").className = timer ? timer.kind : "";
  $("timer-kind").textContent = !timer ? ""
    : game === "quartet" && timer.kind === "assign" ? quartetAssignClock(state)
    : TIMER_KINDS[timer.kind] || timer.kind;
}

let actionsFor = null;
function renderActions() {
  const known = ACTIONS[game] || [];
  const allowed = state && Array.isArray(state.host_actions) ? state.host_actions : null;
  // An action the engine offers that this page does not know still gets a button.
  const covered = COVERED[game] || [];
  const extra = (allowed || []).filter(a => !known.some(k => k.action === a) && !covered.includes(a))
    .map(a => ({ action: a, label: a }));
  const specs = [...known, ...extra];
  const key = `${game}|${specs.map(s => s.action).join(",")}`;
  const box = $("actions");
  if (key !== actionsFor) {  // rebuilt only when the set changes: a finger on a button keeps it
    actionsFor = key;
    box.replaceChildren(...specs.map(spec => {
      const b = el("button", { type: "button", className: spec.look || "" }, spec.label);
      b.dataset.action = spec.action;
      b.addEventListener("click", () => press(spec));
      return b;
    }));
  }
  for (const b of box.children) {
    // Before the engines list host_actions (an older console) every button is offered and
    // the engine refuses what it cannot take.
    b.disabled = !online() || (allowed !== null && !allowed.includes(b.dataset.action));
  }
}

function nameOf(id) {
  const s = state || {};
  // The quartet's referee names each seat "player (team)".
  const players = s.players || (s.theme && s.theme.referee ? s.theme.referee.players : []);
  const p = players.find(p => p.id === id);
  return p ? p.name : id;
}

function renderSvoya(s) {
  const q = s.question;
  const hq = s.host_question;
  // The pack's theme name where there is one (the public state's theme_name), else its number.
  const theme = (p) => (p.theme_name || (hq && hq.theme) || `тема ${p.theme}`);
  $("situation").textContent = q ? `${theme(q)} · ${q.value} очков`
    : s.phase === "game_over" ? `Бой окончен · ${winners(s.players)}`
    : s.next ? `Дальше: ${theme(s.next)}, вопрос ${s.next.number} за ${s.next.value}` : "Своя игра";
  $("players-box").hidden = false;
  $("players").replaceChildren(...s.players.map(p => {
    const card = el("div", { className: `player ${p.status}` });
    card.dataset.player = p.id;
    card.append(el("div", { className: "name" }, p.name), el("div", { className: "score" }, String(p.score)),
                el("div", { className: "status" }, PLAYER_STATUS[p.status] || ""));
    return card;
  }));
  renderPresses(s, q);
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

// The fight's winner (the best score; a tie names them all), as the hall's scoreboard says it.
function winners(players) {
  if (!players.length) return "";
  const best = Math.max(...players.map(p => p.score));
  const top = players.filter(p => p.score === best).map(p => p.name);
  return top.length === 1 ? `победитель: ${top[0]} (${best})` : `ничья: ${top.join(", ")} (${best})`;
}

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
  $("phase").textContent = [(PHASES.chgk[s.phase] || s.phase), ...notes].join(" · ");
  $("players-box").hidden = true;
  $("presses-box").hidden = true;
}

// ---- «Эрудит-квартет» ----
function quartetNextRound(s) {
  if (s.round) return s.round.type;
  return (s.rounds || [])[Math.floor(quartetThemesPlayed(s) / 4)];
}

function quartetThemesPlayed(s) {
  return (s.themes || []).filter(t => !t.shootout).length;
}

// Teams that have not given their players for the theme (or the round) ahead.
function quartetWaiting(s) {
  if (s.phase === "shootout_due") return s.places && s.places.pending.length ? s.places.pending[0].teams : [];
  const r = s.round;
  if (!r || s.phase !== "between_themes") return [];
  const need = r.type === "half_dark" ? r.theme : 4;
  return s.teams.map(t => t.id).filter(id => !(r.order[id] && r.order[id].length >= need));
}

function quartetAssignClock(s) {
  return s.phase === "shootout_due" || (s.round && s.round.type === "half_dark")
    ? "20 секунд на выбор игрока" : "минута на расстановку";
}

// What `assign` asks for: the round's order (open, dark: a player or a skip per theme, 3.6.1,
// 3.6.3), or the player of the named theme (half-dark 3.6.2, a shoot-out 3.10).
function quartetAssignFields(s) {
  const team = { name: "team", label: "Команда", type: "team" };
  const shootout = s.phase === "shootout_due";
  if (shootout || (s.round && s.round.type === "half_dark")) {
    return [team, { name: "player", label: `Игрок на тему «${s.next_theme || "не названа"}»`, type: "member",
                    only: "present", skip: shootout ? undefined : "— команда пропускает тему (3.8)" }];
  }
  const names = (s.round && s.round.themes) || [];
  return [team, ...[0, 1, 2, 3].map(i => ({
    name: "players", index: i, label: `Тема ${i + 1}${names[i] ? ` «${names[i]}»` : ""}`, type: "member",
    only: "present", skip: "— пропускает тему (3.8)" }))];
}

function padNumber(pad) {
  const m = /:(\d+)$/.exec(pad);
  return m ? String(Number(m[1]) + 1) : pad;
}

function renderQuartet(s) {
  const r = s.round;
  const th = s.theme;
  const referee = th ? th.referee : null;
  const teamName = (id) => (s.teams.find(t => t.id === id) || { name: id }).name;
  let line;
  if (s.phase === "over" && s.places) {
    line = "Бой окончен · " + s.places.order.map((id, i) =>
      `${i + 1}. ${teamName(id)} (${s.teams.find(t => t.id === id).total})`).join(", ");
  } else if (th) {
    line = `${th.shootout ? "Перестрелка" : `Раунд ${th.round}`} · тема ${th.number} «${th.name}»` +
      (th.question ? ` · вопрос ${th.question.number} за ${th.question.value}` : "");
  } else if (s.phase === "shootout_due") {
    line = `Перестрелка: ${quartetWaiting(s).map(teamName).join(", ")}` +
      (s.next_theme ? ` · тема «${s.next_theme}»` : " · тема не названа");
  } else if (r) {
    line = `Раунд ${r.number} (${ROUND_TYPES[r.type] || r.type}) · дальше тема ${r.theme}` +
      (s.next_theme ? ` «${s.next_theme}»` : ": не названа");
  } else {
    const next = quartetNextRound(s);
    line = next ? `Дальше раунд ${quartetThemesPlayed(s) / 4 + 1} (${ROUND_TYPES[next] || next})` : "Эрудит-квартет";
  }
  $("situation").textContent = line;
  const notes = [PHASES.quartet[s.phase] || s.phase];
  if (referee) notes.push(PHASES.svoya[referee.phase] || referee.phase);
  const waiting = quartetWaiting(s);
  if (waiting.length) notes.push(`ждём игроков: ${waiting.map(teamName).join(", ")}`);
  $("phase").textContent = notes.join(" · ");

  // Who sits at each button: in a theme its seats; between themes the player named for the next.
  const seats = th ? Object.fromEntries(th.seats.map(x => [x.team, x.player])) : null;
  const status = referee ? Object.fromEntries(referee.players.map(p => [p.id, p.status])) : {};
  $("players-box").hidden = false;
  $("players").replaceChildren(...s.teams.map(t => {
    let seat = "";
    if (seats) seat = t.id in seats ? seats[t.id] : "не играет эту тему";
    else if (r && s.phase === "between_themes") {
      const order = r.order[t.id] || [];
      seat = order.length >= r.theme ? (order[r.theme - 1] || "пропускает тему") : "игрок не назван";
    }
    const playing = seats ? t.id in seats : true;
    const card = el("div", { className: `player ${playing ? status[t.id] || "idle" : "out"}` });
    card.dataset.player = t.id;
    const lines = [];
    if (seats && playing) lines.push(PLAYER_STATUS[status[t.id]] || "");
    if (r && r.order[t.id] && r.type !== "half_dark") lines.push(`порядок: ${r.order[t.id].map(p => p || "—").join(", ")}`);
    if (t.themes.length) lines.push(`по темам: ${t.themes.map(x => x === null ? "—" : x).join(" · ")}`);
    if (t.warnings) lines.push(`предупреждений: ${t.warnings}`);
    const absent = t.players.filter(p => !p.present).map(p => p.name);
    if (absent.length) lines.push(`нет: ${absent.join(", ")}`);
    card.append(el("div", { className: "name" }, t.name), el("div", { className: "score" }, String(t.total)),
                el("div", { className: "seat" }, `кнопка ${padNumber(t.pad)}${seat ? `: ${seat}` : ""}`),
                el("div", { className: "status" }, lines.filter(Boolean).join(" · ")));
    return card;
  }));
  renderPresses(s, referee ? referee.question : null);
}

function renderSports(s) {
  $("situation").textContent = s.shootout ? `Перестрелка, вопрос ${s.question}`
    : s.tour ? `Тур ${s.tour}, вопрос ${s.number} (всего ${s.question})` : `Вопрос ${s.question}`;
  $("players-box").hidden = true;
  $("presses-box").hidden = true;
}

function renderQuestion(hq) {
  const box = $("question");
  box.hidden = !hq;
  if (!hq) return;
  const head = [hq.theme, hq.value !== null && hq.value !== undefined ? `${hq.value} очков` : null].filter(Boolean);
  box.querySelector(".theme").textContent = head.join(" · ");
  box.querySelector(".text").textContent = hq.text || "";
  box.querySelector(".answer").textContent = hq.answer ? `Ответ: ${hq.answer}` : "";
  box.querySelector(".wrong").textContent = hq.wrong && hq.wrong.length ? `Не засчитывать: ${hq.wrong.join("; ")}` : "";
  box.querySelector(".comment").textContent = hq.comment ? `Комментарий: ${hq.comment}` : "";
  box.querySelector(".media").textContent = (hq.media || []).map(m => `медиа: ${m}`).join(", ");
}

function tick() {
  const timer = $("timer");
  if (!countdown) timer.textContent = "";
  else if (countdown.frozen !== undefined) {
    timer.textContent = (countdown.frozen / 1000).toFixed(1);
    timer.classList.add("stale");
  } else {
    timer.textContent = (Math.max(0, countdown.end - performance.now()) / 1000).toFixed(1);
    timer.classList.remove("stale");
  }
  requestAnimationFrame(tick);
}

// ---- start ----
render();
tick();
const saved = storedLogin();
if (saved) connect(saved);
else if (CONFIG.login) showLogin("");
else connect({});  // an anonymous demo broker; a refusal brings the form up
