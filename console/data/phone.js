// A player's phone as a button (issue 35, docs/phones.md): the page's side of
// drivers/phone_seats.py. A press is the pointerdown's (or a key's) own Event.timeStamp, on
// the page's monotonic clock; the console maps it onto its own from the sync exchanges this
// page answers at once (the request's arrival is its MessageEvent's timeStamp). Heartbeats
// say "not pressed as of t" every heartbeat_ms: t lags the clock by DISPATCH_MS, since an
// input event is created before its handler runs and a heartbeat sent in between must not
// deny it. The seat's token, the code and the seat are kept in localStorage: a reload, a
// lost Wi-Fi or a restarted console brings the phone back to its own seat.
"use strict";
(function () {
  const DISPATCH_MS = 50;
  const RETRY_MS = 1000;
  const store = window.localStorage;
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  if (params.get("c")) store.setItem("chgk.phone.code", params.get("c"));
  let ws = null;
  let beats = null;
  let joined = false;
  let seat = 0;  // 0-based, as the console numbers seats

  function say(text) { $("said").textContent = text || ""; }
  function status(text) { $("status").textContent = text; }
  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }
  function hello() {
    const seat = store.getItem("chgk.phone.seat");
    send({ type: "hello", token: store.getItem("chgk.phone.token") || "",
           code: store.getItem("chgk.phone.code") || "", want: seat === null ? -1 : Number(seat) });
  }
  function askCode(reason) {
    joined = false;
    $("join").hidden = false;
    $("buzz").hidden = true;
    say(reason);
  }
  function showOwner(name) {
    // The seat, and whose button it is once the host has given it to a player or a team.
    $("seat").textContent = name ? `Место ${seat + 1} · ${name}` : `Место ${seat + 1}`;
  }
  function startBeats(everyMs) {
    clearInterval(beats);
    beats = setInterval(() => send({ type: "hb", at: performance.now() - DISPATCH_MS }), everyMs);
  }
  function handle(message, arrived) {
    switch (message.type) {
      case "sync":
        send({ type: "sync", id: message.id, rx: arrived, tx: performance.now() });
        break;
      case "joined":
        joined = true;
        store.setItem("chgk.phone.token", message.token);
        store.setItem("chgk.phone.seat", String(message.seat));
        seat = message.seat;
        showOwner(message.owner);
        $("join").hidden = true;
        $("buzz").hidden = false;
        status("на связи");
        say("");
        startBeats(message.heartbeat_ms);
        break;
      case "owner":
        showOwner(message.name);
        break;
      case "refused":
        store.removeItem("chgk.phone.token");
        askCode(message.reason);
        break;
      case "lamp":
        document.body.dataset.lamp = message.mode;
        break;
      case "press_refused":
        say(message.reason);
        break;
    }
  }
  function connect() {
    status("Подключение…");
    ws = new WebSocket(`ws://${location.host}/ws`);
    ws.onopen = () => {
      if (store.getItem("chgk.phone.token") || store.getItem("chgk.phone.code")) hello();
      else askCode("");
    };
    ws.onmessage = (event) => handle(JSON.parse(event.data), event.timeStamp);
    ws.onclose = () => {
      clearInterval(beats);
      status("нет связи с пультом");
      setTimeout(connect, RETRY_MS);
    };
  }
  function press(event) {
    if (!joined) return;
    send({ type: "press", at: event.timeStamp });
    $("buzz").classList.add("pressed");
  }
  $("buzz").addEventListener("pointerdown", (event) => { event.preventDefault(); press(event); });
  $("buzz").addEventListener("pointerup", () => $("buzz").classList.remove("pressed"));
  document.addEventListener("keydown", (event) => {
    if ((event.code === "Space" || event.code === "Enter") && !event.repeat && joined) {
      event.preventDefault();
      press(event);
    }
  });
  $("join").addEventListener("submit", (event) => {
    event.preventDefault();
    store.setItem("chgk.phone.code", $("code").value.trim());
    store.removeItem("chgk.phone.token");
    hello();
  });
  connect();
})();
