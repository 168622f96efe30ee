// The table in the browser: what the service and the simulated board say, pushed over one
// WebSocket; what the players do, sent back as physical actions. No polling: the page only
// redraws when a message comes, and only sends when a player does something.
"use strict";

const PREMIUM = { "=": ["tw", "TW"], "-": ["dw", "DW"], '"': ["tl", "TL"], "'": ["dl", "DL"] };
const SCALE = { 128: 3, 256: 2 }; // screen pixels per panel pixel, at most (fewer when the window is narrow)

const play = {
  // what tests and the bench read: the last messages and the frame-to-page latencies
  hello: null, view: null, tags: {}, bag: {}, status: null,
  answers: [], latencies: [], frames: 0, shownAt: {}, shown: {}, connected: false,
  nextId: 1, socket: null, retry: 0,
};
window.play = play;

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// --- the connection ---------------------------------------------------------------------------

function connect() {
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : "");
  const ws = new WebSocket(url);
  play.socket = ws;
  setChip("#status-page", "connecting…", "warn");
  ws.onopen = () => { play.retry = 0; play.connected = true; setChip("#status-page", "connected", "ok"); };
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onclose = () => {
    play.connected = false;
    releaseAll();
    if (play.refused) return;
    setChip("#status-page", "disconnected: reconnecting", "bad");
    const wait = Math.min(5000, 250 * 2 ** play.retry++);
    setTimeout(connect, wait); // (a new connection after the server went away, not a poll)
  };
}

function send(message) {
  if (!play.socket || play.socket.readyState !== WebSocket.OPEN) {
    note("not connected: nothing was done", true);
    return null;
  }
  message.id = play.nextId++;
  play.socket.send(JSON.stringify(message));
  return message.id;
}

function receive(msg) {
  switch (msg.type) {
    case "hello": return onHello(msg);
    case "status": play.status = msg; return drawStatus();
    case "tags": play.tags = msg.tags; play.bag = msg.bag; return drawTiles();
    case "view": {
      const away = msg.view.away;
      if (away && (!play.view || play.view.away !== away)) note(`the service says the board is away: ${away}`, true);
      play.view = msg.view;
      drawTiles();
      return drawSheet();
    }
    case "frame": return onFrame(msg);
    case "note": return note(msg.message);
    case "answer": return onAnswer(msg);
    case "refused":
      play.refused = msg;
      $("#refused").hidden = false;
      $("#refused").textContent = msg.message;
      setChip("#status-page", "refused", "bad");
      return;
  }
}

function onAnswer(msg) {
  play.answers.push(msg);
  if (play.answers.length > 500) play.answers.shift();
  if (!msg.ok) note(msg.message, true);
}

function note(text, error) {
  const li = el("li", error ? "error" : "", text);
  const log = $("#log");
  log.prepend(li);
  while (log.children.length > 50) log.lastChild.remove();
}

function setChip(sel, text, kind) {
  const chip = $(sel);
  chip.textContent = text;
  chip.className = "chip " + (kind || "");
}

// --- the table's shape ---------------------------------------------------------------------------

function onHello(msg) {
  play.hello = msg;
  document.body.classList.toggle("watch", msg.watch);
  $("#profile").textContent = `— ${msg.profile}, ${msg.names.join(", ")}` + (msg.watch ? " (watching the demo)" : "");
  buildBoard(msg);
  buildSeats(msg);
  buildBag(msg);
  const select = $("#reader-select");
  select.replaceChildren(...msg.readers.map((r) => {
    const o = el("option", "", readerName(r));
    o.value = r.reader;
    return o;
  }));
  $("#shared").classList.toggle("seat-panels", msg.panel.seat_panels);
  $("#shared-title").textContent = msg.panel.seat_panels ? "The shared button" : "The display";
  $("#long-press").textContent = `${msg.long_s} s`;
  $("#shared-panel").replaceChildren();
  if (!msg.panel.seat_panels) $("#shared-panel").append(panelImage("table", msg.panel));
  fitPanels();
}

