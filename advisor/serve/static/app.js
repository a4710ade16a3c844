// The advisor's page: the list of games, a new game's form, and a followed game (the question with
// its options as buttons, undo, "what now?" streamed from the server, the table to look at).
// Everything is drawn from the server's JSON; the game lives on the server (saved after every entry),
// so a reload shows the same point.
"use strict";

const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("token", params.get("token"));
const token = sessionStorage.getItem("token");
const $ = (id) => document.getElementById(id);
let current = null;        // the game's state as last shown
let events = null;         // the search's event stream

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Token"] = token;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new Error("the server cannot be reached: " + e.message);
  }
  let data = null;
  try { data = await response.json(); } catch (e) { /* not JSON */ }
  if (!response.ok) throw new Error((data && data.error) || `the server answered ${response.status}`);
  return data;
}

function pct(x) { return x === null || x === undefined ? "?" : `${Math.round(x * 100)}%`; }

// ---------------------------------------------------------------------------- routing
function route() {
  clearTimeout(waiting);
  const m = location.hash.match(/^#\/game\/([0-9a-f]{12})$/);
  closeEvents();
  showError("");
  if (m) openGame(m[1]); else openHome();
}
window.addEventListener("hashchange", route);

// ---------------------------------------------------------------------------- home
async function openHome() {
  current = null;
  $("game").hidden = true;
  $("start").hidden = false;
  $("where").textContent = "";
  drawNames();
  try {
    const { games } = await api("GET", "/api/games");
    const list = $("games");
    list.replaceChildren();
    if (!games.length) list.append(el("li", { class: "small" }, "No games yet."));
    for (const g of games) {
      const when = new Date(g.updated * 1000).toLocaleString();
      list.append(el("li", {},
        el("button", { class: "resume", type: "button", onclick: () => { location.hash = `#/game/${g.id}`; } },
          `${g.mode === "play" ? "Playing: " : ""}${g.names.join(", ")} — round ${g.round}${g.over ? ", over" : ""}`,
          el("div", { class: "small" }, `${g.about} · ${g.entries} entries · ${when}`)),
        el("button", { type: "button", "aria-label": "delete", onclick: () => removeGame(g) }, "✕")));
    }
  } catch (e) { showError(e.message); }
}

async function removeGame(g) {
  if (!confirm(`Delete the game of ${g.names.join(", ")}?`)) return;
  try { await api("DELETE", `/api/games/${g.id}`); openHome(); } catch (e) { showError(e.message); }
}

function drawNames() {
  const n = Number($("players").value);
  const box = $("names");
  const old = [...box.querySelectorAll("input[type=text]")].map((i) => i.value);
  const mine = box.querySelector("input[type=radio]:checked");
  const viewer = mine ? Math.min(Number(mine.value), n - 1) : 0;
  box.replaceChildren(el("legend", {}, n === 1 ? "Your name" : "Names in turn order (tap yours)"));
  for (let i = 0; i < n; i++) {
    box.append(el("div", { class: "name-row" },
      el("input", { type: "radio", name: "viewer", value: i, checked: i === viewer, "aria-label": `I am player ${i + 1}`,
                    hidden: n === 1 }),
      el("input", { type: "text", name: `name${i}`, value: old[i] || (i === 0 ? "Me" : `P${i + 1}`),
                    maxlength: 24, "aria-label": `name of player ${i + 1}` })));
  }
  $("solo-row").hidden = n !== 1;
  $("opponent-row").hidden = mode() !== "play" || n === 1;
}
$("players").addEventListener("change", drawNames);
for (const r of document.querySelectorAll("input[name=mode]")) r.addEventListener("change", drawNames);
function mode() { return document.querySelector("input[name=mode]:checked").value; }

$("new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const n = Number($("players").value);
  const names = [...$("names").querySelectorAll("input[type=text]")].map((i) => i.value.trim());
  const mine = $("names").querySelector("input[type=radio]:checked");
  const body = { mode: mode(), players: n, names, viewer: mine ? Number(mine.value) : 0, printing: $("printing").value };
  if (n === 1) body.solo_level = $("solo-level").value;
  else if (body.mode === "play") body.opponent = $("opponent").value;
  try {
    const state = await api("POST", "/api/games", body);
    current = state;
    location.hash = `#/game/${state.id}`;
  } catch (e) { showError(e.message); }
});

