// The host's screen, a part of its core (host.js; docs/host-screen.md): the notices under
// «Внимание» and the questions it puts to the host.
// Loaded right after host.js, before the games' modules; its names are global, as the core's.
"use strict";

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