function readerName(r) {
  const first = r.at[0], last = r.at[r.at.length - 1];
  return first.startsWith("R") ? `reader ${r.reader}: rack ${first.slice(1).split(".")[0]}` : `reader ${r.reader}: ${first}–${last}`;
}

function panelImage(key, panel) {
  const img = el("img", "panel off");
  img.alt = key === "table" ? "the display" : `seat ${Number(key) + 1}'s display`;
  img.dataset.panel = key;
  img.dataset.width = panel.width;
  img.dataset.height = panel.height;
  return img;
}

// Each panel pixel is a square of whole device pixels (so a one-pixel stroke is as thick
// everywhere): k device pixels, k/devicePixelRatio CSS pixels; the border lies outside
// (content-box). The largest such scale is taken at which the page fits the window's
// width; a narrower window gets the next smaller whole scale.
let panelLevel = 0;

function panelScale(width, level) {
  const ratio = window.devicePixelRatio || 1;
  const css = Math.max(1, (SCALE[width] || 2) - level);
  return Math.max(1, Math.round(css * ratio));
}

function sizePanels(level) {
  const ratio = window.devicePixelRatio || 1;
  for (const img of document.querySelectorAll("img.panel")) {
    const w = Number(img.dataset.width), h = Number(img.dataset.height);
    const k = panelScale(w, level);
    img.dataset.scale = k;
    img.style.width = `${(w * k) / ratio}px`;
    img.style.height = `${(h * k) / ratio}px`;
  }
}

function fitPanels() {
  const most = Math.max(...Object.values(SCALE)) - 1;
  // too wide: the page sticks out sideways, or the bag and buttons (the aside) are pushed
  // below the table, where a tile cannot be dragged from the bag to a rack in one go
  const tooWide = () => document.scrollingElement.scrollWidth > window.innerWidth
    || $("aside").getBoundingClientRect().top >= $("#table").getBoundingClientRect().bottom;
  panelLevel = 0;
  sizePanels(panelLevel);
  while (panelLevel < most && tooWide()) sizePanels(++panelLevel);
  play.panelLevel = panelLevel;
  snapPanels();
}
window.addEventListener("resize", fitPanels);

// A panel centred in its box may start between two device pixels; it is moved back onto
// whole ones (each panel pixel then covers the same device pixels as in the frame scaled up).
function snapPanels() {
  const ratio = window.devicePixelRatio || 1;
  for (const img of document.querySelectorAll("img.panel")) {
    img.style.left = img.style.top = "0px";
    const r = img.getBoundingClientRect();
    const off = (v) => (v * ratio - Math.floor(v * ratio + 1e-6)) / ratio;
    img.style.left = `${-off(r.left + img.clientLeft + window.scrollX)}px`;
    img.style.top = `${-off(r.top + img.clientTop + window.scrollY)}px`;
  }
}

function buildBoard(msg) {
  const board = $("#board");
  board.replaceChildren();
  const cols = "ABCDEFGHIJKLMNO";
  for (let row = 0; row < msg.size; row++) {
    for (let col = 0; col < msg.size; col++) {
      const name = cols[col] + (row + 1);
      const cell = el("div", "cell");
      cell.dataset.loc = name;
      const premium = PREMIUM[msg.premiums[row * msg.size + col]];
      if (premium) {
        cell.classList.add(premium[0]);
        cell.append(el("span", "label", premium[1]));
      }
      if (name === "H8") cell.classList.add("centre");
      board.append(cell);
    }
  }
}

