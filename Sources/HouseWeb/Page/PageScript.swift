/// The page's script: renders the house from `/api/state` and its live `state` events, sends taps
/// and phrases as the topic API's JSON payloads with the CSRF token, turns a question in a reply
/// into buttons, and loads the day's picture and the history. Plain JavaScript, no framework.
enum PageScript {
    static let text = #"""
"use strict";
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

async function post(path, body) {
  try {
    const r = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: JSON.stringify(body)
    });
    if (r.status === 401) { location.href = "/login"; return null; }
    return await r.json();
  } catch (e) {
    return {status: "error", dialog: "The controller did not answer: " + e.message};
  }
}

function notice(text) {
  const n = $("notice");
  n.textContent = text || "";
  n.hidden = !text;
}

// A reply that asks something: its options (or yes/no) as buttons; `again(extra)` sends the
// request once more with the answer.
function ask(reply, again) {
  const box = $("ask"), choices = $("ask-choices");
  choices.replaceChildren();
  if (reply && reply.status === "needsChoice" && reply.options && reply.options.length) {
    $("ask-text").textContent = reply.question || reply.dialog;
    for (const o of reply.options) {
      choices.append(el("button", {type: "button", class: "choice", "data-option": o.id,
        onclick: () => { box.hidden = true; again({answers: {[reply.pendingParameter]: o.id}}); }}, o.label));
    }
  } else if (reply && reply.status === "needsConfirmation") {
    $("ask-text").textContent = reply.question || reply.dialog;
    choices.append(el("button", {type: "button", class: "choice yes", "data-option": "yes",
      onclick: () => { box.hidden = true; again({confirm: true}); }}, "Yes"));
    choices.append(el("button", {type: "button", class: "choice no", "data-option": "no",
      onclick: () => { box.hidden = true; notice("Nothing was done."); }}, "No"));
  } else {
    box.hidden = true;
    return false;
  }
  box.hidden = false;
  box.scrollIntoView({block: "nearest"});
  return true;
}

function answered(reply) {
  if (!reply) return;
  if (reply.status === "done") notice(reply.dialog);
  else if (reply.error) notice(reply.error);
  else notice(reply.dialog);
}

// MARK: House

let house = null;

function stateText(d) {
  if (d.cover) return d.cover.state + " " + d.cover.position + "%" + (d.cover.assumed ? " (assumed)" : "");
  if (d.value) return d.value;
  return d.state === "ON" ? "on" : "off";
}

function command(device, body) {
  const send = (extra) => post("/api/devices/" + encodeURIComponent(device.id), Object.assign({}, body, extra)).then((reply) => {
    if (!ask(reply, send)) answered(reply);
  });
  send({});
}

function controls(d) {
  const a = new Set(d.actions);
  const box = el("div", {class: "controls"});
  if (a.has("position")) {
    box.append(el("button", {type: "button", class: "act", "data-action": "open", onclick: () => command(d, {state: "OPEN"})}, "Open"));
    box.append(el("button", {type: "button", class: "act", "data-action": "stop", onclick: () => command(d, {state: "STOP"})}, "Stop"));
    box.append(el("button", {type: "button", class: "act", "data-action": "close", onclick: () => command(d, {state: "CLOSE"})}, "Close"));
    const slider = el("input", {type: "range", min: 0, max: 100, step: 5, value: d.cover ? d.cover.position : 0,
      "aria-label": d.name + " position", class: "position"});
    slider.addEventListener("change", () => command(d, {position: Number(slider.value)}));
    box.append(slider);
  } else if (a.has("open") && !a.has("on")) {
    box.append(el("button", {type: "button", class: "act", "data-action": "open", onclick: () => command(d, {state: "OPEN"})}, "Open"));
    box.append(el("button", {type: "button", class: "act", "data-action": "close", onclick: () => command(d, {state: "CLOSE"})}, "Close"));
  } else if (a.has("on")) {
    // No state: the device has not reported one (its value says unknown); a tap switches it on.
    const on = d.state === "ON", known = d.state !== undefined;
    box.append(el("button", {type: "button", class: "switch" + (on ? " on" : ""), role: "switch",
      "aria-checked": known ? (on ? "true" : "false") : "mixed",
      "data-action": on ? "off" : "on", "aria-label": d.name + (known ? "" : ": state unknown") + (on ? ": switch off" : ": switch on"),
      onclick: () => command(d, {state: on ? "OFF" : "ON"})}, known ? (on ? "ON" : "OFF") : "?"));
  }
  return box;
}

