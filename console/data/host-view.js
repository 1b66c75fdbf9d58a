// The host's screen, a part of its core (host.js; docs/host-screen.md): the view: the status
// panels, the state, the action bar and the question.
// Loaded right after host.js, before the games' modules; its names are global, as the core's.
"use strict";

// Each source that is not connected, by name, and a journal that cannot be written, from the
// moment the page opens (the retained status).
function renderSources() {
  const down = Object.entries(sources).filter(([, state]) => state !== "connected")
    .map(([name, state]) => say("source_status", { source: name, state: SOURCE_STATES[state] || state }));
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
    withDetail(el("li", {}, PROBLEMS[source] || source), problem)));
}

// The evening's tools sit below the game: one tap away, and back.
$("to-tools").addEventListener("click", () => $("tools").scrollIntoView({ block: "start" }));
$("to-game").addEventListener("click", () => window.scrollTo(0, 0));

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
  renderPhones();
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

// Whose a pad is: a player's («Своя игра», the quartet) or a team's («Брейн-ринг»), or nobody's.
function padOwner(pad) {
  const s = state || {};
  const people = [...(s.players || []), ...(s.teams || [])];
  const owner = people.find(p => p.pad === pad || (p.pads || []).includes(pad));
  return owner ? owner.name : "";
}

// The phones' source (docs/phones.md): the join code, the page's address with it and its QR
// code, and each joined phone's clock; a phone that needs the host's eye is flagged.
function renderPhones() {
  const [source, phones] = Object.entries(devices).find(([, d]) => d && d.kind === "phones") || [];
  $("phones-box").hidden = !phones;
  if (!phones) return;
  $("phones-code").textContent = phones.code;
  $("phones-link").href = phones.url;
  $("phones-link").textContent = phones.url;
  if ($("phones-qr").src !== phones.qr) $("phones-qr").src = phones.qr;
  const ms = (v) => (v === null || v === undefined ? "—" : String(v).replace(".", ","));
  $("phones-free").textContent = `занято мест: ${phones.phones.length} из ${phones.seats}`;
  // Who plays with what: a wired button is 10-30 ms ahead of any phone (docs/phones.md).
  const s = state || {};
  const kindOf = (pad) => ((devices[pad.split(":")[0]] || {}).kind === "phones" ? "телефон" : "кнопка");
  const people = [...(s.players || []), ...(s.teams || [])].map(p => {
    const kinds = [...new Set((p.pads || (p.pad ? [p.pad] : [])).map(kindOf))];
    return [p.name, kinds];
  });
  const mixed = new Set(people.flatMap(([, kinds]) => kinds)).size > 1;
  $("phones-mix").textContent = people.map(([name, kinds]) => `${name} — ${kinds.join(" и ") || "нет кнопки"}`)
    .join("; ") + (mixed ? ". Кнопки и телефоны вместе: кнопка на 10–30 мс быстрее телефона" : "");
  $("phones-mix").className = mixed ? "flagged" : "";
  $("phones-list").replaceChildren(...phones.phones.map(p => {
    const who = padOwner(p.pad);
    const line = `Место ${p.seat}${who ? ` — ${who}` : ""}: связь ${ms(p.round_trip_ms[0])}/` +
      `${ms(p.round_trip_ms[1])} мс, точность ±${ms(p.uncertainty_ms)} мс, шаг ${ms(p.granularity_ms)} мс, ` +
      `слышен ${ms(p.heard_ms_ago)} мс назад`;
    const said = p.owned ? line : `${line} — ничья кнопка: её не ждут`;
    const li = el("li", { className: p.flag ? "flagged" : "" }, p.flag ? `${said} — ${p.flag}` : said);
    li.dataset.seat = String(p.seat);
    // A phone gone for good (a flat battery) would keep the source waiting: the host frees its seat.
    const free = el("button", { type: "button", className: "small" }, "Освободить");
    free.addEventListener("click", () => send({ action: "free_seat", source, seat: p.seat }));
    li.append(" ", free);
    return li;
  }));
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