// ---------------------------------------------------------------------------- a game
async function openGame(id) {
  $("start").hidden = true;
  $("game").hidden = false;
  try {
    const state = await api("GET", `/api/games/${id}`);
    draw(state);
    if (state.search && !state.search.done) follow(state);
    else if (state.search && state.search.at === state.question?.history) drawSearch(state.search);
  } catch (e) { showError(e.message); }
}

let waiting = null;         // the poll while the AI seats decide

function draw(state) {
  current = state;
  clearTimeout(waiting);
  if (state.thinking) {
    waiting = setTimeout(async () => {
      try { if (current && current.id === state.id) draw(await api("GET", `/api/games/${state.id}`)); }
      catch (e) { showError(e.message); }
    }, 400);
  }
  if (state.ai_error) showError(state.ai_error);
  const q = state.question;
  const t = state.table;
  $("where").textContent = t.over ? "game over" : `round ${t.round} · ${state.names[state.viewer]}`;
  $("undo").disabled = !state.can_undo;
  $("what-now").disabled = !(q && q.you && q.count > 1);
  $("suggestion").hidden = true;
  $("review").hidden = !t.over;             // a game played here or followed from the table
  if (!$("review").hidden && state.search && state.search.total) drawReview(state.search);
  drawQuestion(q);
  drawTable(state);
}

function drawQuestion(q) {
  const box = $("question");
  box.replaceChildren();
  if (!q && current.thinking) {
    box.append(el("div", { class: "about", id: "about" }, `${current.names[current.decider] || "the AI"} is thinking…`));
    return;
  }
  if (!q) {
    const s = current.table.seats.map((p) => `${p.name} ${p.score}`).join(", ");
    box.append(el("div", { class: "about" }, "The game is over"), el("div", {}, `Final scores: ${s}`));
    return;
  }
  const who = q.chance ? "the table shows" : q.you ? "your decision" : `${q.name}'s decision`;
  box.append(el("div", { class: "who" }, who), el("div", { class: "about", id: "about" }, q.about));
  if (q.asker && q.asker.text) box.append(el("div", { class: "asker small", id: "asker" }, q.asker.text));
  let filter = null;
  if (q.count > 12) {
    filter = el("input", { type: "search", id: "filter", placeholder: `search ${q.count} answers`,
                           "aria-label": "search the answers", autocomplete: "off" });
    box.append(filter);
  }
  for (const g of q.groups) {
    const options = el("div", { class: q.count > 12 ? "options long" : "options" });
    for (const o of g.options) {
      options.append(el("button", { type: "button", class: q.forced ? "primary" : "", "data-action": o.action,
                                    onclick: () => answer(o.action) }, q.forced ? `OK: ${o.text}` : o.text));
    }
    const head = g.search_only ? `${g.kind}: type a name above to find one (${g.options.length})` : g.kind;
    box.append(el("div", { class: g.search_only ? "group search-only" : "group" },
      q.groups.length > 1 ? el("h4", {}, head) : null, options));
  }
  for (const b of box.querySelectorAll(".search-only .options button")) b.classList.add("hidden-by-filter");
  if (filter) {
    filter.addEventListener("input", () => {
      const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (const b of box.querySelectorAll(".options button")) {
        const text = b.textContent.toLowerCase();
        const searchOnly = b.closest(".search-only") !== null;
        b.classList.toggle("hidden-by-filter", (searchOnly && !words.length) || !words.every((w) => text.includes(w)));
      }
      for (const grp of box.querySelectorAll(".group")) {       // a group with nothing left shows no heading
        grp.hidden = !grp.classList.contains("search-only") && !grp.querySelector(".options button:not(.hidden-by-filter)");
      }
    });
  }
}