function render(s) {
  house = s;
  $("house-mode").textContent = s.mode ? "mode: " + s.mode : s.rooms.some((r) => r.mode) ? "modes differ by room" : "no mode set";
  const modes = $("modes");
  modes.replaceChildren(el("span", {class: "label"}, "Set the house to"));
  for (const m of s.modes) {
    modes.append(el("button", {type: "button", class: "mode" + (s.mode === m.id ? " current" : ""), "data-mode": m.id,
      onclick: () => { const send = (extra) => post("/api/mode", Object.assign({mode: m.id}, extra)).then((r) => { if (!ask(r, send)) answered(r); }); send({}); }},
      m.name));
  }
  const nodes = $("nodes");
  nodes.replaceChildren();
  for (const n of s.nodes) {
    const status = n.online === true ? "online" : n.online === false ? "offline" : "not heard from";
    nodes.append(el("span", {class: "node " + (n.online === true ? "up" : n.online === false ? "down" : "unknown"), "data-node": n.id},
      n.id + (n.primary ? " (primary)" : "") + ": " + status));
  }
  const rooms = $("rooms");
  rooms.replaceChildren();
  for (const r of s.rooms) {
    if (!r.devices.length) continue;
    const mode = r.mode ? r.mode + (r.modeUntilText ? " until " + r.modeUntilText : "") : "";
    const card = el("article", {class: "room", "data-room": r.id},
      el("h2", {}, r.name, r.floor ? el("small", {}, " " + r.floor) : null, mode ? el("span", {class: "room-mode"}, mode) : null));
    for (const d of r.devices) {
      card.append(el("div", {class: "device kind-" + d.kind + (d.state === "ON" ? " is-on" : ""), "data-device": d.id, "data-state": d.state},
        el("span", {class: "name"}, d.name, d.confirm ? el("small", {class: "confirm", title: "asks before switching on"}, " ⚠") : null),
        el("span", {class: "value"}, stateText(d)),
        controls(d)));
    }
    rooms.append(card);
  }
}

// The house as last drawn: an event that brings the same house draws nothing (a re-render
// replaces the buttons under a finger).
let drawn = "";
function renderText(text) {
  if (text === drawn) return;
  drawn = text;
  render(JSON.parse(text));
}

function live() {
  const dot = $("live");
  const source = new EventSource("/api/events");
  source.addEventListener("state", (e) => { renderText(e.data); dot.textContent = "live"; dot.classList.add("on"); });
  source.onerror = () => { dot.textContent = "reconnecting"; dot.classList.remove("on"); };
}

// MARK: Say

function sayLine(who, text, cls) {
  const log = $("say-log");
  log.prepend(el("p", {class: "line " + (cls || who)}, el("b", {}, who === "you" ? "You: " : "House: "), text));
}

function say(text) {
  sayLine("you", text);
  const send = (extra, shown) => {
    const body = Object.assign({text: shown || text, id: "web-" + Date.now().toString(36) + Math.random().toString(36).slice(2, 8)}, extra);
    return post("/api/say", body).then((reply) => {
      if (!reply) return;
      sayLine("house", reply.question || reply.dialog || reply.error || reply.status, "house status-" + reply.status);
      ask(reply, (more) => {
        const merged = Object.assign({}, extra, more, {answers: Object.assign({}, extra.answers || {}, more.answers || {})});
        send(merged, reply.pendingText || shown);
      });
    });
  };
  send({});
}

// MARK: Today, history

function dayValue() { return $("day").value; }

async function loadDay() {
  const r = await fetch("/today.svg?date=" + encodeURIComponent(dayValue()), {credentials: "same-origin"});
  $("day-picture").innerHTML = r.ok ? await r.text() : "<p class='error'>The picture could not be drawn.</p>";
  const picture = document.querySelector("#day-picture svg");
  if (picture && !dayValue()) $("day").value = picture.dataset.date;
}

function shiftDay(n) {
  if (!dayValue()) return;
  const d = new Date(dayValue() + "T12:00:00Z");
  d.setUTCDate(d.getUTCDate() + n);
  $("day").value = d.toISOString().slice(0, 10);
  loadDay();
}

async function loadHistory() {
  const r = await fetch("/api/history?limit=30", {credentials: "same-origin"});
  if (!r.ok) return;
  const body = $("history-table").querySelector("tbody");
  body.replaceChildren();
  for (const h of await r.json()) {
    body.append(el("tr", {class: "outcome-" + h.outcome}, el("td", {}, h.time), el("td", {}, h.source),
      el("td", {}, h.summary), el("td", {}, h.dialog)));
  }
  const e = await fetch("/energy.svg?days=7", {credentials: "same-origin"});
  if (e.ok) $("energy-chart").innerHTML = await e.text();
}

// MARK: Apple Home

