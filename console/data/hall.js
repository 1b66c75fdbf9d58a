// The hall pages' shared glue (scoreboard.html, table.html, timer.html), on MQTT.js
// (/vendor/mqtt.min.js, loaded before this file; console/data/vendor/README.md says which).
//
// hallConnect(kinds, onMessage) connects to the broker's WebSocket listener, logs in with the
// display account the console put into the page (window.CHGK.username/password; none: an
// anonymous login, which only a demo broker takes), subscribes to <base>/<kind> for each kind
// and calls onMessage(kind, payload, packet) with each message's parsed JSON (a payload that is
// not JSON is dropped; packet.retain tells a retained message). An optional third argument
// {username, password} logs in with that account instead (the host's screen, host.js).
// It keeps the #link indicator itself: "на связи" only while connected and the console's
// retained <base>/status says online and each of its sources connected (a source that is not
// is named: "нет связи: mcu"); "нет связи" otherwise, with the reason in its title
// and data-reason ("login" when the broker refused the login, "closed" when the connection
// is down). MQTT.js reconnects by itself, a refused login included (the broker's
// password file may be fixed meanwhile).
//
// clockSample(consoleNs, receivedMs) and consoleNowMs(): the console's clock as the page sees it,
// for the boards that count down from a deadline (table.html, timer.html; docs/mqtt-table.md,
// «How a display counts down»).
//
// Where the broker is: ?ws=...&base=... in the page's address win (a page opened by hand),
// then what the console's display server wrote into window.CHGK, then this host's port 9001.
"use strict";