function buildSeats(msg) {
  for (let area = 1; area <= 4; area++) $(`#seat-area-${area}`).replaceChildren();
  msg.names.forEach((name, i) => {
    const seat = i + 1;
    const box = el("div", "seat");
    box.dataset.seat = seat;
    if (msg.panel.seat_panels) box.append(panelImage(String(i), msg.panel));
    const body = el("div", "seat-body");
    box.append(body);
    const head = el("div", "seat-head");
    head.append(el("span", "name", `${seat}. ${name}`), el("span", "score", ""));
    body.append(head);
    const rack = el("div", "rack");
    for (let s = 1; s <= msg.slots; s++) {
      const slot = el("div", "slot");
      slot.dataset.loc = `R${seat}.${s}`;
      rack.append(slot);
    }
    body.append(rack);
    const keys = msg.keys.seats[String(seat)];
    const buttons = el("div", "buttons");
    for (const [role, label] of [["done", "Done"], ["challenge", "Challenge"]]) {
      const b = el("button", `btn ${role}`, label);
      b.type = "button";
      b.dataset.button = role;
      b.dataset.seat = seat;
      b.append(el("kbd", "", keys[role].toUpperCase()));
      buttons.append(b);
    }
    body.append(buttons);
    $(`#seat-area-${seat}`).append(box);
  });
}

function buildBag(msg) {
  const bag = $("#bag");
  bag.replaceChildren();
  for (const [letter, info] of Object.entries(msg.letters)) {
    const t = el("div", "tile");
    t.dataset.letter = letter;
    t.append(el("span", "", letter), el("span", "value", info.value), el("span", "count", ""));
    t.title = letter === "?" ? "a blank" : letter;
    bag.append(t);
  }
}

// --- what the board and the service say ---------------------------------------------------------------

function drawStatus() {
  const s = play.status;
  const service = { running: ["service: running", "ok"], starting: ["service: starting…", "warn"],
    off: ["service: no power", "bad"], stopping: [over() ? "service: game over, stopping" : "service: stopping", "warn"],
    ended: [over() ? "service: game over, stopped" : "service: stopped", "warn"], failed: ["service: failed", "bad"] }[s.service] || [s.service, ""];
  setChip("#status-service", service[0], service[1]);
  if (s.detail) note(s.detail, s.service === "failed");
  const away = play.view && play.view.away;
  setChip("#status-board", s.plugged ? (s.dead.length ? `board: reader ${s.dead.join(", ")} dead` : "board: plugged in") : "board: unplugged",
    s.plugged ? (s.dead.length ? "warn" : "ok") : "bad");
  const lit = ["running", "stopping", "ended"].includes(s.service);
  for (const img of document.querySelectorAll("img.panel")) img.classList.toggle("off", !lit);
}

function over() {
  return Boolean(play.view && play.view.phase === "over");
}

function tileOf(uid) {
  return play.hello && play.hello.tiles[uid];
}

function tileElement(uid, loc) {
  const info = tileOf(uid);
  const t = el("div", "tile");
  const committed = play.view && play.view.board[loc];
  t.dataset.uid = uid;
  t.dataset.from = loc;
  if (!info) {
    t.append(el("span", "", "✕"));
    t.title = `an unknown tag ${uid}`;
    return t;
  }
  t.dataset.name = info.name;
  const named = committed && committed.blank;
  t.append(el("span", info.letter === "?" ? "unnamed" : "", info.letter === "?" ? (named ? "" : "?") : info.letter),
    el("span", "value", info.letter === "?" ? "" : info.value));
  t.title = info.name;
  if (info.letter === "?") {
    t.classList.add("blank");
    if (committed && committed.blank) {
      t.append(el("span", "given", committed.letter));
      t.title = `a blank, played as ${committed.letter}`;
    } else {
      t.title = "a blank";
    }
  }
  return t;
}