// The bridge's setup code and QR code while no controller is paired, else how many are.
async function loadHomeKit() {
  const box = $("homekit");
  const r = await fetch("/api/homekit", {credentials: "same-origin"});
  if (!r.ok) { box.hidden = true; return; }
  const h = await r.json();
  box.replaceChildren(el("h2", {}, "Apple Home"));
  if (h.paired > 0) {
    box.append(el("p", {id: "homekit-paired"}, h.name + " is paired with " + h.paired + (h.paired === 1 ? " controller" : " controllers") +
      ". To pair anew, remove the bridge in the Home app first."));
  } else {
    const qr = el("div", {id: "homekit-qr", class: "qr"});
    box.append(el("p", {}, "In the Home app tap + and Add Accessory, then scan this code, or choose More options…, pick " + h.name +
      " and type the setup code."), qr, el("p", {id: "homekit-code", class: "setup-code"}, h.setupCode));
    const svg = await fetch("/homekit.svg", {credentials: "same-origin"});
    if (svg.ok) qr.innerHTML = await svg.text();
  }
  box.hidden = false;
}

// MARK: Suggestions

function evidenceText(e) {
  let t = e.occurrences + " of " + e.out_of;
  if (e.median) t += ", around " + e.median + " ±" + Math.round(e.spread_minutes) + " min";
  else if (e.typical_seconds) t += ", typically " + Math.round(e.typical_seconds / 60) + " min";
  return t + "; first seen " + e.first_seen.slice(0, 10) + ", last seen " + e.last_seen.slice(0, 10);
}

async function loadSuggestions() {
  const box = $("suggestions"), note = $("suggestions-note");
  const r = await fetch("/api/suggestions", {credentials: "same-origin"});
  if (!r.ok) { box.replaceChildren(el("p", {class: "error"}, "The suggestions could not be read.")); return; }
  const v = await r.json();
  note.hidden = !v.why;
  note.textContent = v.why ? v.why.charAt(0).toUpperCase() + v.why.slice(1) + "." : "";
  box.replaceChildren();
  if (v.error) { box.append(el("p", {class: "error"}, v.error)); return; }
  if (!v.enabled) { box.append(el("p", {class: "muted"}, "Suggestions are off (suggestions: {enabled: false} in house.yaml).")); return; }
  if (!v.suggestions.length) { box.append(el("p", {class: "muted", id: "no-suggestions"}, "No suggestions now.")); return; }
  for (const s of v.suggestions) {
    const answerLine = el("p", {class: "answer", hidden: true});
    const item = el("article", {class: "suggestion kind-" + s.kind, "data-suggestion": s.id},
      el("p", {class: "text"}, s.text),
      el("p", {class: "evidence muted"}, evidenceText(s.evidence)),
      el("div", {class: "controls"},
        el("button", {type: "button", class: "accept", onclick: () => answerSuggestion(s.id, "accept", item, answerLine)}, "Accept"),
        el("button", {type: "button", class: "dismiss", onclick: () => answerSuggestion(s.id, "dismiss", item, answerLine)}, "Dismiss")),
      answerLine);
    box.append(item);
  }
}

async function answerSuggestion(id, what, item, line) {
  const reply = await post("/api/suggestions/" + encodeURIComponent(id) + "/" + what, {});
  line.hidden = false;
  if (reply && reply.answer) {
    item.classList.add("answered", reply.answer);
    for (const b of item.querySelectorAll("button")) b.disabled = true;
    line.className = "answer done";
    line.textContent = reply.message;
  } else {
    line.className = "answer error";
    line.textContent = (reply && (reply.error || reply.dialog)) || "The controller did not answer.";
  }
}

// MARK: Tabs

function show(tab) {
  // A question belongs to where it was asked.
  $("ask").hidden = true;
  for (const s of document.querySelectorAll("section[data-section]")) s.hidden = s.dataset.section !== tab;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("current", a.dataset.tab === tab);
  if (tab === "house") loadHomeKit();
  if (tab === "today") loadDay();
  if (tab === "history") loadHistory();
  if (tab === "suggestions") loadSuggestions();
  if (tab === "say") $("say-text").focus();
}

window.addEventListener("hashchange", () => show((location.hash || "#house").slice(1)));
$("say-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("say-text").value.trim();
  if (text) { say(text); $("say-text").value = ""; }
});
$("day-prev").addEventListener("click", () => shiftDay(-1));
$("day-next").addEventListener("click", () => shiftDay(1));
$("day-today").addEventListener("click", () => { $("day").value = ""; loadDay(); });
$("day").addEventListener("change", loadDay);
const logout = $("logout");
if (logout) logout.addEventListener("submit", (e) => {
  e.preventDefault();
  fetch("/logout", {method: "POST", credentials: "same-origin", headers: {"X-CSRF-Token": csrf}}).then(() => { location.href = "/login"; });
});

fetch("/api/state", {credentials: "same-origin"}).then((r) => r.status === 401 ? (location.href = "/login", null) : r.text()).then((t) => { if (t) renderText(t); });
live();
show((location.hash || "#house").slice(1));
"""#
}