async function act(path, body) {
  closeEvents();
  for (const b of document.querySelectorAll("#question button, #bar button")) b.disabled = true;
  try {
    draw(await api("POST", `/api/games/${current.id}/${path}`, body));
    showError("");
    window.scrollTo({ top: 0 });
  } catch (e) {
    showError(e.message);
    try { draw(await api("GET", `/api/games/${current.id}`)); } catch (e2) { /* the message stays */ }
  }
}

function answer(action) { return act("answer", { action, at: current.question.history }); }
$("undo").addEventListener("click", () => act("undo", current.mode === "play" ? {} : { at: current.question ? current.question.history : undefined }));

// ---------------------------------------------------------------------------- what now?
$("what-now").addEventListener("click", async () => {
  try {
    const search = await api("POST", `/api/games/${current.id}/suggest`, { seconds: Number($("think").value) });
    current.search = search;
    follow(current);
  } catch (e) { showError(e.message); }
});
$("stop").addEventListener("click", async () => {
  try { await api("POST", `/api/games/${current.id}/suggest/stop`); } catch (e) { showError(e.message); }
});

function closeEvents() { if (events) { events.close(); events = null; } }

function follow(state) {
  closeEvents();
  drawSearch(state.search);
  const url = `/api/games/${state.id}/suggest/events` + (token ? `?token=${encodeURIComponent(token)}` : "");
  events = new EventSource(url);
  const onState = (ev) => {
    const s = JSON.parse(ev.data);
    if (current && current.id === state.id) { current.search = s; drawSearch(s); }
    if (s.done) closeEvents();
  };
  events.addEventListener("progress", onState);
  events.addEventListener("ranking", onState);
  events.onerror = () => { if (events && events.readyState === EventSource.CLOSED) closeEvents(); };
}

function drawSearch(s) {
  if (s.total) { drawReview(s); return; }
  $("suggestion").hidden = false;
  $("progress-bar").style.width = `${Math.round(s.progress * 100)}%`;
  $("stop").hidden = s.done;
  $("what-now").disabled = !s.done || !(current.question && current.question.you);
  const r = s.ranking;
  // while the search runs, the ranking so far (it changes as the search goes on); the final one replaces it
  const running = !s.done;
  let line = running ? `searching (${s.seconds} s)…` : "";
  if (s.error) line = s.error;
  else if (r && running) line = `searching (${s.seconds} s): the ranking so far, ${r.iterations} games looked at…`;
  else if (r) line = `${r.iterations} games looked at in ${r.seconds} s` + (r.interrupted ? " (stopped: the ranking so far)" : "");
  $("search-line").textContent = line;
  const list = $("ranking");
  list.replaceChildren();
  list.classList.toggle("interim", Boolean(r && running));
  if (!r) return;
  const stale = running || (current.question && s.at !== current.question.history);
  for (const m of r.moves) {
    const f = m.forecast;
    const win = f ? f.win : m.playouts.win;
    const scores = (f ? f.scores : m.playouts.scores) || [];
    const seats = scores.map((x, i) => `${current.names[i] || "P" + i} ${Math.round(x)}`).join(", ");
    const diff = m.against_best ? Object.entries(m.against_best).filter(([, v]) => Math.abs(v) >= 0.5) : [];
    const cats = m.categories ? Object.entries(m.categories).sort((a, b) => b[1] - a[1]).slice(0, 3) : [];
    const reasons = m === r.moves[0]
      ? cats.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ")
      : diff.map(([k, v]) => `${k} ${v > 0 ? "+" : ""}${v.toFixed(1)}`).join(", ");
    const plan = m.continuation && m.continuation.length ? `then ${m.continuation.join(", ")}` : "";
    list.append(el("li", {},
      el("div", { class: "move" }, m.move),
      el("div", { class: "numbers" }, `win ${pct(win)} · forecast ${seats}`),
      reasons ? el("div", { class: "reasons" }, (m === r.moves[0] ? "points from " : "against the best: ") + reasons) : null,
      plan ? el("div", { class: "reasons" }, plan) : null,
      stale ? null : el("button", { type: "button", class: "play", onclick: () => answer(m.action) }, "Play this")));
  }
}