function drawTiles() {
  if (!play.hello) return;
  const view = play.view;
  const reads = view ? view.reads : {};
  const watching = play.status && play.status.service === "running" && play.status.plugged;
  const fix = new Set(view ? [...view.to_remove, ...view.to_place] : []);
  const asked = (view && view.asked) || {};
  const dead = new Set(view ? view.dead.flatMap((d) => d.at) : []);
  for (const spot of document.querySelectorAll("#board .cell, .rack .slot")) {
    const loc = spot.dataset.loc;
    const uid = play.tags[loc];
    const committed = view && view.board[loc];
    const read = watching && view ? reads[loc] || "" : "-";
    // redrawn only when what it shows changed (a tile being grabbed stays where it is)
    const sig = [uid || "", read, committed ? committed.letter + committed.blank : "", fix.has(loc), dead.has(loc),
      asked[loc] || ""].join("|");
    if (spot.dataset.sig === sig) continue;
    spot.dataset.sig = sig;
    spot.querySelectorAll(".tile").forEach((t) => t.remove());
    spot.classList.toggle("has-tile", Boolean(uid));
    spot.classList.toggle("fix", fix.has(loc));
    spot.classList.toggle("dead", dead.has(loc));
    spot.title = dead.has(loc) ? "its reader does not answer" : "";
    if (uid) {
      const t = tileElement(uid, loc);
      if (!loc.startsWith("R") && view && !committed) t.classList.add("pending");
      if (watching && view && reads[loc] !== uid) {
        t.classList.add("unread");
        t.title += " — the board controller does not read it here (yet)";
      }
      spot.append(t);
    } else if (asked[loc]) {
      spot.append(askedTile(asked[loc], committed));
    } else if (watching && reads[loc]) {
      const ghost = el("div", "tile ghost", "!");
      ghost.title = `the controller reads ${reads[loc]} here`;
      spot.append(ghost);
    }
  }
  $("#lay-back").disabled = !view || !(Object.keys(asked).length || missingRackTiles(view));
  let total = 0;
  for (const t of document.querySelectorAll("#bag .tile")) {
    const n = play.bag[t.dataset.letter] || 0;
    total += n;
    $(".count", t).textContent = n;
    t.classList.toggle("none", n === 0);
  }
  $("#bag-count").textContent = `(${total} tiles)`;
}

// The very tile the service asks back on a cell (a restart on its journal): its letter (a
// blank: "?" and the letter it was given) and its name, dashed; drop that letter from the bag
// on it, or lay every tile back with one click.
function askedTile(uid, committed) {
  const info = tileOf(uid) || { letter: "?", name: uid, value: "" };
  const t = el("div", "tile asked");
  t.dataset.asked = uid;
  t.dataset.name = info.name;
  t.append(el("span", "", info.letter), el("span", "value", info.letter === "?" ? "" : info.value));
  if (info.letter === "?" && committed && committed.blank) t.append(el("span", "given", committed.letter));
  t.title = `the service asks for ${info.name} here: drag a${info.letter === "?" ? " blank" : "n " + info.letter}`
    + " from the bag onto it, or lay the tiles back";
  return t;
}

function missingRackTiles(view) {
  const lying = new Set(Object.values(play.tags));
  return (view.rack_tags || []).some((rack) => rack.some((uid) => !lying.has(uid)));
}

