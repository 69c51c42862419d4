// pokerbot play: draws the server's snapshot and sends the person's actions.
// Every rule lives on the server (the exact engine); this file only shows and asks.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RANKS = { T: "10" };

let state = null;        // the last snapshot
let pending = false;     // an action is on its way: ignore further clicks until it is answered
let thinkingTimer = null;
let lost = false;        // the long poll lost the server; the notice goes once it answers again
let armed = null;        // "hand:seq" where the all-in button waits for its confirming click

function cardEl(text, extra) {
  const el = document.createElement("div");
  el.className = "card" + (extra ? " " + extra : "");
  if (text) {
    const suit = text[1];
    if (suit === "h" || suit === "d") el.classList.add("red");
    el.innerHTML = `<span class="r">${RANKS[text[0]] || text[0]}</span><span class="s">${SUITS[suit]}</span>`;
    el.title = text;
    el.dataset.card = text;
  }
  return el;
}

function miniCards(cards) {
  if (!cards || !cards.length) return "–";
  return cards.map((c) => {
    const red = c[1] === "h" || c[1] === "d";
    return `<span class="${red ? "red" : ""}">${c[0]}${SUITS[c[1]]}</span>`;
  }).join("");
}

function fmtChips(x) {
  if (x === null || x === undefined) return "–";
  return Number(x).toLocaleString("en-US");
}

function signed(x, digits) {
  const v = Number(x).toFixed(digits);
  return (Number(v) > 0 ? "+" : "") + v;
}

// Results are in big blinds (bb; rates in bb per 100 hands), stacks, bets and the pot in chips.
function bb(chips, digits) {
  return signed(chips / state.big_blind, digits === undefined ? 1 : digits);
}

function rateText(mbb, ci) {
  // mbb/g / 10 = bb/100
  if (mbb === null) return "–";
  const digits = Math.abs(mbb / 10) >= 100 || (ci !== null && ci / 10 >= 100) ? 0 : 1;
  return `${signed(mbb / 10, digits)}${ci === null ? "" : ` ± ${(ci / 10).toFixed(digits)}`} bb/100`;
}

function setCards(container, cards, count, hidden) {
  container.replaceChildren();
  for (let i = 0; i < count; i++) {
    if (cards && cards[i]) container.appendChild(cardEl(cards[i]));
    else container.appendChild(cardEl(null, hidden ? "back" : "slot"));
  }
}

function showMessage(text, info) {
  const m = $("message");
  m.textContent = text || "";
  m.classList.toggle("info", !!info);
}

function render(s) {
  state = s;
  const h = s.hand;
  $("you-name").textContent = s.names.you;
  $("bot-name").textContent = s.names.bot;
  $("your-label").textContent = s.names.you;
  $("bot-label").textContent = s.names.bot;
  $("bot-spec").textContent = s.names.spec;
  $("bot-spec").title = s.names.spec;
  $("log-link").title = s.log;
  renderStats(s.stats);
  renderBot(s.bot_status);
  renderHistory(s.history);
  renderReview(s.review);
  if (!h) return;
  $("hand-id").textContent = `#${h.id} · ${h.you.button ? "you are SB/button" : "you are BB"}`;
  setCards($("your-cards"), h.you.cards, s.hole_cards, false);
  setCards($("bot-cards"), h.bot.cards, s.hole_cards, !h.bot.cards);
  setCards($("board"), h.board, s.board_cards, false);
  $("pot").textContent = fmtChips(h.pot);
  $("street").textContent = h.street;
  $("street").hidden = !!h.result;
  $("your-stack").textContent = h.you.stack === null ? "–" : `${fmtChips(h.you.stack)} chips`;
  $("bot-stack").textContent = h.bot.stack === null ? "–" : `${fmtChips(h.bot.stack)} chips`;
  $("bot-last").textContent = h.bot.last_action ? h.bot.last_action.text : "";
  $("bot-last-note").textContent = h.bot.last_action && h.bot.last_action.note ? h.bot.last_action.note : "";
  $("your-last").textContent = h.you.last_action ? h.you.last_action.text : "";
  $("bot-hand-name").textContent = h.bot.hand_name || "";
  $("your-hand-name").textContent = h.you.hand_name || "";
  $("your-bet").innerHTML = h.you.street_bet ? `<span>${fmtChips(h.you.street_bet)} chips</span>` : "";
  $("bot-bet").innerHTML = h.bot.street_bet ? `<span>${fmtChips(h.bot.street_bet)} chips</span>` : "";
  $("your-button").hidden = !h.you.button;
  $("bot-button").hidden = !h.bot.button;
  $("seat-you").classList.toggle("to-act", h.to_act === "you");
  $("seat-bot").classList.toggle("to-act", h.to_act === "bot");
  renderHandActions(h);
  const banner = $("result");
  banner.hidden = !h.result;
  if (h.result) {
    banner.textContent = h.result.text;
    banner.className = "banner " + (h.result.chips > 0 ? "pos" : h.result.chips < 0 ? "neg" : "");
  }
  $("between").hidden = !h.finished;
  renderActions(s.legal, h);
}