// ---------------------------------------------------------------------------- review
$("review-start").addEventListener("click", async () => {
  try {
    const search = await api("POST", `/api/games/${current.id}/review`, { seconds: Number($("review-seconds").value) });
    current.search = { ...search, total: 1, verdicts: [] };
    follow(current);
  } catch (e) { showError(e.message); }
});

$("review-stop").addEventListener("click", async () => {
  try { await api("POST", `/api/games/${current.id}/suggest/stop`); } catch (e) { showError(e.message); }
});

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function showVerdict(v) {
  $("verdict").textContent = `Decision ${v.index + 1} (round ${v.round}, ${v.decision}): you played ${v.played}; ` +
    (v.played === v.best ? "the best move." :
      `best ${v.best}, ${v.lost.toFixed(1)} ± ${v.lost_ci.toFixed(1)} points lost` +
      (v.mistake ? " (a mistake: more than its interval)." : " (within the search's noise)."));
}

function drawReview(s) {
  $("review").hidden = false;
  $("review-start").disabled = !s.done;
  $("review-stop").hidden = s.done;
  const vs = s.verdicts || [];
  const sum = s.summary;
  $("review-line").textContent = s.error ? s.error : sum
    ? `${sum.decisions} decisions, ${sum.best_played} as the search's best, ${sum.mistakes} mistakes, ` +
      `${sum.lost} points lost in all. Tap a red point.`
    : `reviewing: ${vs.length} of ${s.total} decisions…`;
  const W = 360, H = 180, pad = 28;
  const xs = vs.map((v) => v.index), ys = vs.flatMap((v) => [v.score, v.opponent]);
  const x0 = Math.min(...xs, 0), x1 = Math.max(...xs, 1), y0 = Math.min(...ys, 40) - 5, y1 = Math.max(...ys, 60) + 5;
  const X = (x) => pad + (x - x0) / (x1 - x0 || 1) * (W - pad - 6);
  const Y = (y) => H - pad + 6 - (y - y0) / (y1 - y0 || 1) * (H - pad);
  const line = (key, colour) => svg("polyline", { points: vs.map((v) => `${X(v.index)},${Y(v[key])}`).join(" "),
    fill: "none", stroke: colour, "stroke-width": 2 });
  const ticks = [y0, (y0 + y1) / 2, y1].map((y) => svg("text", { x: 2, y: Y(y) + 4, "font-size": 10 }, `${Math.round(y)}`));
  const dots = vs.filter((v) => v.mistake).map((v) => svg("circle", {
    cx: X(v.index), cy: Y(v.score), r: 6, fill: "#b3261e", class: "mistake", "data-index": v.index,
    onclick: () => showVerdict(v) }));
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img",
                             "aria-label": "your expected final score and the best opponent's over the game" },
    ...ticks, line("opponent", "#999"), line("score", "#6b3fa0"), ...dots,
    svg("text", { x: pad, y: H - 4, "font-size": 10 }, "your expected score (purple), the best opponent's (grey)"));
  $("graph").replaceChildren(chart);
}

// ---------------------------------------------------------------------------- the table
function cardView(c) {
  if (!c) return el("div", { class: "card small" }, "empty");
  const head = c.kind === "dragon"
    ? `${c.name} · ${c.vp} VP · ${c.size} · ${c.cost} · ${c.caves.join("/")}`
    : c.name;
  return el("div", { class: "card" }, el("div", { class: "name" }, head), el("div", { class: "text" }, c.text));
}

function section(title, open, ...body) {
  return el("details", open ? { open: true } : {}, el("summary", {}, title), ...body);
}

