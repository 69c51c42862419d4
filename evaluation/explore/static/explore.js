// pokerbot explore: draws the server's nodes (/api/node) and walks the tree through the URL's hash.
// Every number comes from the server; this file only shows them and asks for the next node.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANKS = "AKQJT98765432";

let info = null;      // /api/info
let node = null;      // the node shown (/api/node)
let colors = [];      // one colour per action of the node
let picked = [];      // cards picked at a deal
let hovered = null;   // {cls, player, fromGrid} of the class whose combos the detail panel shows
let loadSeq = 0;      // answers to older requests are dropped

function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || `HTTP ${r.status}`);
  return data;
}

// --- colours: fold blue, check/call green, bets and raises from orange to dark red by size --------------

function kindOf(token) {
  const t = token.toLowerCase();
  if (t === "f") return "fold";
  if (t === "x" || t === "c") return "passive";
  return "aggressive";
}

function actionColors(actions) {
  const aggressive = actions.filter((a) => kindOf(a.token) === "aggressive");
  return actions.map((a) => {
    const k = kindOf(a.token);
    if (k === "fold") return "rgb(74, 144, 226)";
    if (k === "passive") return "rgb(92, 184, 92)";
    const i = aggressive.indexOf(a);
    const t = aggressive.length > 1 ? i / (aggressive.length - 1) : 0.35;
    const from = [240, 165, 60], to = [150, 25, 40];
    const c = from.map((v, j) => Math.round(v + (to[j] - v) * t));
    return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
  });
}

function pct(x, digits) {
  if (x === null || x === undefined) return "–";
  return (100 * x).toFixed(digits === undefined ? 1 : digits) + "%";
}

function num(x, digits) {
  if (x === null || x === undefined) return "–";
  return Number(x).toFixed(digits);
}

function cardHtml(text) {
  const red = text[1] === "h" || text[1] === "d";
  return `<span class="${red ? "red" : ""}">${text[0]}${SUITS[text[1]] || text[1]}</span>`;
}

function cardEl(text) {
  const el = document.createElement("div");
  el.className = "card" + (text[1] === "h" || text[1] === "d" ? " red" : "");
  el.innerHTML = `<span class="r">${text[0]}</span><span class="s">${SUITS[text[1]] || text[1]}</span>`;
  el.dataset.card = text;
  return el;
}

// --- navigation ----------------------------------------------------------------------------------------

function pathFromHash() {
  const h = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  return h || "root";
}

function go(path) {
  const target = "#/" + (path === "root" ? "" : path);
  if (location.hash === target || (target === "#/" && !location.hash)) load(path);
  else location.hash = target;
}

async function load(path) {
  const seq = ++loadSeq;
  try {
    const data = await getJSON("/api/node?path=" + encodeURIComponent(path));
    if (seq !== loadSeq) return;
    showMessage("");
    render(data);
  } catch (e) {
    if (seq !== loadSeq) return;
    showMessage(e.message);
    if (!node) {
      const data = await getJSON("/api/node?path=root");
      render(data);
    }
  }
}

function showMessage(text) {
  $("message").textContent = text || "";
}

// --- drawing -------------------------------------------------------------------------------------------

function render(data) {
  node = data;
  colors = actionColors(data.actions);
  picked = [];
  renderCrumbs(data);
  renderHead(data);
  renderActions(data);
  renderGrid(data);
  renderDeal(data);
  const end = $("end");
  end.hidden = data.kind !== "end";
  end.textContent = data.note || "";
  renderRanges(data);
  if (hovered && data.hands[hovered.cls] && !hovered.fromGrid) showDetail(hovered.cls, hovered.player, false);
  else if (hovered && data.hands[hovered.cls] && data.kind === "decision") showDetail(hovered.cls, data.player, true);
  else clearDetail();
}

function renderCrumbs(data) {
  const nav = $("crumbs");
  nav.replaceChildren();
  const items = [{ label: "root", path: "root", kind: "action" }].concat(
    data.steps.map((s) => ({ label: s.token, title: s.label, path: s.path, kind: s.kind })));
  items.forEach((it, i) => {
    if (i > 0) {
      const sep = document.createElement("span");
      sep.className = "sep";
      sep.textContent = "›";
      nav.appendChild(sep);
    }
    const last = i === items.length - 1;
    const el = document.createElement(last ? "span" : "a");
    el.className = (last ? "here" : "") + (it.kind === "deal" ? " dealt" : "");
    el.textContent = it.label;
    el.title = it.title || it.label;
    el.dataset.path = it.path;
    if (!last) {
      el.href = "#/" + (it.path === "root" ? "" : it.path);
    }
    nav.appendChild(el);
  });
}

