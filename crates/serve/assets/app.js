// Damas Zero in the browser: three views over the server's JSON API. The board is drawn from
// the geometry the API reports (rows, columns, lines), never from per-variant code here.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 60;
const $ = (id) => document.getElementById(id);

let variants = [];
let players = [];

// ---------------------------------------------------------------- API

async function api(path, body, signal) {
  const options = body === undefined ? { signal } :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal };
  const response = await fetch(path, options);
  const text = await response.text();
  let data;
  try { data = JSON.parse(text); } catch (_) { data = { error: text || response.statusText }; }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

function showError(error) {
  const box = $("error");
  if (!error) { box.hidden = true; return; }
  if (error.name === "AbortError") return;
  box.textContent = String(error.message || error);
  box.hidden = false;
}

const variantNamed = (name) => variants.find((v) => v.name === name);

function fillVariants(select, chosen) {
  select.replaceChildren(...variants.map((v) => {
    const option = new Option(v.name, v.name);
    option.title = v.summary;
    return option;
  }));
  if (chosen) select.value = chosen;
}

// ---------------------------------------------------------------- the board

function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// Draws `variant`'s board with `pieces` into `svg`. Options: flip (Black at the bottom),
// selected (a square), targets (squares), last (a move), marks (squares to ring),
// onSquare(square, event kind).
function drawBoard(svg, variant, pieces, options = {}) {
  const { width, height } = variant;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width * CELL} ${height * CELL}`);
  const place = (info) => {
    const row = options.flip ? height - 1 - info.row : info.row;
    const column = options.flip ? width - 1 - info.column : info.column;
    return { x: column * CELL + CELL / 2, y: row * CELL + CELL / 2 };
  };
  const bySquare = new Map(variant.squares.map((s) => [s.square, s]));
  if (variant.board_of_lines) {
    el("rect", { x: 0, y: 0, width: width * CELL, height: height * CELL, fill: "#ecd9b4" }, svg);
    for (const [a, b] of variant.lines) {
      const p = place(bySquare.get(a)), q = place(bySquare.get(b));
      el("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: "#5b3a1c", "stroke-width": 3 }, svg);
    }
  } else {
    for (let row = 0; row < height; row++) {
      for (let column = 0; column < width; column++) {
        const dark = variant.all_squares ? (row + column) % 2 === 1 : (row + column) % 2 === 1;
        const fill = variant.all_squares ? (dark ? "#d9bf8f" : "#ecd9b4") : (dark ? "#7a4f2a" : "#ecd9b4");
        el("rect", { x: column * CELL, y: row * CELL, width: CELL, height: CELL, fill }, svg);
      }
    }
  }
  const lastSquares = new Set(options.last ? [options.last.from, ...options.last.path] : []);
  const captured = new Set(options.last ? options.last.captured : []);
  const targets = new Set(options.targets || []);
  const marks = new Set(options.marks || []);
  for (const info of variant.squares) {
    const { x, y } = place(info);
    const group = el("g", { class: "sq playable", "data-square": info.square }, svg);
    if (variant.board_of_lines) {
      el("circle", { cx: x, cy: y, r: CELL * 0.42, fill: "transparent" }, group);
      el("circle", { cx: x, cy: y, r: 4, fill: "#5b3a1c" }, group);
    } else {
      el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, fill: "transparent" }, group);
    }
    if (lastSquares.has(info.square)) {
      el("rect", { x: x - CELL / 2 + 2, y: y - CELL / 2 + 2, width: CELL - 4, height: CELL - 4, fill: "rgba(255, 215, 0, 0.35)" }, group);
    }
    if (options.selected === info.square) {
      el("rect", { x: x - CELL / 2 + 2, y: y - CELL / 2 + 2, width: CELL - 4, height: CELL - 4, fill: "none", stroke: "#ffd400", "stroke-width": 4 }, group);
    }
    const label = el("text", { x: x - CELL / 2 + 3, y: y - CELL / 2 + 11, "font-size": 10, fill: variant.all_squares || variant.board_of_lines ? "#6b4b2a" : "#e9d3ad" }, group);
    label.textContent = info.name;
    group.addEventListener("pointerdown", (event) => options.onSquare && options.onSquare(info.square, "down", event));
    group.addEventListener("pointerup", (event) => options.onSquare && options.onSquare(info.square, "up", event));
  }
  for (const piece of pieces) {
    const info = bySquare.get(piece.square);
    if (!info) continue;
    drawPiece(svg, place(info), piece, info.square);
  }
  for (const square of captured) {
    // Where the last move took a piece: a red cross on the emptied square.
    const { x, y } = place(bySquare.get(square));
    const d = CELL * 0.2;
    el("path", { class: "captured", d: `M ${x - d} ${y - d} L ${x + d} ${y + d} M ${x + d} ${y - d} L ${x - d} ${y + d}`,
      stroke: "#d32f2f", "stroke-width": 5, "stroke-linecap": "round", "pointer-events": "none" }, svg);
  }
  for (const square of targets) {
    const { x, y } = place(bySquare.get(square));
    el("circle", { class: "target", cx: x, cy: y, r: CELL * 0.14, fill: "rgba(47, 125, 50, 0.85)", "pointer-events": "none" }, svg);
  }
  for (const square of marks) {
    const { x, y } = place(bySquare.get(square));
    el("circle", { cx: x, cy: y, r: CELL * 0.46, fill: "none", stroke: "#b3261e", "stroke-width": 3, "pointer-events": "none" }, svg);
  }
}

function drawPiece(svg, { x, y }, piece, square) {
  const white = piece.color === "white";
  const fill = white ? "#f8f4ea" : "#1d1d1d";
  const edge = white ? "#555" : "#000";
  const g = el("g", { class: `piece ${piece.color} ${piece.kind}`, "data-square": square,
    "data-x": x, "data-y": y, "pointer-events": "none" }, svg);
  const r = CELL * 0.38;
  if (piece.kind === "parachutist") {
    // A parachutist: a square-cornered piece with a canopy, told apart from men and kings.
    el("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: 6, fill, stroke: edge, "stroke-width": 2 }, g);
    el("path", { d: `M ${x - r * 0.6} ${y + 2} A ${r * 0.6} ${r * 0.6} 0 0 1 ${x + r * 0.6} ${y + 2} Z`, fill: "#c0392b" }, g);
    return;
  }
  el("circle", { cx: x, cy: y + 3, r, fill: "rgba(0,0,0,0.25)" }, g);
  el("circle", { cx: x, cy: y, r, fill, stroke: edge, "stroke-width": 2 }, g);
  el("circle", { cx: x, cy: y, r: r * 0.72, fill: "none", stroke: white ? "#bbb" : "#444", "stroke-width": 2 }, g);
  if (piece.kind === "king") {
    const s = r * 0.5;
    el("path", {
      d: `M ${x - s} ${y + s * 0.6} L ${x - s} ${y - s * 0.5} L ${x - s * 0.5} ${y} L ${x} ${y - s * 0.8} L ${x + s * 0.5} ${y} L ${x + s} ${y - s * 0.5} L ${x + s} ${y + s * 0.6} Z`,
      fill: "#d4a017", stroke: "#7a5a00", "stroke-width": 1.5,
    }, g);
  }
}

// A move list in numbered pairs; `onClick(ply)` with the ply after the clicked move.
function renderMoveList(container, texts, current, onClick) {
  const cells = [];
  texts.forEach((text, i) => {
    if (i % 2 === 0) {
      const num = document.createElement("span");
      num.className = "num";
      num.textContent = `${i / 2 + 1}.`;
      cells.push(num);
    }
    const ply = document.createElement("span");
    ply.className = "ply";
    ply.textContent = text;
    if (i === current - 1) ply.classList.add("current");
    if (onClick) ply.addEventListener("click", () => onClick(i + 1));
    cells.push(ply);
  });
  container.replaceChildren(...cells);
}

// ---------------------------------------------------------------- Play

const play = {
  variant: null, fen: null, moves: [], state: null, selected: null, thinking: null,
  gameId: null, dragFrom: null, flipped: false,
};

function opponentsFor(variantName) {
  return players.filter((p) => !p.variant || p.variant === variantName);
}

function fillOpponents() {
  const select = $("play-opponent");
  const keep = select.value;
  const list = opponentsFor($("play-variant").value);
  select.replaceChildren(...list.map((p) => new Option(p.label, p.id)));
  if (list.some((p) => p.id === keep)) select.value = keep;
}

function stopThinking() {
  if (play.thinking) play.thinking.abort();
  play.thinking = null;
  $("play-status").classList.remove("thinking");
}

async function newGame() {
  stopThinking();
  showError(null);
  play.variant = $("play-variant").value;
  play.fen = $("play-fen").value.trim() || null;
  play.moves = [];
  play.gameId = Math.random().toString(36).slice(2);
  play.selected = null;
  $("play-summary").textContent = variantNamed(play.variant).summary;
  try {
    await setState(await api("/api/state", { variant: play.variant, fen: play.fen, moves: [] }));
  } catch (error) { showError(error); }
}

function humanSide() { return $("play-side").value; }

async function setState(state) {
  play.state = state;
  play.moves = state.history.slice();
  play.selected = null;
  renderPlay();
  if (!state.outcome && state.turn !== humanSide()) await think();
}

function renderPlay() {
  const state = play.state;
  if (!state) return;
  const variant = variantNamed(state.variant);
  const mine = !state.outcome && state.turn === humanSide() && !play.thinking;
  const targets = mine && play.selected !== null ?
    state.legal.filter((m) => m.from === play.selected).map((m) => m.to) : [];
  // When a capture is due, the pieces that can move are ringed.
  const mustCapture = mine && state.legal.some((m) => m.captured.length > 0);
  const movable = mustCapture ? [...new Set(state.legal.map((m) => m.from))] : [];
  drawBoard($("play-board"), variant, state.pieces, {
    flip: (humanSide() === "black") !== play.flipped,
    selected: play.selected, targets, last: state.last,
    marks: play.selected === null ? movable : [],
    onSquare: onPlaySquare,
  });
  const status = $("play-status");
  if (state.outcome) status.textContent = `Game over: ${state.outcome.text} (${state.outcome.result})`;
  else if (play.thinking) status.textContent = `${state.turn} to move: the opponent is thinking`;
  else status.textContent = `${state.turn} to move${mine ? " (you)" : ""}`;
  status.classList.toggle("thinking", !!play.thinking);
  const list = $("play-moves");
  renderMoveList(list, state.history, state.history.length, null);
  list.scrollTop = list.scrollHeight;
  $("play-fen-now").textContent = state.fen;
  $("play-counters").textContent = state.draw_counters.length ?
    "Draw counters: " + state.draw_counters.map((c) => `${c.rule} ${c.count} of ${c.limit}`).join(" · ") : "";
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    $("play-status").title = `${what} copied`;
  } catch (_) {
    // No clipboard (an address that is not this machine's): show it to copy by hand.
    window.prompt(`${what}:`, text);
  }
}

function onPlaySquare(square, kind) {
  const state = play.state;
  if (!state || state.outcome || play.thinking || state.turn !== humanSide()) return;
  const from = state.legal.filter((m) => m.from === square);
  if (kind === "down") {
    if (from.length > 0) { play.selected = square; play.dragFrom = square; renderPlay(); return; }
    if (play.selected !== null) tryMove(play.selected, square);
    return;
  }
  // pointer up: a drag from one square to another is a move.
  if (play.dragFrom !== null && square !== play.dragFrom) tryMove(play.dragFrom, square);
  play.dragFrom = null;
}

function tryMove(from, to) {
  const candidates = play.state.legal.filter((m) => m.from === from && m.to === to);
  const choices = $("play-choices");
  choices.hidden = true;
  if (candidates.length === 0) return;
  if (candidates.length === 1) { sendMove(candidates[0].text); return; }
  // Several captures share their start and end: let the player pick the route.
  choices.replaceChildren(...candidates.map((m) => {
    const button = document.createElement("button");
    button.textContent = m.text;
    button.addEventListener("click", () => { choices.hidden = true; sendMove(m.text); });
    return button;
  }));
  choices.hidden = false;
}

async function sendMove(text) {
  showError(null);
  try {
    await setState(await api("/api/state", { variant: play.variant, fen: play.fen, moves: [...play.moves, text] }));
  } catch (error) { showError(error); }
}

async function think() {
  const controller = new AbortController();
  play.thinking = controller;
  renderPlay();
  try {
    const reply = await api("/api/think", {
      game: { variant: play.variant, fen: play.fen, moves: play.moves },
      player: $("play-opponent").value, game_id: play.gameId,
    }, controller.signal);
    if (play.thinking !== controller) return;
    play.thinking = null;
    $("play-status").title = reply.info;
    await setState(reply.state);
  } catch (error) {
    if (play.thinking === controller) { play.thinking = null; renderPlay(); }
    showError(error);
  }
}

async function takeBack() {
  stopThinking();
  if (!play.state) return;
  // Back to the last position where it is the human's turn.
  let moves = play.moves.slice();
  do { moves.pop(); } while (moves.length > 0 && sideAfter(moves) !== humanSide());
  try {
    const state = await api("/api/state", { variant: play.variant, fen: play.fen, moves });
    play.state = state; play.moves = state.history.slice(); play.selected = null;
    renderPlay();
    if (!state.outcome && state.turn !== humanSide()) await think();
  } catch (error) { showError(error); }
}

function sideAfter(moves) {
  const startTurn = play.fen ? (play.fen.trim()[0] === "B" ? "black" : "white") : "white";
  return moves.length % 2 === 0 ? startTurn : (startTurn === "white" ? "black" : "white");
}

// ---------------------------------------------------------------- Runs

const runsView = { current: null, timer: null };

async function loadRuns() {
  try {
    const runs = await api("/api/runs");
    const body = document.querySelector("#runs-table tbody");
    body.replaceChildren(...runs.map((run) => {
      const tr = document.createElement("tr");
      for (const text of [run.name, run.variant || "?", run.generations.length, run.finished ? "finished" : "running or stopped"]) {
        const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
      }
      if (run.name === runsView.current) tr.classList.add("current");
      tr.addEventListener("click", () => showRun(run.name));
      return tr;
    }));
    $("runs-empty").hidden = runs.length > 0;
  } catch (error) { showError(error); }
}

async function showRun(name) {
  runsView.current = name;
  clearTimeout(runsView.timer);
  try {
    const data = await api(`/api/run?name=${encodeURIComponent(name)}`);
    renderRun(data);
    if (!data.summary.finished && !$("view-runs").hidden) {
      // A run in progress: its page follows it.
      runsView.timer = setTimeout(() => { if (runsView.current === name) showRun(name); }, 5000);
    }
  } catch (error) { showError(error); }
  loadRuns();
}

function renderRun(data) {
  $("run-detail").hidden = false;
  const s = data.summary;
  $("run-title").textContent = s.name;
  const last = data.generations[data.generations.length - 1];
  const clock = last && last.time && last.time.elapsed ? ` · run clock ${(last.time.elapsed / 60).toFixed(1)} min` : "";
  $("run-facts").textContent = `${s.variant || "?"} · ${s.generations.length} checkpoints${clock} · ${s.finished ? "finished" : "in progress or stopped"}`;
  renderRating(data);
  const rows = data.generations.filter((g) => g.metrics && typeof g.metrics.policy_loss === "number");
  lineChart($("run-losses"), [
    { name: "policy loss", color: "#1a4f8a", points: rows.map((g) => [g.generation, g.metrics.policy_loss]) },
    { name: "value loss", color: "#b3261e", points: rows.map((g) => [g.generation, g.metrics.value_loss]) },
  ], { x: "generation", y: "loss" });
  renderTime(data.generations);
  for (const [list, files] of [[$("run-games"), data.games], [$("run-eval-games"), data.evaluation_games]]) {
    list.replaceChildren(...files.map((file) => {
      const li = document.createElement("li");
      li.textContent = file;
      li.addEventListener("click", () => openRunGame(s.name, file, s.variant));
      return li;
    }));
  }
}

function renderRating(data) {
  const note = $("run-rating-note");
  if (data.curve && data.curve.points && data.curve.points.length) {
    const c = data.curve;
    const series = [{ name: `${c.simulations} simulations`, color: "#1a4f8a", band: true,
      points: c.points.map((p) => [p.minutes, p.rating.elo, p.rating.low, p.rating.high]) }];
    const timed = c.points.filter((p) => p.timed);
    if (timed.length) series.push({ name: `${c.move_time} s a move`, color: "#2f7d32", band: true,
      points: timed.map((p) => [p.minutes, p.timed.rating.elo, p.timed.rating.low, p.timed.rating.high]) });
    const ladder = (c.ladder || []).map(([rung, e]) => ({ name: rung, y: e.elo }));
    lineChart($("run-rating"), series, { x: "training minutes", y: "Elo on the ladder", levels: ladder });
    note.textContent = "From the run's curve.json (damas bench learning): ratings against the alpha-beta ladder with 95% intervals; grey lines are the ladder's rungs.";
    return;
  }
  const rows = data.generations.filter((g) => g.eval && g.eval.baseline_elo && Math.abs(g.eval.baseline_elo.elo) < 2000);
  lineChart($("run-rating"), [{ name: "against the baseline", color: "#1a4f8a", band: true,
    points: rows.map((g) => { const e = g.eval.baseline_elo; return [g.generation, e.elo, Math.max(e.low, -1500), Math.min(e.high, 1500)]; }) }],
  { x: "generation", y: "Elo against the run's baseline" });
  note.textContent = "From each generation's evaluation (eval.json): Elo against the run's alpha-beta baseline, 95% intervals; scores of 0% or 100% are left out. Run damas bench learning for a curve on the stored ladder.";
}

// A tick label with as many decimals as a quarter of the axis' range needs.
function tick(value, range) {
  const decimals = Math.max(0, Math.min(4, Math.ceil(-Math.log10(Math.abs(range) / 4 || 1)) + 1));
  return value.toFixed(decimals);
}

// A line chart in SVG: series of [x, y, low?, high?] points, optional horizontal levels.
function lineChart(svg, series, axes) {
  svg.replaceChildren();
  const W = 700, H = 256, left = 56, right = 150, top = 12, bottom = 36;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) {
    const t = el("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#777" }, svg);
    t.textContent = "nothing to draw yet";
    return;
  }
  const xs = all.map((p) => p[0]);
  const ys = all.flatMap((p) => p.slice(1).filter((v) => typeof v === "number"));
  for (const level of axes.levels || []) ys.push(level.y);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.05; y0 -= pad; y1 += pad;
  const X = (x) => left + (x - x0) / (x1 - x0) * (W - left - right);
  const Y = (y) => top + (1 - (y - y0) / (y1 - y0)) * (H - top - bottom);
  for (let i = 0; i <= 4; i++) {
    const y = y0 + (y1 - y0) * i / 4;
    el("line", { x1: left, x2: W - right, y1: Y(y), y2: Y(y), stroke: "#eee" }, svg);
    const t = el("text", { x: left - 4, y: Y(y) + 4, "text-anchor": "end", "font-size": 11 }, svg);
    t.textContent = tick(y, y1 - y0);
    const x = x0 + (x1 - x0) * i / 4;
    const u = el("text", { x: X(x), y: H - bottom + 14, "text-anchor": "middle", "font-size": 11 }, svg);
    u.textContent = tick(x, x1 - x0);
  }
  const xl = el("text", { x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle", "font-size": 12 }, svg);
  xl.textContent = axes.x;
  const yl = el("text", { x: 12, y: (top + H - bottom) / 2, "text-anchor": "middle", "font-size": 12, transform: `rotate(-90 12 ${(top + H - bottom) / 2})` }, svg);
  yl.textContent = axes.y;
  el("rect", { x: left, y: top, width: W - left - right, height: H - top - bottom, fill: "none", stroke: "#999" }, svg);
  for (const level of axes.levels || []) {
    el("line", { x1: left, x2: W - right, y1: Y(level.y), y2: Y(level.y), stroke: "#bbb", "stroke-dasharray": "4 3" }, svg);
    const t = el("text", { x: W - right + 4, y: Y(level.y) + 4, "font-size": 10, fill: "#777" }, svg);
    t.textContent = level.name.replace("alphabeta:", "");
  }
  series.forEach((s, i) => {
    if (s.band && s.points.length && s.points[0].length >= 4) {
      const upper = s.points.map((p) => `${X(p[0])},${Y(p[3])}`);
      const lower = s.points.slice().reverse().map((p) => `${X(p[0])},${Y(p[2])}`);
      el("polygon", { points: [...upper, ...lower].join(" "), fill: s.color, opacity: 0.12 }, svg);
    }
    el("polyline", { points: s.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), fill: "none", stroke: s.color, "stroke-width": 2 }, svg);
    for (const p of s.points) el("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2.5, fill: s.color }, svg);
    el("rect", { x: left + 10, y: top + 8 + i * 16, width: 12, height: 3, fill: s.color }, svg);
    const t = el("text", { x: left + 26, y: top + 13 + i * 16, "font-size": 11 }, svg);
    t.textContent = s.name;
  });
}

function renderTime(generations) {
  const sums = { "self-play": 0, training: 0, "i/o": 0, evaluation: 0 };
  for (const g of generations) {
    if (!g.time) continue;
    sums["self-play"] += g.time.selfplay || 0;
    sums.training += g.time.training || 0;
    sums["i/o"] += g.time.io || 0;
    sums.evaluation += g.time.evaluation || 0;
  }
  const total = Object.values(sums).reduce((a, b) => a + b, 0);
  const colors = { "self-play": "#1a4f8a", training: "#b3261e", "i/o": "#777", evaluation: "#2f7d32" };
  const bar = $("run-time");
  bar.replaceChildren(...Object.entries(sums).filter(([, v]) => v > 0).map(([name, v]) => {
    const div = document.createElement("div");
    div.style.width = `${(100 * v / total).toFixed(1)}%`;
    div.style.background = colors[name];
    div.textContent = `${name} ${(100 * v / total).toFixed(0)}%`;
    div.title = `${name}: ${v.toFixed(1)} s`;
    return div;
  }));
}

async function openRunGame(run, file, variant) {
  try {
    const games = await api(`/api/run/game?name=${encodeURIComponent(run)}&file=${encodeURIComponent(file)}`);
    switchView("replay");
    $("replay-variant").value = variant;
    setReplayGames(games, variant);
  } catch (error) { showError(error); }
}

// ---------------------------------------------------------------- Replay

const replay = { games: [], game: null, ply: 0, variant: null };

async function loadReplay() {
  showError(null);
  const variant = $("replay-variant").value;
  try {
    const games = await api("/api/replay", { variant, pdn: $("replay-pdn").value });
    setReplayGames(games, variant);
  } catch (error) { showError(error); }
}

function setReplayGames(games, variant) {
  replay.games = games;
  replay.variant = variant;
  $("replay-game").replaceChildren(...games.map((g, i) => {
    const tag = (name) => (g.tags.find(([k]) => k.toLowerCase() === name) || [])[1];
    return new Option(`${i + 1}. ${tag("white") || "?"} - ${tag("black") || "?"} ${g.result || ""}`, i);
  }));
  fillNets();
  chooseGame(0);
}

function chooseGame(index) {
  replay.game = replay.games[index];
  if (!replay.game) return;
  $("replay-tags").textContent = replay.game.tags.map(([k, v]) => `${k}: ${v}`).join(" · ");
  $("replay-ply").max = replay.game.moves.length;
  goTo(0);
}

function goTo(ply) {
  const game = replay.game;
  if (!game) return;
  replay.ply = Math.max(0, Math.min(ply, game.moves.length));
  const position = game.positions[replay.ply];
  drawBoard($("replay-board"), variantNamed(replay.variant), position.pieces, {
    last: replay.ply > 0 ? game.moves[replay.ply - 1] : null,
  });
  $("replay-ply").value = replay.ply;
  $("replay-fen").textContent = position.fen;
  const end = replay.ply === game.moves.length && game.outcome ? ` · ${game.outcome.text}` : "";
  $("replay-status").textContent = `ply ${replay.ply} of ${game.moves.length} · ${position.turn} to move${end}`;
  renderMoveList($("replay-moves"), game.moves.map((m) => m.text), replay.ply, goTo);
  analyse();
}

function fillNets() {
  const nets = players.filter((p) => p.network && p.variant === replay.variant);
  $("replay-net").replaceChildren(new Option("none", ""), ...nets.map((p) => new Option(p.label, p.id)));
}

let analysisRequest = null;
async function analyse() {
  const box = $("replay-analysis");
  const player = $("replay-net").value;
  if (analysisRequest) analysisRequest.abort();
  if (!player || !replay.game) { box.replaceChildren(); return; }
  const controller = new AbortController();
  analysisRequest = controller;
  const game = replay.game;
  try {
    const result = await api("/api/analyse", {
      game: { variant: replay.variant, fen: game.start_fen, moves: game.moves.slice(0, replay.ply).map((m) => m.text) },
      player,
    }, controller.signal);
    if (analysisRequest !== controller) return;
    const [w, d, l] = result.wdl;
    const wdl = document.createElement("div");
    wdl.className = "wdl";
    for (const [share, color, name] of [[w, "#2f7d32", "win"], [d, "#888", "draw"], [l, "#b3261e", "loss"]]) {
      const part = document.createElement("div");
      part.style.width = `${(100 * share).toFixed(1)}%`;
      part.style.background = color;
      part.style.color = "#fff";
      part.textContent = share > 0.12 ? `${name} ${(100 * share).toFixed(0)}%` : "";
      part.title = `${name} ${(100 * share).toFixed(1)}% for the side to move`;
      wdl.appendChild(part);
    }
    const priors = result.moves.slice(0, 8).map((m) => {
      const row = document.createElement("div");
      row.className = "prior";
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = `${Math.max(1, 120 * m.probability)}px`;
      const text = document.createElement("span");
      text.textContent = `${m.text} ${(100 * m.probability).toFixed(1)}%`;
      row.append(bar, text);
      return row;
    });
    box.replaceChildren(wdl, ...priors);
  } catch (error) {
    if (error.name !== "AbortError") box.textContent = String(error.message || error);
  }
}

// ---------------------------------------------------------------- views and start

function switchView(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== `view-${name}`;
  showError(null);
  if (name === "runs") { loadRuns(); if (runsView.current) showRun(runsView.current); }
}

async function start() {
  try {
    [variants, players] = await Promise.all([api("/api/variants"), api("/api/players")]);
  } catch (error) { showError(error); return; }
  fillVariants($("play-variant"), "russian");
  fillVariants($("replay-variant"), "russian");
  fillOpponents();
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => switchView(tab.dataset.view));
  $("play-variant").addEventListener("change", () => { $("play-fen").value = ""; fillOpponents(); newGame(); });
  $("play-side").addEventListener("change", newGame);
  $("play-opponent").addEventListener("change", () => { if (play.state && !play.state.outcome && play.state.turn !== humanSide() && !play.thinking) think(); });
  $("play-new").addEventListener("click", newGame);
  $("play-undo").addEventListener("click", takeBack);
  $("play-flip").addEventListener("click", () => { play.flipped = !play.flipped; renderPlay(); });
  $("play-copy-fen").addEventListener("click", () => play.state && copyText(play.state.fen, "FEN"));
  $("play-copy-pdn").addEventListener("click", () => play.state && copyText(play.state.pdn, "PDN"));
  $("replay-load").addEventListener("click", loadReplay);
  $("replay-variant").addEventListener("change", () => { replay.variant = $("replay-variant").value; fillNets(); });
  $("replay-game").addEventListener("change", (e) => chooseGame(Number(e.target.value)));
  $("replay-ply").addEventListener("input", (e) => goTo(Number(e.target.value)));
  $("replay-first").addEventListener("click", () => goTo(0));
  $("replay-prev").addEventListener("click", () => goTo(replay.ply - 1));
  $("replay-next").addEventListener("click", () => goTo(replay.ply + 1));
  $("replay-last").addEventListener("click", () => goTo(Infinity));
  $("replay-net").addEventListener("change", analyse);
  $("replay-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (!file) return;
    if (file.size > 4 * 1024 * 1024) { showError(new Error(`${file.name}: larger than the 4 MiB the server accepts`)); return; }
    const reader = new FileReader();
    reader.onload = () => { $("replay-pdn").value = reader.result; loadReplay(); };
    reader.readAsText(file);
  });
  document.addEventListener("keydown", (e) => {
    if ($("view-replay").hidden || ["TEXTAREA", "INPUT", "SELECT"].includes(document.activeElement.tagName)) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in moves) { goTo(replay.ply + moves[e.key]); e.preventDefault(); }
    if (e.key === "Home") goTo(0);
    if (e.key === "End") goTo(Infinity);
  });
  newGame();
}

start();
