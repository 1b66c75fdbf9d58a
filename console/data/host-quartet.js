// «Эрудит-квартет» on the host's screen (a module of host.js: registerGame; after
// host-svoya.js, whose actions and phases judge each theme). Its round and theme, the teams'
// cards with their seats, its dialogs' teams, members and assignments.
"use strict";

// «Эрудит-квартет» (docs/mqtt-quartet.md): the fight's own actions, then the «Своя игра» ones
// that judge the theme in play (its referee lists them), the corrections with a team's id.
// The fight's words, shared with the hall's board and the console (quartet-texts.js).
const ROUND_TYPES = QUARTET_TEXTS.round_types;
const PENALTIES = Object.entries(QUARTET_TEXTS.penalties);
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
  ...SVOYA.filter(a => !["new_game", "end_game", "skip_theme", "next_fight", "rename_player", "add_player",
                 "remove_player", "bind_pad"].includes(a.action)).map(a => a.action !== "adjust_score" ? a
    : { ...a, fields: [{ name: "player", label: "Команда", type: "player" }, ...a.fields.slice(1)] }),
  { action: "penalty", label: "Наказание команде", look: "danger",
    note: "Первое нарушение — предупреждение; снятие ответа или минус — за повторное или грубое (3.5).",
    fields: [{ name: "team", label: "Команда", type: "team", seated: true },
             { name: "penalty", label: "Наказание", type: "choice", options: PENALTIES },
             { name: "gross", label: "Грубое нарушение (без предупреждения)", type: "bool" }] },
  { action: "appeal", label: "Апелляция принята", look: "correction",
    note: "Ответ команды на вопрос только что сыгранной темы засчитан (дуальный ответ, 4.1): "
      + "минус снимается, вопрос считается взятым во всех показателях (3.10).",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "question", label: "Номер вопроса в теме (1–5)", type: "int" },
             { name: "reason", label: "Решение жюри", type: "text" }] },
  { action: "absent", label: "Игрок отсутствует",
    note: "Учитывается с начала следующего раунда (3.8).",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "player", label: "Игрок", type: "member", only: "present" }] },
  { action: "present", label: "Игрок вернулся",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "player", label: "Игрок", type: "member", only: "absent" }] },
  { action: "add_member", label: "Новый игрок команды", look: "correction",
    note: "Игрок, которого нет в списке команды: он в игре со следующего раунда (3.8).",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "name", label: "Имя", type: "text" }] },
  { action: "rename_member", label: "Исправить имя игрока", look: "correction",
    note: "Тот же игрок под верным именем: в списке команды, в расстановке и в сыгранных темах.",
    fields: [{ name: "team", label: "Команда", type: "team" },
             { name: "player", label: "Игрок", type: "member" },
             { name: "name", label: "Верное имя", type: "text" }] },
  { action: "new_fight", menu: true, label: "Новый бой", look: "danger",
    confirm: "Начать бой заново? Очки всех команд обнулятся, раунды начнутся с первого." },
];

const QUARTET_PHASES = QUARTET_TEXTS.phases;

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
  const notes = [QUARTET_PHASES[s.phase] || s.phase];
  if (referee) notes.push(GAMES.svoya.phases[referee.phase] || referee.phase);
  const waiting = quartetWaiting(s);
  if (waiting.length) notes.push(`ждём игроков: ${waiting.map(teamName).join(", ")}`);
  $("phase").textContent = notes.join(" · ");

  // Who sits at each button: in a theme its seats; between themes the player named for the next.
  const seats = th ? Object.fromEntries(th.seats.map(x => [x.team, x.player])) : null;
  const status = referee ? Object.fromEntries(referee.players.map(p => [p.id, p.status])) : {};
  $("players-box").hidden = false;
  $("players-title").textContent = "Команды";
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

// The fight's teams (its seats) for a player or team field; `seated`: those at the table in
// this theme; in a shoot-out the teams it is between.
function quartetChoices(type, f, s) {
  if (type !== "player" && type !== "team") return null;
  const seated = new Set(s.theme ? s.theme.seats.map(x => x.team) : []);
  const shootout = s.phase === "shootout_due" && s.places && s.places.pending.length
    ? new Set(s.places.pending[0].teams) : null;
  return (s.teams || []).filter(t => !(f && f.seated) || seated.has(t.id))
    .filter(t => !(f && f.name === "team" && shootout) || shootout.has(t.id)).map(t => [t.id, t.name]);
}

// The answerer of the theme's question; in the assignment, the first team still to give its players.
function quartetPreset(f, s, action) {
  const q = s.theme && s.theme.referee && s.theme.referee.question;
  if (f.type === "player" && q && q.answerer) return q.answerer;
  if (f.type === "team" && f.name === "team" && action === "assign") {
    const waiting = quartetWaiting(s);
    if (waiting.length) return waiting[0];
  }
  return null;
}

registerGame("quartet", {
  sections: { quartet: "правила квартета" },
  title: "Эрудит-квартет",
  phases: QUARTET_PHASES,
  timers: { ...GAMES.svoya.timers, assign: "время на расстановку" },
  timerText: (s, timer) => timer.kind === "assign" ? quartetAssignClock(s) : null,
  actions: QUARTET,
  // The fight takes the referee's new_game as new_fight: one «Новый бой» button does for both.
  covered: ["new_game"],
  render: renderQuartet,
  strayPress: svoyaStray,  // the theme's presses are «Своя игра»'s
  // The theme's referee names each seat "player (team)".
  players: (s) => s.players || (s.theme && s.theme.referee ? s.theme.referee.players : []),
  choices: quartetChoices,
  preset: quartetPreset,
});