function renderHead(data) {
  const board = $("board");
  board.replaceChildren(...data.board.map(cardEl));
  $("pot").textContent = num(data.pot, data.pot % 1 ? 2 : 0);
  $("to-call").textContent = data.to_call ? ` · to call ${num(data.to_call, data.to_call % 1 ? 2 : 0)}` : "";
  let actor = "";
  if (data.kind === "decision") actor = `${data.player_name} to act`;
  else if (data.kind === "deal") actor = `deal the ${data.deal.street}`;
  else actor = "hand over";
  $("actor").textContent = actor;
}

function renderActions(data) {
  const box = $("actions");
  box.replaceChildren();
  data.actions.forEach((a, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.token = a.token;
    b.title = `${a.label} (${a.token})` + (a.leads === "deal" ? ": then cards are dealt" :
      a.leads === "end" ? ": the hand ends" : "");
    const lead = a.leads === "deal" ? " ▸ deal" : a.leads === "end" ? " ■" : "";
    b.innerHTML = `<span class="swatch" style="background:${colors[i]}"></span>` +
      `<span class="name">${escapeHtml(a.label)}</span> <span class="pct">${pct(a.total)}</span>` +
      `<span class="leads">${lead}</span>`;
    b.addEventListener("click", () => go(a.path));
    box.appendChild(b);
  });
}

function gridColumns() {
  return info.grid[0].length;
}

function renderGrid(data) {
  const grid = $("grid");
  grid.replaceChildren();
  grid.hidden = data.kind !== "decision";
  if (grid.hidden) return;
  const cols = gridColumns();
  grid.style.gridTemplateColumns = `repeat(${cols}, 1fr)`;
  grid.style.width = cols === 13 ? "624px" : `${Math.min(624, cols * 90)}px`;
  const p = data.player;
  data.cells.forEach((cell) => {
    const el = document.createElement("div");
    el.className = "cell";
    el.dataset.class = cell.class;
    el.setAttribute("role", "gridcell");
    const w = cell.weight[p];
    if (cell.freq && w > 0) {
      const fill = document.createElement("div");
      fill.className = "fill";
      fill.style.height = `${Math.max(4, 100 * Math.min(1, w))}%`;
      cell.freq.forEach((f, i) => {
        const s = document.createElement("span");
        s.style.width = `${100 * f}%`;
        s.style.background = colors[i];
        fill.appendChild(s);
      });
      el.appendChild(fill);
      el.dataset.freq = cell.freq.map((f) => f.toFixed(4)).join(",");
    } else {
      el.classList.add("none");
    }
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = cell.class;
    el.appendChild(label);
    el.addEventListener("mouseenter", () => showDetail(cell.class, p, true));
    grid.appendChild(el);
  });
}

function renderDeal(data) {
  const box = $("deal");
  box.hidden = data.kind !== "deal";
  if (box.hidden) return;
  const d = data.deal;
  $("deal-note").textContent = d.note || "";
  const deck = $("deck");
  deck.replaceChildren();
  const available = new Set(d.available);
  const suits = ["s", "h", "d", "c"];
  for (const s of suits) {
    for (const r of RANKS) {
      const card = r + s;
      const b = document.createElement("button");
      b.type = "button";
      b.className = s === "h" || s === "d" ? "red" : "";
      b.textContent = r + SUITS[s];
      b.dataset.card = card;
      b.disabled = !available.has(card);
      b.addEventListener("click", () => pick(card, b));
      deck.appendChild(b);
    }
  }
  updateDealHead();
}

function updateDealHead() {
  const d = node.deal;
  const left = d.count - picked.length;
  $("deal-text").textContent = left > 0
    ? `Pick the ${d.street}: ${left} more card${left > 1 ? "s" : ""}`
    : `Deal ${picked.join("")}`;
  $("deal-go").disabled = left !== 0;
}

function pick(card, button) {
  const i = picked.indexOf(card);
  if (i >= 0) {
    picked.splice(i, 1);
    button.classList.remove("picked");
  } else if (picked.length < node.deal.count) {
    picked.push(card);
    button.classList.add("picked");
  }
  updateDealHead();
  if (node.deal.count === 1 && picked.length === 1) dealPicked();
}

function dealPicked() {
  if (!node || node.kind !== "deal" || picked.length !== node.deal.count) return;
  const base = node.path === "root" ? "" : node.path + "-";
  go(base + picked.join(""));
}

function dealRandom() {
  if (!node || node.kind !== "deal") return;
  const pool = node.deal.available.slice();
  picked = [];
  while (picked.length < node.deal.count && pool.length) {
    picked.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
  }
  dealPicked();
}