function drawSheet() {
  const view = play.view;
  if (!view || !play.hello) return;
  const body = $("#scores tbody");
  body.replaceChildren();
  view.names.forEach((name, i) => {
    const tr = el("tr");
    tr.dataset.seat = i + 1;
    tr.classList.toggle("to-move", view.turn === i);
    const score = view.scores ? view.scores[i] : "";
    const rack = view.racks ? `${view.racks[i]} on the rack` : "";
    tr.append(el("td", "name", name), el("td", "rack-count", rack), el("td", "score", String(score)));
    body.append(tr);
    const seat = $(`.seat[data-seat="${i + 1}"]`);
    if (seat) {
      seat.classList.toggle("to-move", view.turn === i);
      $(".score", seat).textContent = view.scores ? `${view.scores[i]} points` : "";
    }
  });
  const bits = [`phase: ${view.phase}`];
  if (view.bag !== null) bits.push(`bag: ${view.bag}`);
  if (view.window) bits.push(`challenge window: ${view.window.left_s} s`);
  if (view.paused) bits.push("paused");
  if (view.away) bits.push(`board away: ${view.away}`);
  for (const d of view.dead) bits.push(`reader ${d.reader} does not answer`);
  if (view.mode !== "idle") bits.push(view.mode);
  $("#game-state").textContent = bits.join(" · ");
  snapPanels(); // (the text may have moved the seats)
  const tally = $("#tally");
  tally.hidden = !view.tally;
  if (view.tally) {
    const table = el("table");
    const head = el("tr");
    for (const h of ["", "game", "rack", "final"]) head.append(el("th", "", h));
    table.append(head);
    view.tally.rows.forEach((r, i) => {
      const tr = el("tr", view.tally.winners.includes(i) ? "winner" : "");
      tr.dataset.seat = i + 1;
      tr.append(el("td", "", r.name + (view.tally.winners.includes(i) ? " ★" : "")), el("td", "", r.score),
        el("td", "", (r.rack_adjustment > 0 ? "+" : "") + r.rack_adjustment), el("td", "final", r.final));
      table.append(tr);
    });
    tally.replaceChildren(el("h2", "", `Tally (${view.tally.termination})`), table);
  }
}

function onFrame(msg) {
  const key = msg.panel === null ? "table" : String(msg.panel);
  const img = document.querySelector(`img.panel[data-panel="${key}"]`);
  if (!img) return;
  const src = `data:image/png;base64,${msg.png}`;
  const shown = new Image();
  shown.src = src;
  shown.decode().then(() => {
    img.src = src;
    img.classList.remove("off");
    play.frames++;
    play.shownAt[key] = msg.at;
    play.shown[key] = msg;
    if (msg.replay) return; // shown again to a new page: no frame-to-page latency
    const now = (performance.timeOrigin + performance.now()) / 1000;
    play.latencies.push(now - msg.at);
    if (play.latencies.length > 5000) play.latencies.shift();
  }).catch(() => note("a frame could not be shown", true));
}

// --- the buttons: click = press, hold = long press; keys per seat ---------------------------------------

const held = new Map(); // "seat/button" -> [element, when pressed]
const MIN_PRESS_MS = 150; // a click is a press of a finger: longer than the buttons' debounce

function buttonMessage(b, down) {
  const m = { type: "button", button: b.dataset.button, down };
  if (b.dataset.seat) m.seat = Number(b.dataset.seat);
  return m;
}

function press(b) {
  const key = `${b.dataset.seat || ""}/${b.dataset.button}`;
  if (held.has(key)) return;
  held.set(key, [b, performance.now()]);
  b.classList.add("down");
  send(buttonMessage(b, true));
}

function release(b) {
  const key = `${b.dataset.seat || ""}/${b.dataset.button}`;
  if (!held.has(key)) return;
  const since = performance.now() - held.get(key)[1];
  held.delete(key);
  const up = () => { b.classList.remove("down"); send(buttonMessage(b, false)); };
  if (since < MIN_PRESS_MS) setTimeout(up, MIN_PRESS_MS - since); else up();
}

function releaseAll() {
  for (const [b] of [...held.values()]) release(b);
}

document.addEventListener("pointerdown", (ev) => {
  const b = ev.target.closest(".btn");
  if (!b) return;
  ev.preventDefault();
  b.setPointerCapture(ev.pointerId);
  press(b);
});
for (const type of ["pointerup", "pointercancel"]) {
  document.addEventListener(type, (ev) => {
    const b = ev.target.closest && ev.target.closest(".btn");
    if (b) release(b);
  });
}
window.addEventListener("blur", releaseAll);