const HALL = (() => {
  const params = new URLSearchParams(location.search);
  const config = window.CHGK || {};
  const ws = params.get("ws") || config.ws || `ws://${location.hostname || "127.0.0.1"}:9001/`;
  return {
    // A page served over https (behind a TLS proxy) may not open a plain ws:// (mixed content):
    // it asks the listener for TLS (docs/broker.md, "TLS"); a wss:// address is taken as it is.
    ws: location.protocol === "https:" ? ws.replace(/^ws:\/\//, "wss://") : ws,
    base: params.get("base") || config.base || "chgk/demo",
    username: config.username || undefined,  // "" is no account: log in anonymously
    password: config.password || undefined,
    game: config.game || "",  // the game this page is (none: any)
  };
})();

function hallLink(online, reason, sources) {
  const link = document.getElementById("link");
  const down = Object.entries(sources || {}).filter(([, state]) => state !== "connected").map(([name]) => name);
  link.textContent = !online ? "нет связи" : down.length ? `нет связи: ${down.join(", ")}` : "на связи";
  link.className = online && !down.length ? "" : "offline";
  if (reason !== undefined) {
    link.dataset.reason = reason;
    link.title = { login: "брокер не принял логин страницы", closed: "соединение с брокером закрыто" }[reason] || "";
  }
}

// «Проверка кнопок» (the retained status's button_check, docs/mqtt.md): while it runs, every
// board shows each button's owner, lit once pressed, over whatever it shows.
// The phones' source, if any (the status's devices, docs/phones.md): during the check the
// hall is shown how to join, its link as a QR code and the code, beside the buttons.
function hallPhonesJoin(devices) {
  const phones = Object.values(devices || {}).find(d => d && d.kind === "phones");
  if (!phones) return [];
  const join = document.createElement("div");
  join.id = "phones-join";
  join.style.cssText = "flex-basis:100%;display:flex;align-items:center;justify-content:center;gap:3vw;"
    + "font-size:4vh";
  const qr = document.createElement("img");
  qr.src = phones.qr;
  qr.alt = "QR-код страницы кнопки";
  qr.style.cssText = "height:22vh;background:#fff;padding:1vh;border-radius:1vh";
  const text = document.createElement("div");
  text.textContent = `Кнопка на телефоне: ${phones.url} · код ${phones.code}`;
  join.append(qr, text);
  return [join];
}

function hallButtonCheck(check, devices) {
  let box = document.getElementById("button-check");
  if (!check || !check.active) {
    if (box) box.style.display = "none";  // its inline display would win over `hidden`
    return;
  }
  if (!box) {
    box = document.createElement("div");
    box.id = "button-check";
    box.style.cssText = "position:fixed;inset:0;z-index:9;background:rgba(8,10,16,0.92);color:#f4f1e8;"
      + "display:flex;flex-wrap:wrap;align-content:center;justify-content:center;gap:3vh 3vw;"
      + "font:5vh 'DejaVu Sans',sans-serif;padding:4vh";
    document.body.append(box);
  }
  box.style.display = "flex";
  const title = document.createElement("div");
  title.style.cssText = "flex-basis:100%;text-align:center;color:#7f8aa3";
  title.textContent = "Проверка кнопок: нажмите свою кнопку";
  box.replaceChildren(title, ...hallPhonesJoin(devices), ...check.buttons.map(b => {
    const item = document.createElement("div");
    item.className = b.pressed ? "checked" : "unchecked";
    item.dataset.pad = b.pad;
    item.style.cssText = "padding:2vh 3vw;border-radius:2vh;border:0.5vh solid "
      + (b.pressed ? "#3bb273;background:#173a2a" : "#2c3347;opacity:0.6");
    item.textContent = (b.pressed ? "✓ " : "") + b.name;
    return item;
  }));
}

// A question's picture, sound or video the host shows the hall (the retained status's
// hall_media: {name, kind}, or null; console/shell/hall_media.py): over the board until the
// host takes it away. The same file stays in place across status updates (a video keeps playing).
function hallMedia(shown) {
  let box = document.getElementById("hall-media");
  const key = shown ? `${shown.kind}:${shown.name}` : "";
  if (box && box.dataset.shown === key) return;
  if (box) box.remove();
  if (!shown) return;
  box = document.createElement("div");
  box.id = "hall-media";
  box.dataset.shown = key;
  box.style.cssText = "position:fixed;inset:0;z-index:8;background:#000;display:flex;"
    + "align-items:center;justify-content:center";
  const tag = { image: "img", audio: "audio", video: "video" }[shown.kind];
  if (!tag) return;
  const media = document.createElement(tag);
  media.src = `/media/${encodeURIComponent(shown.name)}`;
  media.style.cssText = "max-width:100%;max-height:100%";
  if (tag !== "img") { media.autoplay = true; media.controls = tag === "audio"; }
  box.append(media);
  document.body.append(box);
}

function hallConnect(kinds, onMessage, login) {
  const client = mqtt.connect(HALL.ws, {
    clientId: (login ? "host-" : "display-") + Math.random().toString(16).slice(2, 10),
    username: login ? login.username || undefined : HALL.username,
    password: login ? login.password || undefined : HALL.password,
    protocolVersion: 4,  // MQTT 3.1.1, as the console and docs/broker.md use
    keepalive: 30,
    reconnectPeriod: 1000,
    reconnectOnConnackError: true,
    resubscribe: false,  // subscribed again on every "connect" below (clean sessions)
  });
  const decoder = new TextDecoder();
  client.on("connect", () => {
    hallLink(false, "");  // connected: online once the console's status says so
    client.subscribe(kinds.map(kind => `${HALL.base}/${kind}`), { qos: 0 });
  });
  client.on("error", (error) => {
    // CONNACK return codes 4 (bad user name or password) and 5 (not authorised).
    if (error && (error.code === 4 || error.code === 5 || error.code === 134 || error.code === 135)) {
      hallLink(false, "login");
    }
  });
  client.on("close", () => {
    const link = document.getElementById("link");
    hallLink(false, link.dataset.reason === "login" ? "login" : "closed");
  });
  client.on("message", (topic, bytes, packet) => {
    let payload;
    try { payload = JSON.parse(decoder.decode(bytes)); } catch (e) { return; }
    const kind = topic.slice(HALL.base.length + 1);
    if (kind === "status") {
      // The console on this node now plays another game (stopped and started with another
      // config): this page is the old game's, so it loads itself again and is the new one's.
      if (payload.state === "online" && HALL.game && payload.game && payload.game !== HALL.game) {
        location.reload();
        return;
      }
      hallLink(payload.state === "online", undefined, payload.sources);
      if (!login) {  // the hall's boards; the host has its own
        hallButtonCheck(payload.button_check, payload.devices);
        hallMedia(payload.hall_media);
      }
    }
    onMessage(kind, payload, packet);
  });
  return client;
}

// The console's clock as this page sees it: offset = console ms − performance.now() ms.
// A message cannot arrive before it was sent, so its sample is at most the true offset; the
// least delayed message gives the largest. Keep the largest, sinking by DRIFT of the time
// since (two clocks drift apart), so a late message changes nothing.
const DRIFT = 2e-4;
const consoleClock = { offset: null, at: 0 };
function clockSample(consoleNs, receivedMs) {
  if (typeof consoleNs !== "number") return;
  const sample = consoleNs / 1e6 - receivedMs;
  let kept = consoleClock.offset;
  if (kept !== null) kept -= DRIFT * Math.max(0, receivedMs - consoleClock.at);
  if (kept === null || sample > kept) kept = sample;
  consoleClock.offset = kept;
  consoleClock.at = receivedMs;
}
function consoleNowMs() {
  return consoleClock.offset === null ? null : performance.now() + consoleClock.offset;
}