function renderActions(legal, h) {
  const box = $("actions");
  box.classList.toggle("off", !legal || pending);
  box.hidden = h.finished;
  if (!legal) {
    $("fold").disabled = $("call").disabled = $("raise").disabled = true;
    return;
  }
  $("fold").disabled = !legal.fold;
  $("call").disabled = false;
  $("call").textContent = legal.call ? `Call ${fmtChips(legal.call)}` : "Check";
  const r = legal.raise;
  const presets = $("presets");
  presets.replaceChildren();
  $("raise-box").style.visibility = r ? "visible" : "hidden";
  $("raise").disabled = !r;
  if (!r) return;
  const word = r.word === "bet" ? "Bet" : "Raise to";
  $("raise").textContent = word;
  const here = `${h.id}:${h.seq}`;
  if (armed !== here) armed = null;
  for (const p of r.presets) presets.appendChild(presetButton(p.label, p.to));
  presets.appendChild(allInButton(r.max, here));
  const slider = $("raise-slider");
  slider.min = r.min;
  slider.max = r.max;
  const amount = $("raise-amount");
  const current = parseInt(amount.value, 10);
  if (amount.dataset.hand !== here || !(current >= r.min && current <= r.max)) {
    amount.value = r.min;
    amount.dataset.hand = here;
  }
  slider.value = amount.value;
  amount.classList.remove("bad");
}

function fillAmount(to) {
  $("raise-amount").value = to;
  $("raise-slider").value = to;
  $("raise-amount").classList.remove("bad");
}

function presetButton(label, to) {
  // A preset only fills the raise box: the Raise button (or Enter) sends it.
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = `${label} · ${fmtChips(to)}`;
  b.dataset.to = to;
  b.addEventListener("click", () => { disarm(); fillAmount(to); });
  return b;
}

function allInButton(max, here) {
  // All-in asks for a second, confirming click on the same button.
  const b = document.createElement("button");
  b.type = "button";
  b.id = "allin";
  b.dataset.to = max;
  const show = () => {
    b.classList.toggle("armed", armed === here);
    b.textContent = armed === here ? `confirm all-in · ${fmtChips(max)}` : `all-in · ${fmtChips(max)}`;
  };
  b.addEventListener("click", () => {
    if (armed === here) {
      armed = null;
      send("raise", max);
      return;
    }
    armed = here;
    fillAmount(max);
    show();
    showMessage(`All-in for ${fmtChips(max)} chips? Click "confirm all-in" to play it.`, true);
  });
  show();
  return b;
}

function disarm() {
  if (armed === null) return;
  armed = null;
  const b = $("allin");
  if (b) {
    b.classList.remove("armed");
    b.textContent = `all-in · ${fmtChips(b.dataset.to)}`;
  }
  showMessage("");
}

function renderHandActions(h) {
  const list = $("hand-actions");
  list.replaceChildren();
  let street = null;
  for (const a of h.actions) {
    if (a.street !== street) {
      street = a.street;
      const row = document.createElement("li");
      row.className = "street-row";
      row.textContent = street;
      list.appendChild(row);
    }
    const li = document.createElement("li");
    li.className = a.who;
    li.textContent = a.who === "you" ? `You ${a.text}` : `${state.names.bot} ${a.text}`;
    if (a.who === "bot" && (a.note || a.seconds !== null)) {
      const note = document.createElement("span");
      note.className = "note";
      const parts = [];
      if (a.note) parts.push(a.note);
      if (a.seconds !== null && !(a.note && / s\)$/.test(a.note))) parts.push(`${a.seconds.toFixed(2)} s`);
      note.textContent = "· " + parts.join(" · ");
      li.appendChild(note);
    }
    list.appendChild(li);
  }
  for (const note of h.notes) {
    const li = document.createElement("li");
    li.className = "street-row";
    li.textContent = note;
    list.appendChild(li);
  }
  if (h.result) {
    const li = document.createElement("li");
    li.className = "street-row";
    li.textContent = h.result.text;
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
}