function buttonForKey(key) {
  if (!play.hello) return null;
  key = key.toLowerCase();
  if (key === play.hello.keys.menu) return $('.btn[data-button="menu"]');
  for (const [seat, keys] of Object.entries(play.hello.keys.seats)) {
    for (const role of ["done", "challenge"]) {
      if (keys[role] === key) return $(`.btn[data-seat="${seat}"][data-button="${role}"]`);
    }
  }
  return null;
}
document.addEventListener("keydown", (ev) => {
  if (ev.repeat || ev.ctrlKey || ev.metaKey || ev.altKey || ev.target.matches("select, input")) return;
  const b = buttonForKey(ev.key);
  if (b) { ev.preventDefault(); press(b); }
});
document.addEventListener("keyup", (ev) => {
  const b = buttonForKey(ev.key);
  if (b) release(b);
});

// --- the tiles: drag and drop ------------------------------------------------------------------------

let drag = null;

function dropTarget(x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under) return null;
  const spot = under.closest("[data-loc]");
  if (spot) return { loc: spot.dataset.loc, node: spot };
  const bag = under.closest("#bag-box");
  if (bag) return { loc: "bag", node: bag };
  return null;
}

document.addEventListener("pointerdown", (ev) => {
  if (ev.button !== 0) return;
  const tile = ev.target.closest(".tile");
  if (!tile || tile.classList.contains("ghost") || tile.classList.contains("asked") || tile.classList.contains("dragging")) return;
  let source;
  if (tile.dataset.from) source = { from: tile.dataset.from };
  else if (tile.id === "bag-blind") source = { draw: null };
  else if (tile.dataset.letter && !tile.classList.contains("none")) source = { draw: tile.dataset.letter };
  else return;
  ev.preventDefault();
  const ghost = tile.cloneNode(true);
  ghost.classList.add("dragging");
  ghost.removeAttribute("id");
  document.body.append(ghost);
  drag = { source, ghost, target: null };
  moveDrag(ev);
});

function moveDrag(ev) {
  if (!drag) return;
  drag.ghost.style.left = `${ev.clientX - 16}px`;
  drag.ghost.style.top = `${ev.clientY - 16}px`;
  const target = dropTarget(ev.clientX, ev.clientY);
  if (drag.target && (!target || target.node !== drag.target.node)) drag.target.node.classList.remove("target");
  if (target) target.node.classList.add("target");
  drag.target = target;
}
document.addEventListener("pointermove", moveDrag);

document.addEventListener("pointerup", (ev) => {
  if (!drag) return;
  const { source, ghost } = drag;
  const target = dropTarget(ev.clientX, ev.clientY);
  if (drag.target) drag.target.node.classList.remove("target");
  ghost.remove();
  drag = null;
  if (!target) return;
  if ("draw" in source) {
    if (target.loc === "bag") return;
    send({ type: "draw", to: target.loc, letter: source.draw });
  } else if (target.loc !== source.from) {
    send({ type: "move", from: source.from, to: target.loc });
  }
});
document.addEventListener("pointercancel", () => {
  if (!drag) return;
  if (drag.target) drag.target.node.classList.remove("target");
  drag.ghost.remove();
  drag = null;
});

// --- faults --------------------------------------------------------------------------------------

const faults = {
  "#fault-unplug": () => ({ type: "fault", fault: "unplug" }),
  "#fault-plug": () => ({ type: "fault", fault: "plug" }),
  "#fault-reboot": () => ({ type: "fault", fault: "reboot" }),
  "#fault-kill-reader": () => ({ type: "fault", fault: "kill-reader", reader: Number($("#reader-select").value) }),
  "#fault-revive-reader": () => ({ type: "fault", fault: "revive-reader", reader: Number($("#reader-select").value) }),
  "#fault-power": () => ({ type: "fault", fault: "power" }),
  "#lay-back": () => ({ type: "lay-back" }),
};
for (const [sel, make] of Object.entries(faults)) {
  $(sel).addEventListener("click", () => {
    const m = make();
    note(`you: ${m.fault || m.type}${m.reader !== undefined ? " " + m.reader : ""}`);
    send(m);
  });
}

connect();