function matView(p) {
  const rows = p.mat.map((row) => el("tr", {},
    el("th", { class: row.cave }, row.cave + (row.explores ? ` ×${row.explores}` : "")),
    row.spaces.map((s) => {
      if (!s.dragon) return el("td", { class: s.open ? "" : "closed" }, s.cave ? s.cave.name : "");
      const bits = [`${s.eggs}/${s.dragon.capacity} eggs`];
      for (const [r, n] of Object.entries(s.cached || {})) bits.push(`${n} ${r}`);
      if (s.tucked) bits.push(`${s.tucked} tucked`);
      if (s.grown) bits.push("grown");
      return el("td", { title: s.dragon.text }, el("b", {}, s.dragon.name), el("div", {}, bits.join(", ")));
    })));
  return el("table", { class: "mat" }, el("tbody", {}, rows));
}

function seatView(p) {
  if (p.automa) {
    return section(`${p.name} (Automa ${p.level}) · ${p.score} VP`, false,
      el("div", { class: "seat-head" },
        `${p.dragons} dragons, ${p.caves} caves, guild ${p.guild_steps}, ${p.markers} markers ready, ` +
        `cards ${p.cards} this round${p.corners.length ? " (" + p.corners.join(", ") + ")" : ""}` +
        `${p.passed ? ", passed" : ""}`));
  }
  const res = Object.entries(p.resources).filter(([, n]) => n).map(([r, n]) => `${n} ${r}`).join(", ") || "no resources";
  const head = `${p.coins} coins, ${res}, nest eggs ${p.nest_eggs}, guild ${p.guild_steps} ` +
    `(${p.markers_left} markers)` + (p.objective_vp.length ? `, objectives ${p.objective_vp.join("/")}` : "") +
    (p.passed ? ", passed" : "");
  const hand = p.you
    ? el("div", {}, el("h3", {}, `Your hand (${p.hand_dragons} dragons, ${p.hand_caves} caves)`),
      el("div", { class: "cards" }, p.hand.map(cardView)))
    : el("div", { class: "small" }, `hand: ${p.hand_dragons} dragons, ${p.hand_caves} caves` +
      (p.hand.length ? ` (known: ${p.hand.map((c) => c.name).join(", ")})` : ""));
  return section(`${p.name}${p.you ? " (you)" : ""} · ${p.score} VP`, p.you,
    el("div", { class: "seat-head" }, head), matView(p), hand);
}

function drawTable(state) {
  const t = state.table;
  const parts = [];
  if (state.log.length) {
    parts.push(section("Last entries", true, el("ol", { class: "plain", id: "log" },
      state.log.map((e) => el("li", {}, el("span", { class: "small" }, e.question + ": "), e.answer)))));
  }
  parts.push(section("Scores", false, el("ul", { class: "plain" },
    t.seats.map((p) => el("li", {}, `${p.name}: ${p.score} VP if the game ended now`)))));
  parts.push(section(`Display · deck ${t.deck.dragons} dragons, ${t.deck.caves} caves`, true,
    el("div", { class: "cards" }, t.display.dragons.map(cardView)),
    el("h3", {}, "Caves"), el("div", { class: "cards" }, t.display.caves.map(cardView))));
  if (t.objectives.length) {
    parts.push(section("Objectives", false, el("ul", { class: "plain" }, t.objectives.map((o) =>
      el("li", {}, `${o.now ? "▶ " : ""}Round ${o.round} (${o.code}, ${o.vp.join("/")} VP): ${o.text}` +
        (o.scored.some((v) => v !== null) ? " — " + o.scored.map((v, i) => `${state.names[i]} ${v}`).join(", ") : ""))))));
  }
  if (t.guild) {
    parts.push(section(`Guild: ${t.guild.name}`, false, el("ul", { class: "plain" }, t.guild.abilities.map((a, i) =>
      el("li", {}, `${i + 1}. ${a.text} [${a.markers.join(", ") || "free"}; ${a.uses} spots]`)))));
  }
  const seats = [...t.seats].sort((a, b) => (b.you ? 1 : 0) - (a.you ? 1 : 0));
  for (const p of seats) parts.push(seatView(p));
  $("table").replaceChildren(...parts);
}

route();
