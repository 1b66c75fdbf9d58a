// The host's screen, a part of its core (host.js; docs/host-screen.md): the commands and their
// dialogs.
// Loaded right after host.js, before the games' modules; its names are global, as the core's.
"use strict";

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
