// A minimal MQTT 3.1.1 client over WebSocket for the display pages: CONNECT, SUBSCRIBE,
// PUBLISH in (QoS 0/1), PINGREQ; reconnects by itself. No framework, no network beyond the
// broker. Usage: mqttSubscribe(url, ["chgk/t1/state", ...], (topic, payload) => ..., online => ...)
"use strict";
function mqttSubscribe(url, topics, onMessage, onLink) {
  const utf8 = (s) => new TextEncoder().encode(s);
  const lengthBytes = (n) => { const out = []; do { let d = n % 128; n = Math.floor(n / 128); if (n) d |= 128; out.push(d); } while (n); return out; };
  const str16 = (s) => { const b = utf8(s); return [b.length >> 8, b.length & 255, ...b]; };
  const packet = (type, body) => new Uint8Array([type, ...lengthBytes(body.length), ...body]);

  function handle(header, body, ws) {
    if ((header >> 4) !== 3) return;  // only PUBLISH matters to a display
    const qos = (header >> 1) & 3;
    const topicLength = (body[0] << 8) | body[1];
    const topic = new TextDecoder().decode(body.subarray(2, 2 + topicLength));
    let at = 2 + topicLength;
    if (qos > 0) { ws.send(new Uint8Array([0x40, 2, body[at], body[at + 1]])); at += 2; }
    let payload;
    try { payload = JSON.parse(new TextDecoder().decode(body.subarray(at))); } catch (e) { return; }
    onMessage(topic, payload);
  }

  function connect() {
    const ws = new WebSocket(url, "mqtt");
    ws.binaryType = "arraybuffer";
    let buffer = new Uint8Array(0);
    let ping = null;
    ws.onopen = () => {
      const id = "display-" + Math.random().toString(16).slice(2, 10);
      ws.send(packet(0x10, [...str16("MQTT"), 4, 0x02, 0, 30, ...str16(id)]));
      ws.send(packet(0x82, [0, 1, ...topics.map(t => [...str16(t), 0]).flat()]));
      ping = setInterval(() => ws.send(new Uint8Array([0xc0, 0])), 20000);
    };
    ws.onmessage = (msg) => {
      const chunk = new Uint8Array(msg.data);
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer); joined.set(chunk, buffer.length);
      buffer = joined;
      for (;;) {  // several packets in one message, or one packet over several
        let i = 1, mult = 1, len = 0, byte;
        do { if (i >= buffer.length) return; byte = buffer[i++]; len += (byte & 127) * mult; mult *= 128; } while (byte & 128);
        if (buffer.length < i + len) return;
        handle(buffer[0], buffer.subarray(i, i + len), ws);
        buffer = buffer.slice(i + len);
      }
    };
    ws.onclose = () => { clearInterval(ping); onLink(false); setTimeout(connect, 1000); };
  }
  connect();
}