function renderStats(st) {
  $("stats-hands").textContent = `${st.hands} hand${st.hands === 1 ? "" : "s"}`;
  for (const [id, mbb, ci] of [["stats-rate", st.mbb, st.ci95], ["stats-aivat", st.aivat_mbb, st.aivat_ci95]]) {
    const el = $(id);
    el.textContent = rateText(mbb, ci);
    el.className = mbb === null ? "" : mbb > 0 ? "pos" : mbb < 0 ? "neg" : "";
  }
  $("stats-detail").textContent = `won ${bb(st.chips)} bb · adj. ${bb(st.aivat_chips)} bb`;
  $("stats-fallbacks").textContent = st.fallbacks ? `the bot ${st.fallbacks}: it played its blueprint there` : "";
  drawChart(st.series, st.aivat_series);
}

function drawChart(series, adjusted) {
  const svg = $("chart");
  const W = 320, H = 130, L = 34, R = 6, T = 8, B = 18;
  const xs = series.map((p) => p[0]), ys = series.concat(adjusted).map((p) => p[1]);
  const xMax = Math.max(1, ...xs);
  let yMin = Math.min(0, ...ys), yMax = Math.max(0, ...ys);
  if (yMax - yMin < 1) { yMax += 1; yMin -= 1; }
  const x = (v) => L + (W - L - R) * v / xMax;
  const y = (v) => T + (H - T - B) * (yMax - v) / (yMax - yMin);
  const line = (pts) => pts.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" ");
  svg.innerHTML = `
    <line class="axis" x1="${L}" y1="${T}" x2="${L}" y2="${H - B}"/>
    <line class="axis" x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}"/>
    <line class="zero" x1="${L}" y1="${y(0)}" x2="${W - R}" y2="${y(0)}"/>
    <polyline class="line aivat" points="${line(adjusted)}"/>
    <polyline class="line plain" points="${line(series)}"/>
    <text x="${L - 4}" y="${T + 8}" text-anchor="end">${signed(yMax, 0)}</text>
    <text x="${L - 4}" y="${H - B}" text-anchor="end">${signed(yMin, 0)}</text>
    <text x="${W - R}" y="${H - 4}" text-anchor="end">${xs[xs.length - 1]} hands</text>
    <text x="${L + 4}" y="${H - 4}">bb</text>`;
}

function renderReview(r) {
  // The bot's side of the last finished hand: its cards and, at each decision, the probabilities it reported.
  $("review-panel").hidden = !r;
  if (!r) return;
  $("review-title").textContent = `hand #${r.id}`;
  const box = $("review");
  box.replaceChildren();
  const head = document.createElement("div");
  head.className = "cards-line";
  head.innerHTML = `${escapeHtml(state.names.bot)} (${r.bot_position}) held <span class="mini" id="review-cards">` +
    `${miniCards(r.bot_cards)}</span> · ${r.chips > 0 ? "lost" : "won"} ${Math.abs(r.chips / state.big_blind).toFixed(1)} bb`;
  box.appendChild(head);
  if (!r.decisions.length) {
    const none = document.createElement("div");
    none.className = "muted";
    none.textContent = "the bot made no decision in this hand";
    box.appendChild(none);
  }
  for (const d of r.decisions) {
    const div = document.createElement("div");
    div.className = "decision";
    const where = document.createElement("div");
    where.className = "where";
    where.textContent = `${d.street} · pot ${fmtChips(d.pot)} chips${d.to_call ? ` · ${fmtChips(d.to_call)} to call` : ""}` +
      (d.note ? ` · ${d.note}` : "");
    div.appendChild(where);
    if (d.policy) {
      for (const p of d.policy) {
        const row = document.createElement("div");
        row.className = "prob" + (p.action === d.played_action ? " played" : "");
        row.innerHTML = `<span>${escapeHtml(p.text)}</span><span class="bar"><i style="width:${(100 * p.p).toFixed(1)}%"></i></span>` +
          `<span class="pct">${(100 * p.p).toFixed(p.p < 0.1 && p.p > 0 ? 1 : 0)}%</span>`;
        row.title = p.action ? `${p.action}: ${p.p}` : String(p.p);
        div.appendChild(row);
      }
      if (!d.policy.some((p) => p.action === d.played_action)) {
        const played = document.createElement("div");
        played.className = "muted";
        played.textContent = `played: ${d.played}`;
        div.appendChild(played);
      }
    } else {
      const row = document.createElement("div");
      row.innerHTML = `played ${escapeHtml(d.played)} <span class="muted">· probabilities unknown: ${escapeHtml(d.unknown || "")}</span>`;
      div.appendChild(row);
    }
    box.appendChild(div);
  }
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function renderBot(b) {
  clearInterval(thinkingTimer);
  const box = $("thinking");
  box.hidden = !b.thinking;
  const last = b.last_seconds === null ? "–" : `${b.last_seconds.toFixed(2)} s`;
  const mean = b.mean_seconds === null ? "" : ` · mean ${b.mean_seconds.toFixed(2)} s`;
  $("bot-timing").textContent = b.thinking ? "thinking…" : `last decision ${last}${mean}`;
  $("bot-note").textContent = b.last_note ? `last: ${b.last_note}` : "";
  const err = $("bot-error");
  err.hidden = !b.error;
  err.textContent = b.error || "";
  if (b.thinking) {
    const since = performance.now() - 1000 * (b.thinking_for || 0);
    const tick = () => {
      const secs = ((performance.now() - since) / 1000).toFixed(1);
      $("thinking-text").textContent = `thinking… ${secs} s`;
      $("bot-timing").textContent = `thinking… ${secs} s`;
    };
    tick();
    thinkingTimer = setInterval(tick, 100);
  }
}

function renderHistory(rows) {
  const body = $("history");
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement("tr");
    const cls = r.chips > 0 ? "pos" : r.chips < 0 ? "neg" : "";
    const adj = r.aivat > 0 ? "pos" : r.aivat < 0 ? "neg" : "";
    tr.innerHTML = `<td>${r.id}</td><td>${r.position}</td><td class="mini">${miniCards(r.you)}</td>` +
      `<td class="mini">${miniCards(r.bot)}</td><td class="mini">${miniCards(r.board)}</td>` +
      `<td class="num ${cls}">${bb(r.chips)}</td><td class="num ${adj}">${bb(r.aivat)}</td>`;
    tr.title = r.betting;
    body.appendChild(tr);
  }
}

