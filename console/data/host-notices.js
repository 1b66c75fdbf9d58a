// The host's screen, a part of its core (host.js; docs/host-screen.md): the notices under
// «Внимание» and the questions it puts to the host.
// Loaded right after host.js, before the games' modules; its names are global, as the core's.
"use strict";

// ---- what the host must know about the devices and the decisions (Russian) ----
// The console's own lines come from console/texts.py (PAGE_TEXTS, handed over as
// window.CHGK.texts): the terminal and this screen say the same; `say` fills a template.
const MAX_NOTICES = 6;
const TEXTS = CONFIG.texts || {};
const say = (key, values) => String(TEXTS[key] || key).replace(/\{(\w+)\}/g, (m, name) => String(values[name]));
const SOURCE_STATES = TEXTS.source_states || {};
const PROBLEMS = TEXTS.problems || {};
const JOURNAL_FAILING = TEXTS.journal_failing;
const JOURNAL_BACK = TEXTS.journal_back;
const seconds = (ms) => (ms / 1000).toFixed(1).replace(".", ",");
// A hold past a deadline: «0,03» for 30 ms, not «0,0» (console/texts.py `held_seconds`).
const heldSeconds = (ms) => (ms / 1000).toFixed(ms < 100 ? 2 : 1).replace(".", ",");

// Whose press a decision names: a player («Своя игра», the quartet) or a team («Брейн-ринг»).
const whoOf = (e) => e.player || e.team;

// A notice's technical detail (the console's own English, for whoever fixes it): behind a tap
// («подробнее»), never in the line the host reads.
function noticeDetail(e) {
  if (e.type === "error") return e.message || "";
  return e.type === "journal_status" && e.state === "failing" ? e.detail || "" : "";
}

// `item` with `detail` (if any) behind «подробнее», a tap away.
function withDetail(item, detail) {
  if (!detail) return item;
  const more = el("details", {});
  more.append(el("summary", {}, "подробнее"), ` ${detail}`);
  item.append(" ", more);
  return item;
}

function noticeText(e) {
  const lost = e.inputs_lost && e.inputs_lost.length
    ? `нажатия с ${e.inputs_lost.join(", ")} могли потеряться — проверьте решение` : "";
  switch (e.type) {
    case "error": return Object.hasOwn(PROBLEMS, e.source) ? PROBLEMS[e.source] : say("device_problem", e);
    case "source_status": return say("source_status", { source: e.source, state: SOURCE_STATES[e.state] || e.state });
    case "button_held": {
      const whose = e.player ? say("player_of", { name: nameOf(e.player) }) : say("no_player", {});
      return say(e.state === "held" ? "button_held" : "button_released",
                 { pad: e.pad, whose, seconds: seconds(e.held_ms) });
    }
    case "signals_held": return `Пауза: нет связи с кнопками ${e.source} — решение ждёт их `
      + "(нажатия за это время засчитаются по их времени)";
    case "signals_wait_over": return `Кнопки ${e.source} не вернулись: снимите вопрос или закончите его без них`;
    case "signals_resumed": return e.given_up
      ? `Кнопки ${e.source} не вернулись: вопрос решается без них (решение под сомнением)`
      : `Кнопки ${e.source} снова на связи`;
    case "console_held": return say("console_held", { held: heldSeconds(e.held_ms) });
    case "journal_status": return e.state === "failing" ? JOURNAL_FAILING : JOURNAL_BACK;
    case "resume_offer": return e.state === "declined"
      ? say(e.implicit ? "resume_declined_implicit" : "resume_declined", e)
      : ["offered", "accepted"].includes(e.state) ? say(`resume_${e.state}`, e) : "";
    case "resumed": return say("resumed", e)
      + (e.voided ? say("voided", { what: (TEXTS.voided_what || {})[e.voided] || e.voided }) : "")
      + (e.given_back && Object.keys(e.given_back).length ? say("given_back", {
        players: Object.entries(e.given_back).map(([p, points]) => `${nameOf(p)} +${points}`).join(", ") }) : "")
      + (e.torn ? say("torn", {}) : "");
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
  addNotice(new Date().toLocaleTimeString("ru-RU"), text, noticeDetail(e));
}

// The same line again, with nothing said between, is folded into the last one with a count:
// repeats never push the other notices out of the few shown.
function addNotice(time, text, detail) {
  const list = $("notices");
  const last = list.firstElementChild;
  let item = last;
  if (last && last.dataset.text === text && last.dataset.detail === detail) {
    last.dataset.count = String(Number(last.dataset.count) + 1);
  } else {
    item = el("li", {});
    Object.assign(item.dataset, { text, detail, count: "1" });
    list.prepend(item);
    while (list.children.length > MAX_NOTICES) list.lastChild.remove();
  }
  const count = Number(item.dataset.count);
  item.replaceChildren(`${time} ${text}${count > 1 ? ` (×${count})` : ""}`);
  withDetail(item, detail);
  $("notices-box").hidden = false;
  countNotices();
}

// The header's count of the lines under «Внимание» (they sit below the question): a tap on it
// shows them.
function countNotices() {
  const shown = $("notices").children.length;
  $("notice-count").hidden = shown === 0;
  $("notice-count").textContent = `⚠ ${shown}`;
}
$("notice-count").addEventListener("click", () => $("notices-box").scrollIntoView({ block: "center" }));

// The console's retained list, oldest first: the page's «Внимание» as it would have been.
function showNotices(kept) {
  $("notices").replaceChildren();
  for (const [time, e] of kept) {
    const text = noticeText(e);
    if (text) addNotice(time, text, noticeDetail(e));
  }
  if (!$("notices").children.length) $("notices-box").hidden = true;
  countNotices();
}
