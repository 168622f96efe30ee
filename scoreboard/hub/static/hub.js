// The hub's pages: venue, table, standings, overlay. One WebSocket; the server pushes, nothing polls.
"use strict";

const PAGE = document.body.className;
const TABLE = PAGE === "table" || PAGE === "overlay" ? decodeURIComponent(location.pathname.split("/").pop()) : null;
const tables = new Map();   // table name -> {summary, arrived}
let hello = null;
// every record a push brought, once drawn: {table, seq, committed, arrived} (the bench and the tests read it)
window.hubTaken = [];

const PREMIUM = (() => {
  // the standard 15x15 layout: TW, DW, TL, DL (one quarter, mirrored)
  const q = {
    TW: ["A1", "A8", "H1"], DW: ["B2", "C3", "D4", "E5", "H8"], TL: ["B6", "F2", "F6"],
    DL: ["A4", "C7", "D1", "D8", "G3", "G7", "H4"],
  };
  const out = {};
  for (const [kind, list] of Object.entries(q)) {
    for (const sq of list) {
      const c = sq.charCodeAt(0) - 65, r = parseInt(sq.slice(1), 10) - 1;
      for (const [cc, rr] of [[c, r], [14 - c, r], [c, 14 - r], [14 - c, 14 - r], [r, c], [14 - r, c], [r, 14 - c], [14 - r, 14 - c]]) {
        out[String.fromCharCode(65 + cc) + (rr + 1)] = kind;
      }
    }
  }
  return out;
})();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function clockText(seconds) {
  const neg = seconds < 0, s = Math.floor(Math.abs(seconds));
  return (neg ? "-" : "") + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function clockOf(entry, seat) {
  const state = entry.summary.state;
  if (!state || !state.clock) return null;
  const c = state.clock;
  let used = c.used[seat] || 0;
  // (age: how long before the cutoff the state came; then the time since it was pushed)
  if (c.running === seat) used += (state.age || 0) + (performance.now() - entry.arrived) / 1000;
  return c.limit != null ? clockText(c.limit - used) : clockText(used);
}

function players(entry, big) {
  const { summary } = entry;
  const game = summary.game, state = summary.state;
  const names = game ? game.names : state ? state.names : [];
  const scores = game ? game.scores : state ? state.scores || [] : [];
  const turn = game ? game.turn : state ? state.turn : null;
  const list = el("ol", { class: "players" + (big ? " big" : "") });
  names.forEach((name, i) => {
    const clock = clockOf(entry, i);
    list.append(el("li", { class: i === turn ? "turn" : "" },
      el("span", { class: "name", text: name }),
      el("span", { class: "score", text: String(scores[i] ?? "") }),
      clock ? el("span", { class: "clock", "data-seat": String(i), text: clock }) : null,
      game && game.racks ? el("span", { class: "rack", text: game.racks[i] }) : null));
  });
  return list;
}

function status(summary) {
  const online = summary.online;
  const game = summary.game, state = summary.state;
  // never: a table of the event the hub has not heard from (its board never reached the broker)
  const what = summary.never ? "never" : online === true ? "online" : online === false ? "offline" : "unknown";
  const phase = game && game.over ? "over" : state ? state.phase : "";
  const text = what === "never" ? "never connected" : what;
  return el("span", { class: "status " + what, text: text + (phase ? " · " + phase : "") });
}

function lastPlay(game) {
  if (!game || !game.last) return el("p", { class: "last", text: "No play yet" });
  const l = game.last;
  return el("p", { class: "last" },
    el("strong", { text: `${game.names[l.player]}: ${l.word}` }), ` at ${l.position}, ${l.score} points`,
    l.words.length > 1 ? ` (${l.words.join(", ")})` : "", l.bingo ? " — bingo!" : "");
}

function board(game) {
  const grid = el("div", { class: "board" });
  const tiles = game ? game.board : {};
  for (let r = 1; r <= 15; r++) {
    for (let c = 0; c < 15; c++) {
      const sq = String.fromCharCode(65 + c) + r;
      const tile = tiles[sq];
      const cell = el("div", { class: "cell " + (PREMIUM[sq] || ""), "data-square": sq });
      if (tile) {
        cell.classList.add("tile");
        if (tile.blank) cell.classList.add("blank");
        cell.textContent = tile.letter;
      }
      grid.append(cell);
    }
  }
  return grid;
}

function flags(game) {
  if (!game || !game.flags || !game.flags.length) return null;
  return el("ul", { class: "flags" }, ...game.flags.map((f) => el("li", { text: "⚠ " + f })));
}

function venueCard(entry) {
  const { summary } = entry;
  return el("article", { class: "card", id: "t-" + summary.table },
    el("h2", {}, el("a", { href: "/tables/" + encodeURIComponent(summary.table), text: summary.table }), " ", status(summary)),
    players(entry, false), flags(summary.game) || "");
}

function renderVenue(main, changed) {
  // only the cards of the tables that changed are made anew (a venue has hundreds)
  let grid = main.querySelector("section.tables");
  if (!grid) { grid = el("section", { class: "tables" }); main.replaceChildren(grid); }
  for (const name of changed) {
    const card = venueCard(tables.get(name));
    const old = document.getElementById("t-" + name);
    if (old) { old.replaceWith(card); continue; }
    const after = [...grid.children].find((c) => c.id.slice(2) > name);
    grid.insertBefore(card, after || null);
  }
}

function renderTable(main) {
  const entry = tables.get(TABLE);
  if (!entry) { main.replaceChildren(el("p", { text: `Nothing from ${TABLE} yet.` })); return; }
  const { summary } = entry;
  const game = summary.game, state = summary.state;
  const side = el("aside", {},
    el("h2", {}, summary.table + " ", status(summary)),
    players(entry, true), lastPlay(game));
  if (state && state.challenge) side.append(el("p", { class: "challenge", text: "Challenge in progress" }));
  else if (state && state.window) side.append(el("p", { class: "window", text: "Challenge window open" }));
  if (game) {
    side.append(el("p", { class: "bag", text: `Bag: ${game.bag}` }));
    side.append(el("p", { class: "unseen" }, el("span", { text: "Unseen: " }), el("code", { text: game.unseen })));
    if (game.tally) side.append(el("p", { class: "tally", text: "Final: " + game.tally.rows.map((r) => `${r.name} ${r.final}`).join(", ") }));
    side.append(el("p", {}, el("a", { href: `/games/${game.key}.gcg`, text: "GCG" })));
  }
  const flagged = flags(game);
  if (flagged) side.append(flagged);
  main.replaceChildren(el("section", { class: "table-view" }, board(game), side));
}

function renderOverlay(main) {
  const entry = tables.get(TABLE);
  if (!entry) { main.replaceChildren(); return; }
  main.replaceChildren(players(entry, true), lastPlay(entry.summary.game));
}

function renderStandings(main, message) {
  const rows = message.standings.map((r, i) => el("tr", {},
    el("td", { text: String(i + 1) }), el("td", { text: r.name }), el("td", { text: String(r.games) }),
    el("td", { text: String(r.wins) }), el("td", { text: (r.spread > 0 ? "+" : "") + r.spread })));
  const table = el("table", { class: "ranking" },
    el("thead", {}, el("tr", {}, ...["#", "Player", "Games", "Wins", "Spread"].map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows));
  const games = el("ul", { class: "games" }, ...message.games.map((g) => el("li", {},
    el("a", { href: g.gcg, text: g.key }), ` ${g.names.map((n, i) => n + " " + g.scores[i]).join(" – ")}${g.over ? " (final)" : ""}`)));
  main.replaceChildren(table, el("h2", { text: "Games" }), games);
}

// what arrived since the last frame drawn: the tables changed and their records (seq, committed)
let changed = new Set(), pending = [], drawing = false;

function render() {
  drawing = false;
  const main = document.getElementById("main");
  if (PAGE === "venue") renderVenue(main, [...changed].sort());
  else if (PAGE === "table") renderTable(main);
  else if (PAGE === "overlay") renderOverlay(main);
  changed = new Set();
  const now = Date.now() / 1000;  // each record is on the page from now on
  for (const [table, seq, committed] of pending) window.hubTaken.push({ table, seq, committed, arrived: now });
  pending = [];
  if (window.hubTaken.length > 100000) window.hubTaken.splice(0, 50000);
}

function schedule() {
  if (!drawing) { drawing = true; requestAnimationFrame(render); }
}

function tickClocks() {
  for (const node of document.querySelectorAll(".clock[data-seat]")) {
    const entry = tables.get(TABLE) || tables.get(node.closest("article")?.id.slice(2));
    if (!entry) continue;
    const text = clockOf(entry, parseInt(node.dataset.seat, 10));
    if (text) node.textContent = text;
  }
}

function connect() {
  const conn = document.getElementById("conn");
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => { ws.send(JSON.stringify({ page: PAGE, table: TABLE })); conn.textContent = "live"; conn.className = "conn live"; };
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const arrived = performance.now();
    if (message.type === "hello") {
      hello = message;
      const title = PAGE === "venue" ? message.event : PAGE === "standings" ? message.event + ": standings" : TABLE;
      document.getElementById("title").textContent = title + (message.delay ? ` (${message.delay} s delay)` : "");
      document.title = title;
    } else if (message.type === "table") {
      const name = message.summary.table;
      tables.set(name, { summary: message.summary, arrived });
      changed.add(name);
      for (const [seq, committed] of message.taken) pending.push([name, seq, committed]);
      schedule();
    } else if (message.type === "standings") {
      renderStandings(document.getElementById("main"), message);
    }
  };
  ws.onclose = () => { conn.textContent = "reconnecting…"; conn.className = "conn"; setTimeout(connect, 1000); };
}

setInterval(tickClocks, 1000);
connect();