async function post(path, payload) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload),
  });
  const data = await res.json();
  if (!res.ok) {
    showMessage(data.error);
    if (data.state) render(data.state);
    return false;
  }
  lost = false;
  showMessage("");
  render(data);
  return true;
}

async function send(kind, amount) {
  if (pending || !state || !state.hand || !state.legal) return;
  pending = true;
  armed = null;
  $("actions").classList.add("off");
  try {
    await post("/api/action", { hand: state.hand.id, seq: state.hand.seq, kind, amount });
  } catch (e) {
    showMessage("the server did not answer: " + e);
  } finally {
    pending = false;
    if (state) renderActions(state.legal, state.hand);
  }
}

async function nextHand() {
  if (pending || !state || !state.hand || !state.hand.finished) return;
  pending = true;
  try {
    await post("/api/next", { after: state.hand.id });
  } catch (e) {
    showMessage("the server did not answer: " + e);
  } finally {
    pending = false;
    if (state) renderActions(state.legal, state.hand);
  }
}

function raiseTyped() {
  const text = $("raise-amount").value.trim();
  const r = state && state.legal && state.legal.raise;
  if (r && !/^\d+$/.test(text)) {
    $("raise-amount").classList.add("bad");
    showMessage(`type a whole number of chips: ${r.min}..${r.max}`);
    return;
  }
  send("raise", text);  // the server checks the range and says what is legal
}

function newer(s) {
  // Versions grow within one server run; a restarted server has a new run id.
  return !state || s.run !== state.run || s.version > state.version;
}

async function follow() {
  // Long-poll: the server answers when the snapshot changes (the bot acted, another tab played).
  for (;;) {
    const since = state ? state.version : -1;
    try {
      const res = await fetch(`/api/state?since=${since}`, { cache: "no-store" });
      if (lost) {  // it answers again: the notice goes
        lost = false;
        showMessage("");
      }
      if (res.ok) {
        const s = await res.json();
        if (!pending && newer(s)) render(s);
      } else {
        await new Promise((r) => setTimeout(r, 1000));
      }
    } catch (e) {
      lost = true;
      showMessage("lost the server; retrying…", true);
      await new Promise((r) => setTimeout(r, 1500));
      continue;
    }
  }
}

$("fold").addEventListener("click", () => send("fold"));
$("call").addEventListener("click", () => send("call"));
$("raise").addEventListener("click", raiseTyped);
$("next").addEventListener("click", nextHand);
$("raise-slider").addEventListener("input", (e) => { disarm(); $("raise-amount").value = e.target.value; });
$("raise-amount").addEventListener("keydown", (e) => {
  if (e.key === "Enter") { e.preventDefault(); raiseTyped(); }
});
$("raise-amount").addEventListener("input", disarm);
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;
  if ((e.key === "n" || e.key === "N") && state && state.hand && state.hand.finished) nextHand();
});

async function start() {
  for (;;) {
    try {
      const res = await fetch("/api/state", { cache: "no-store" });
      render(await res.json());
      if (lost) { lost = false; showMessage(""); }
      follow();
      return;
    } catch (e) {
      lost = true;
      showMessage("could not reach the server; retrying…", true);
      await new Promise((r) => setTimeout(r, 1500));
    }
  }
}

start();