function renderRanges(data) {
  const box = $("ranges");
  box.replaceChildren();
  const cols = gridColumns();
  data.ranges.forEach((r) => {
    const div = document.createElement("div");
    div.className = "range";
    div.dataset.player = r.player;
    const head = document.createElement("h3");
    head.innerHTML = `${escapeHtml(r.name)} <span class="muted">${r.combos.toFixed(2)} combos` +
      `${data.player === r.player ? " · to act" : ""}</span>`;
    div.appendChild(head);
    const mini = document.createElement("div");
    mini.className = "mini";
    mini.style.gridTemplateColumns = `repeat(${cols}, 1fr)`;
    if (cols !== 13) mini.style.width = `${Math.min(260, cols * 60)}px`;
    data.cells.forEach((cell) => {
      const c = document.createElement("div");
      const w = cell.weight[r.player];
      c.style.background = w > 0 ? `rgba(var(--range), ${0.15 + 0.85 * Math.min(1, w)})` : "";
      c.textContent = w > 0 ? cell.class : "";
      c.title = `${cell.class}: ${pct(w)} of ${cell.combos} combos`;
      c.dataset.class = cell.class;
      c.addEventListener("mouseenter", () => showDetail(cell.class, r.player, false));
      mini.appendChild(c);
    });
    div.appendChild(mini);
    const text = document.createElement("textarea");
    text.readOnly = true;
    text.value = r.text;
    text.setAttribute("aria-label", `${r.name} range`);
    text.title = "the range as text (PioSOLVER's format)";
    div.appendChild(text);
    box.appendChild(div);
  });
}

function clearDetail() {
  hovered = null;
  $("detail-title").textContent = "Hover a hand class";
  $("detail-summary").textContent = "its combos, their weights and frequencies show here";
  $("detail-table").querySelector("tbody").replaceChildren();
  document.querySelectorAll(".cell.hover, .mini div.hover").forEach((e) => e.classList.remove("hover"));
}

function showDetail(cls, player, fromGrid) {
  hovered = { cls, player, fromGrid };
  const combos = node.hands[cls] || [];
  const cell = node.cells.find((c) => c.class === cls);
  const acting = node.kind === "decision" && player === node.player;
  const name = node.ranges[player].name;
  document.querySelectorAll(".cell.hover, .mini div.hover").forEach((e) => e.classList.remove("hover"));
  if (fromGrid) {
    const el = document.querySelector(`.cell[data-class="${cls}"]`);
    if (el) el.classList.add("hover");
  }
  $("detail-title").textContent = `${cls} · ${name}`;
  let summary = `${combos.length} combos off the board, weight ${pct(cell ? cell.weight[player] : 0)}`;
  if (acting && cell && cell.freq) {
    summary += " · " + node.actions.map((a, i) => `${a.token} ${pct(cell.freq[i])}`).join(", ");
  }
  if (node.figures_note) summary += ` · ${node.figures_note}`;
  $("detail-summary").textContent = summary;
  const figures = node.figures;
  let head = `<tr><th class="hand">combo</th><th>weight</th>`;
  if (acting) head += `<th>strategy</th>` + node.actions.map((a) => `<th>${escapeHtml(a.token)}</th>`).join("");
  if (figures.includes("ev")) head += "<th>EV</th>";
  if (figures.includes("equity")) head += "<th>equity</th>";
  head += "</tr>";
  const rows = combos.map((c) => {
    const w = c.reach[player];
    let tr = `<tr class="${w > 0 ? "" : "out"}" data-hand="${c.hand}"><td class="hand">` +
      `${cardHtml(c.hand.slice(0, 2))}${c.hand.length > 2 ? cardHtml(c.hand.slice(2, 4)) : ""}</td>` +
      `<td>${num(w, 3)}</td>`;
    if (acting) {
      if (c.freq) {
        tr += `<td><div class="bar">${c.freq.map((f, i) =>
          `<span style="width:${100 * f}%;background:${colors[i]}"></span>`).join("")}</div></td>`;
        tr += c.freq.map((f) => `<td>${pct(f)}</td>`).join("");
      } else {
        tr += `<td>not in range</td>` + node.actions.map(() => "<td>–</td>").join("");
      }
    }
    if (figures.includes("ev")) tr += `<td>${num(c.ev ? c.ev[player] : null, 2)}</td>`;
    if (figures.includes("equity")) tr += `<td>${c.equity && c.equity[player] !== null ? pct(c.equity[player]) : "–"}</td>`;
    return tr + "</tr>";
  });
  $("detail-table").querySelector("tbody").innerHTML = head + rows.join("");
}

// --- start ---------------------------------------------------------------------------------------------

async function start() {
  info = await getJSON("/api/info");
  $("title").textContent = info.title;
  $("details").textContent = info.details.join(" · ");
  document.title = `pokerbot explore · ${info.title}`;
  $("deal-go").addEventListener("click", dealPicked);
  $("deal-random").addEventListener("click", dealRandom);
  window.addEventListener("hashchange", () => load(pathFromHash()));
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT")) return;
    if ((e.key === "Backspace" || e.key === "ArrowLeft") && node && node.steps.length) {
      e.preventDefault();
      const up = node.steps.length > 1 ? node.steps[node.steps.length - 2].path : "root";
      go(up);
    }
  });
  // a real-time solve opens at the hand's state (its subgame may start one action earlier)
  await load(location.hash.replace(/^#\/?/, "") ? pathFromHash() : (info.start || "root"));
}

start().catch((e) => showMessage(e.message));
