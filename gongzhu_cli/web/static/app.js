// The page of `gongzhu serve`. It draws what the server sends and sends what the person does;
// it decides no rule: the legal cards, trick winners and scores all come from the server's
// engine, in messages built from this seat's own view (docs/web.md).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const STORE_KEY = "gongzhu.table";
  const ui = {
    setup: $("setup"), table: $("table"), replay: $("replay"), conn: $("conn"),
    preset: $("cfg-preset"), players: $("cfg-players"), seat: $("cfg-seat"),
    match: $("cfg-match"), threshold: $("cfg-threshold"), seed: $("cfg-seed"),
    pace: $("cfg-pace"), options: $("cfg-options"), opponents: $("cfg-opponents"),
    setupError: $("setup-error"), hand: $("hand"), opp: $("opponents"), me: $("me"),
    trick: $("trick"), lastTrick: $("last-trick"), title: $("hand-title"), status: $("status"),
    done: $("done"), hint: $("hint"), next: $("next-hand"), download: $("download"),
    typed: $("typed"), message: $("message"), result: $("result"), standings: $("standings"),
    navTable: $("nav-table"), practice: $("practice"),
  };

  let ws = null;
  let hello = null;
  let tableInfo = null;        // the "table" message: id, config, labels
  let shown = null;            // the state on screen
  const queue = [];            // states not drawn yet (the AI's moves, paced)
  let draining = false;
  let hint = null;             // the hint for shown.seq
  let typed = "";
  let reconnectDelay = 500;
  let replay = null;           // {frames, labels, ...} of the hand being replayed
  let replayStep = 0;
  let heartbeat = null;        // the ping that keeps a quiet page's socket open

  // ------------------------------------------------------------------ connection
  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${scheme}//${location.host}/ws`);
    ui.conn.textContent = "connecting…";
    ws.onopen = () => { ui.conn.textContent = "connected"; ui.conn.className = "conn ok"; reconnectDelay = 500; };
    ws.onclose = (ev) => {
      clearInterval(heartbeat);
      const full = ev.code === 1013;  // the server had no room: its error said when to retry
      ui.conn.textContent = full ? "server busy: retrying later…" : "disconnected: reconnecting…";
      ui.conn.className = "conn bad";
      setTimeout(connect, reconnectDelay);
      if (!full) reconnectDelay = Math.min(reconnectDelay * 2, 8000);
    };
    ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  }

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify(msg));
      return true;
    }
    say("Not connected to the server; reconnecting…", true);
    return false;
  }

  function receive(msg) {
    switch (msg.type) {
      case "hello": onHello(msg); break;
      case "table": onTable(msg); break;
      case "state": enqueue(msg); break;
      case "hint": onHint(msg); break;
      case "record": onRecord(msg); break;
      case "replay": onReplayList(msg); break;
      case "replay_hand": onReplayHand(msg); break;
      case "detached":
        say("This table was opened in another window; reload to take it back.", true);
        lockTable(); break;
      case "left": break;
      case "error": onError(msg); break;
      default: break;
    }
  }

  function onHello(msg) {
    hello = msg;
    // A socket that stays silent is closed by the server; a page left open pings it.
    clearInterval(heartbeat);
    const every = Math.max(5, hello.limits.socket_idle_s / 4) * 1000;
    heartbeat = setInterval(() => { if (ws && ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}'); }, every);
    $("replay-limit").textContent = sizeText(hello.limits.max_upload);
    fillSetup();
    const saved = localStorage.getItem(STORE_KEY);
    if (saved && ui.replay.hidden) {
      send({ type: "join", table: saved });
    } else if (ui.replay.hidden && !tableInfo) {
      show("setup");
    }
  }

  function onTable(msg) {
    tableInfo = msg;
    localStorage.setItem(STORE_KEY, msg.table);
    queue.length = 0;
    shown = null;
    hint = null;
    show("table");
    if (msg.notice) say(msg.notice);
    else if (msg.rejoined) say("Back at your table.");
    else say("");
    const cfg = msg.config;
    ui.practice.hidden = !cfg.practice;
    ui.practice.textContent = cfg.practice ? `Practice table: seed ${cfg.seed}. The same seed deals the same hands, so anyone who knows it knows every hand.` : "";
  }

  function onError(msg) {
    if (msg.code === "busy" || msg.code === "too_many_connections") {
      reconnectDelay = Math.max(1000, (msg.retry_after || 8) * 1000);
      say(msg.message, true);
      if (!ui.setup.hidden) { ui.setupError.textContent = msg.message; ui.setupError.hidden = false; }
      return;
    }
    if (msg.code === "unknown_table" && msg.request === "join") {
      localStorage.removeItem(STORE_KEY);
      tableInfo = null;
      show("setup");
      ui.setupError.textContent = `Your last table is gone: ${msg.message}`;
      ui.setupError.hidden = false;
      return;
    }
    if (msg.request === "new_table") {
      ui.setupError.textContent = msg.message;
      ui.setupError.hidden = false;
      ui.start.disabled = false;
      return;
    }
    if (msg.request === "replay_open" || msg.request === "replay_hand") {
      $("replay-error").textContent = msg.message;
      $("replay-error").hidden = false;
      return;
    }
    if (msg.request === "hint") ui.hint.disabled = false;
    if (msg.retry_after && (msg.code === "full" || msg.code === "too_many_tables")) {
      ui.setupError.textContent = msg.message;
      ui.setupError.hidden = false;
    }
    say(msg.message, true);
  }

  // ------------------------------------------------------------------ setup
  function option(value, text, selected) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    if (selected) o.selected = true;
    return o;
  }

  function fillSetup() {
    if (ui.preset.options.length === 0) {
      for (const name of Object.keys(hello.presets)) ui.preset.append(option(name, name.replace(/_/g, " "), name === "standard"));
      for (let n = 3; n <= 8; n++) ui.players.append(option(String(n), String(n), n === 4));
      ui.preset.addEventListener("change", () => {
        ui.players.value = String(hello.presets[ui.preset.value].players);
        ui.players.disabled = hello.presets[ui.preset.value].decks === 2;
        fillSeats();
      });
      ui.players.addEventListener("change", fillSeats);
      ui.seat.addEventListener("change", fillSeats);
    }
    fillSeats();
  }

  function fillSeats() {
    const n = Number(ui.players.value);
    const seat = Math.min(Number(ui.seat.value || 0), n - 1);
    ui.seat.replaceChildren(...Array.from({ length: n }, (_, s) => option(String(s), `seat ${s}`, s === seat)));
    const before = Array.from(ui.opponents.querySelectorAll("select")).map((sel) => sel.value);
    ui.opponents.replaceChildren();
    let k = 0;
    for (let s = 0; s < n; s++) {
      if (s === seat) continue;
      const lab = document.createElement("label");
      lab.textContent = `Seat ${s}`;
      const sel = document.createElement("select");
      sel.dataset.seat = String(s);
      sel.className = "opponent";
      for (const spec of hello.opponents) sel.append(option(spec, describeAgent(spec), spec === (before[k] || "auto")));
      lab.append(sel);
      ui.opponents.append(lab);
      k++;
    }
  }

  function describeAgent(spec) {
    return {
      auto: "best available (shipped policy, else expert)",
      search: "search (strongest, slower)",
      "policy:pretrained": "policy:pretrained (shipped network)",
      pimc: "pimc (sampled worlds)",
      expert: "expert (rules)",
      greedy: "greedy",
      random: "random",
    }[spec] || spec;
  }

  function readConfig() {
    const config = {
      preset: ui.preset.value,
      seat: Number(ui.seat.value),
      match: ui.match.value === "match",
      opponents: Array.from(ui.opponents.querySelectorAll("select")).map((s) => s.value),
    };
    if (!ui.players.disabled) config.players = Number(ui.players.value);
    if (config.opponents.every((o) => o === config.opponents[0])) config.opponents = config.opponents[0];
    if (ui.threshold.value !== "") config.threshold = Number(ui.threshold.value);
    if (ui.seed.value !== "") config.seed = Number(ui.seed.value);
    const text = ui.options.value.trim();
    if (text) config.options = JSON.parse(text);
    return config;
  }

  ui.start = $("start");
  $("setup-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    ui.setupError.hidden = true;
    let config;
    try {
      config = readConfig();
    } catch (e) {
      ui.setupError.textContent = `The rule options are not JSON: ${e.message}`;
      ui.setupError.hidden = false;
      return;
    }
    if (send({ type: "new_table", config })) {
      ui.start.disabled = true;
      say("Seating the opponents…");
    }
  });

  // ------------------------------------------------------------------ states, paced
  function enqueue(state) {
    queue.push(state);
    if (!draining) drain();
  }

  function drain() {
    draining = true;
    const state = queue.shift();
    if (!state) { draining = false; return; }
    const byAI = state.event && state.event.seat !== state.seat;
    draw(state);
    const pace = Number(ui.pace.value);
    const delay = byAI && queue.length ? pace : 0;
    if (delay) setTimeout(drain, delay); else drain();
  }

  // The person acts on the newest state only: a click on a state still being paced is ignored.
  function canAct() {
    return Boolean(shown && shown.your_turn && queue.length === 0);
  }

  // ------------------------------------------------------------------ drawing the table
  function seatName(s) {
    return (shown && shown.labels[s]) || `Seat ${s}`;
  }

  function cardEl(text, cls = "") {
    const span = document.createElement("span");
    span.className = `card ${cls}`.trim();
    span.innerHTML = CardArt.face(text);
    span.dataset.card = text;
    return span;
  }

  function smallCards(list, cls = "mini") {
    const wrap = document.createElement("span");
    wrap.className = "minis";
    for (const c of list) wrap.append(cardEl(c, cls));
    return wrap;
  }

  function draw(state) {
    ui.start.disabled = false;
    shown = state;
    ui.table.dataset.seq = String(state.seq);
    if (!hint || hint.seq !== state.seq) hint = null;
    const n = state.players;
    ui.title.textContent = titleOf(state);
    ui.status.textContent = statusOf(state);
    ui.standings.hidden = !state.match.on;
    if (state.match.on) {
      const what = state.phase === "over" ? "after this hand" : "before this hand";
      ui.standings.textContent = `Match totals ${what}: ` + state.match.totals
        .map((t, s) => `${s === state.seat ? "You" : seatName(s)} ${signed(t)}`).join(" · ");
    }
    // Opponents, in play order after the person.
    ui.opp.replaceChildren();
    for (let k = 1; k < n; k++) ui.opp.append(seatPanel(state, (state.seat + k) % n));
    ui.me.replaceChildren(seatPanel(state, state.seat, true));
    drawTrick(state);
    drawHand(state);
    const declaring = state.phase === "declare" && state.your_turn;
    ui.done.hidden = !(declaring && state.legal.includes("DONE"));
    ui.hint.disabled = !state.your_turn;
    ui.download.disabled = state.records === 0;
    ui.next.hidden = !(state.result && state.match.on && !state.match.over);
    drawResult(state);
    if (state.failure) say(state.failure, true);
    else if (state.event) say(eventText(state));
  }

  function titleOf(s) {
    const where = s.phase === "declare" ? "declaration" : s.phase === "over" ? "hand over" :
      `trick ${s.tricks_played + 1}`;
    return `${s.match.on ? `Match · hand ${s.hand_number}` : "Single hand"} · ${where}`;
  }

  function statusOf(s) {
    if (s.phase === "over") return s.match.on && s.match.over ? "The match is over." : "The hand is over.";
    if (s.thinking !== null && s.thinking !== undefined) return `${seatName(s.thinking)} is thinking…`;
    if (s.your_turn) return s.prompt;
    return `${seatName(s.current_player)} to play.`;
  }

  function eventText(s) {
    const e = s.event;
    const who = e.seat === s.seat ? "You" : seatName(e.seat);
    if (e.phase === "declare") {
      if (e.action === "DONE") return `${who} ${e.seat === s.seat ? "are" : "is"} done declaring.`;
      return `${who} exposed ${e.action ? CardArt.label(e.action) : "a card"}.`;
    }
    let text = e.action.includes("+") ? `${who} led the pair ${actionLabel(e.action)}.`
      : `${who} played ${actionLabel(e.action)}.`;
    if (s.trick.cards.length === 0 && s.last_trick) {
      const t = s.last_trick;
      text += ` ${t.winner === s.seat ? "You take" : `${seatName(t.winner)} takes`} trick ${t.number}.`;
    }
    return text;
  }

  // An action as a person reads it: "♠Q", the pair "♠Q+♠Q", or "done".
  function actionLabel(a) {
    return a === "DONE" ? "done" : a.split("+").map(CardArt.label).join("+");
  }

  function seatPanel(s, seat, mine = false) {
    const div = document.createElement("div");
    div.className = "seat";
    if (s.current_player === seat && s.phase !== "over") div.classList.add("to-move");
    if (s.thinking === seat) div.classList.add("thinking");
    if (s.teams && s.teams.some((t) => t.includes(seat) && t.includes(s.seat)) && seat !== s.seat) div.classList.add("partner");
    div.dataset.seat = String(seat);
    const head = document.createElement("div");
    head.className = "seat-head";
    const name = document.createElement("strong");
    name.textContent = seatName(seat);
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = signed(s.scores[seat]);
    score.title = "score this hand so far";
    head.append(name, score);
    if (s.teams && seat !== s.seat && s.teams.some((t) => t.includes(seat) && t.includes(s.seat))) {
      const p = document.createElement("span"); p.className = "tag"; p.textContent = "partner"; head.append(p);
    }
    if (s.phase === "declare" && s.declared[seat]) {
      const d = document.createElement("span"); d.className = "tag"; d.textContent = "declared"; head.append(d);
    }
    div.append(head);
    if (!mine) {
      const backs = document.createElement("div");
      backs.className = "backs";
      backs.innerHTML = `<span class="card back">${CardArt.back()}</span><span class="count">${s.cards_left[seat]}</span>`;
      backs.title = `${s.cards_left[seat]} cards in hand`;
      div.append(backs);
    }
    const hidden = s.exposed_counts[seat] - s.exposed[seat].length;
    if (s.exposed[seat].length || hidden > 0) {
      const row = document.createElement("div");
      row.className = "row exposed";
      row.append(label("exposed"), smallCards(s.exposed[seat]));
      for (const el of row.querySelectorAll(".card")) {
        if (s.doubled.includes(el.dataset.card)) { el.classList.add("doubled"); el.title = "doubled again: its holder's first dealt card"; }
      }
      if (hidden > 0) row.append(label(`+${hidden} hidden`));
      div.append(row);
    }
    if (s.captured[seat].length) {
      const row = document.createElement("div");
      row.className = "row captured";
      row.append(label("took"), smallCards(s.captured[seat]));
      div.append(row);
    }
    return div;
  }

  function label(text) {
    const l = document.createElement("span");
    l.className = "lbl";
    l.textContent = text;
    return l;
  }

  function signed(x) {
    return x > 0 ? `+${x}` : String(x);
  }

  function drawTrick(s) {
    ui.trick.replaceChildren();
    const n = s.players;
    // A trick just completed stays on the felt, its taker marked, until the next card.
    const finished = s.trick.cards.length === 0 && s.last_trick && s.phase !== "declare";
    const t = finished ? s.last_trick : s.trick;
    const pairLead = finished ? t.cards.length === 2 * n : t.pair_lead;
    ui.trick.classList.toggle("finished", Boolean(finished));
    const plays = [];
    if (pairLead) {
      for (let i = 0; i < t.cards.length; i += 2) plays.push(t.cards.slice(i, i + 2));
    } else {
      for (const c of t.cards) plays.push([c]);
    }
    plays.forEach((cards, i) => {
      const seat = (t.leader + i) % n;
      const slot = document.createElement("div");
      slot.className = "slot" + (finished && seat === t.winner ? " winner" : "");
      slot.dataset.seat = String(seat);
      for (const c of cards) slot.append(cardEl(c, "played"));
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = (seat === s.seat ? "You" : seatName(seat)) +
        (finished && seat === t.winner ? " take" + (seat === s.seat ? "" : "s") : "");
      slot.append(who);
      ui.trick.append(slot);
    });
    if (!plays.length && s.phase !== "over") {
      const p = document.createElement("p");
      p.className = "empty";
      p.textContent = s.phase === "declare" ? "Declaration" : `${s.your_turn ? "You lead" : `${seatName(s.current_player)} leads`}`;
      ui.trick.append(p);
    }
    if (s.last_trick) {
      const lt = s.last_trick;
      ui.lastTrick.textContent = `Trick ${lt.number}: ${lt.cards.map(CardArt.label).join(" ")} — ${lt.winner === s.seat ? "you" : seatName(lt.winner)} took it.`;
    } else {
      ui.lastTrick.textContent = "";
    }
  }

  function drawHand(s) {
    ui.hand.replaceChildren();
    const legal = new Set(s.legal);
    const values = hint && hint.values;
    for (const c of s.hand) {
      const single = legal.has(c);
      const pair = legal.has(`${c}+${c}`);
      const b = document.createElement("button");
      b.type = "button";
      b.className = "card in-hand";
      b.dataset.card = c;
      b.innerHTML = CardArt.face(c);
      b.setAttribute("aria-label", CardArt.label(c));
      if (single || pair) {
        b.classList.add("legal");
        b.addEventListener("click", () => play(single ? c : `${c}+${c}`));
      } else {
        b.disabled = true;
        b.classList.add("illegal");
      }
      if (s.exposed[s.seat].includes(c)) b.classList.add("is-exposed");
      if (s.first_drawn === c) {
        b.classList.add("first-drawn");
        b.title = "your first dealt card: exposing it doubles its effect again";
      }
      if (values && values[c] !== undefined) {
        const v = document.createElement("span");
        v.className = "value" + (hint.choice === c ? " best" : "");
        v.textContent = signed(Math.round(values[c]));
        b.append(v);
      } else if (hint && !values && (hint.choice === c || hint.choice === `${c}+${c}`)) {
        b.classList.add("suggested");
      }
      if (pair && !b.dataset.pairShown) {
        // The pair button goes on the first copy only.
        const already = ui.hand.querySelector(`[data-pair="${c}"]`);
        if (!already) {
          const p = document.createElement("span");
          p.className = "pair-btn";
          p.dataset.pair = c;
          const pv = values && values[`${c}+${c}`];
          // The search values a pair lead as an action of its own: shown on its button.
          p.textContent = pv === undefined || pv === null ? "pair" : `pair ${signed(Math.round(pv))}`;
          if (pv !== undefined && pv !== null) p.classList.add("pair-value");
          if (hint && hint.choice === `${c}+${c}`) p.classList.add(values ? "best" : "suggested");
          p.title = `lead the pair ${CardArt.label(c)}+${CardArt.label(c)}`;
          p.addEventListener("click", (ev) => { ev.stopPropagation(); play(`${c}+${c}`); });
          b.append(p);
        }
      }
      ui.hand.append(b);
    }
    if (hint && hint.note) {
      say(hint.values ? `Hint: ${hint.note}.` : `Hint: ${actionLabel(hint.choice)} (${hint.note}).`);
    }
  }

  function drawResult(s) {
    if (!s.result) { ui.result.hidden = true; return; }
    const n = s.players;
    const rows = [];
    const totals = s.match.on;
    const coins = tableInfo && tableInfo.config.rules.settlement === "yuanbao";
    const cols = totals ? 4 : 3;
    rows.push(`<tr><th></th><th>hand</th><th>${coins ? "coins" : "settled"}</th>${totals ? "<th>match total</th>" : ""}</tr>`);
    const seatRow = (seat) => {
      const cls = [s.match.winners.includes(seat) ? "winner" : "", s.match.losers.includes(seat) ? "loser" : ""].join(" ");
      return `<tr class="${cls}" data-seat="${seat}"><th>${escapeHtml(seatName(seat))}</th><td>${signed(s.result.scores[seat])}</td>` +
        `<td>${signed(s.result.settled[seat])}</td>${totals ? `<td>${signed(s.match.totals[seat])}</td>` : ""}</tr>`;
    };
    // Under team rules the seats are grouped by team, each team headed by its hand total.
    const groups = s.result.teams || Array.from({ length: n }, (_, seat) => [seat]);
    groups.forEach((team, k) => {
      if (s.result.teams) {
        const ours = team.includes(s.seat);
        const sum = team.reduce((a, seat) => a + s.result.scores[seat], 0);
        rows.push(`<tr class="team"><th colspan="${cols}">${ours ? "Your team" : `Team ${k + 1}`}: ${signed(sum)} this hand</th></tr>`);
      }
      for (const seat of team) rows.push(seatRow(seat));
    });
    let head = `<h3>Hand ${s.hand_number} result</h3>`;
    if (s.match.on && s.match.over) {
      const win = s.match.winners.map(seatName).join(" & ") || "nobody";
      head = `<h3>Match over after ${s.match.history.length} hands: ${escapeHtml(win)} win${s.match.winners.length === 1 ? "s" : ""}</h3>`;
    }
    ui.result.innerHTML = `${head}<table>${rows.join("")}</table><p class="explain">${escapeHtml(s.result.explain)}</p>`;
    ui.result.hidden = false;
  }

  function escapeHtml(t) {
    return String(t).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

  function say(text, isError = false) {
    ui.message.textContent = text;
    ui.message.classList.toggle("error", isError);
  }

  function lockTable() {
    if (shown) { shown = { ...shown, your_turn: false, legal: [] }; drawHand(shown); }
    ui.done.hidden = true;
    ui.hint.disabled = true;
  }

  // ------------------------------------------------------------------ acting
  function play(action) {
    if (!canAct()) return;
    if (!shown.legal.includes(action)) {
      say(`${action} is not legal now.`, true);
      return;
    }
    hint = null;
    if (send({ type: "move", action })) lockTable();
  }

  ui.done.addEventListener("click", () => play("DONE"));
  ui.hint.addEventListener("click", askHint);
  ui.next.addEventListener("click", () => send({ type: "next_hand" }));
  ui.download.addEventListener("click", () => send({ type: "record" }));

  function askHint() {
    if (!canAct()) return;
    ui.hint.disabled = true;
    say("The search agent is thinking about your position…");
    send({ type: "hint" });
  }

  function onHint(msg) {
    ui.hint.disabled = false;
    if (!shown || msg.seq !== shown.seq) return;  // an answer for a position already left
    hint = msg;
    drawHand(shown);
  }

  function onRecord(msg) {
    const blob = new Blob([msg.text], { type: "application/x-ndjson" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = msg.filename;
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    say(`Saved ${msg.hands} hand${msg.hands === 1 ? "" : "s"} as ${msg.filename}; replay it here or with gongzhu replay.`);
  }

  // Keyboard: type a card (suit letter then rank), "+" first for a pair, Enter for done.
  document.addEventListener("keydown", (ev) => {
    if (ui.table.hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    const key = ev.key;
    if (key === "?") { askHint(); ev.preventDefault(); return; }
    if (key === "Escape") { setTyped(""); return; }
    if (key === "ArrowRight" || key === "ArrowLeft") { moveFocus(key === "ArrowRight" ? 1 : -1); ev.preventDefault(); return; }
    if (key === "Enter") {
      if (tag === "button" && ev.target.classList.contains("in-hand")) return;  // the button's own click
      if (shown && shown.legal.includes("DONE")) { play("DONE"); ev.preventDefault(); }
      return;
    }
    if (key === "Backspace") { setTyped(typed.slice(0, -1)); return; }
    if (key.length !== 1 || !/[cdhs0-9tjqka+♠♥♦♣]/i.test(key)) return;
    setTyped(typed + key.toUpperCase());
    tryTyped();
  });

  function setTyped(t) {
    typed = t;
    ui.typed.textContent = t ? `typed: ${t}` : "";
  }

  function tryTyped() {
    if (!shown || !shown.your_turn) return;
    const pair = typed.startsWith("+");
    let body = pair ? typed.slice(1) : typed;
    if (!/^[CDHS]/.test(body)) { if (body.length) setTyped(""); return; }
    const rank = body.slice(1).replace(/^T$/, "10");
    if (rank === "" || rank === "1") return;  // waiting for more (1 -> 10)
    const card = body[0] + rank;
    const action = pair ? `${card}+${card}` : card;
    setTyped("");
    if (shown.legal.includes(action)) play(action);
    else if (shown.hand.includes(card)) say(`${CardArt.label(card)} is not legal now.`, true);
    else say(`You do not hold ${CardArt.label(card)}.`, true);
  }

  function moveFocus(step) {
    const cards = Array.from(ui.hand.querySelectorAll("button.legal"));
    if (!cards.length) return;
    const i = cards.indexOf(document.activeElement);
    cards[(i + step + cards.length) % cards.length].focus();
  }

  // ------------------------------------------------------------------ replay
  $("replay-file").addEventListener("change", (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    $("replay-error").hidden = true;
    if (hello && file.size > hello.limits.max_upload) {
      $("replay-error").textContent = `${file.name} is ${sizeText(file.size)}; the replay opens files of up to ${sizeText(hello.limits.max_upload)}. Open a part of it, or replay it with gongzhu replay.`;
      $("replay-error").hidden = false;
      return;
    }
    // The file travels as it is, one binary frame after its name and size: no escaping
    // makes it larger than the limit says.
    file.arrayBuffer().then((bytes) => {
      if (send({ type: "replay_open", name: file.name, size: bytes.byteLength })) ws.send(bytes);
    });
  });

  function sizeText(bytes) {
    return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
  }

  function onReplayList(msg) {
    const list = $("replay-hands");
    list.replaceChildren();
    for (const h of msg.hands) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "replay-pick";
      const names = h.players ? h.players.join(", ") : "";
      b.textContent = `Hand ${h.hand}${h.scores ? ` · scores ${h.scores.map(signed).join(" ")}` : " · unfinished"}${names ? ` · ${names}` : ""}`;
      b.addEventListener("click", () => send({ type: "replay_hand", hand: h.hand }));
      li.append(b);
      list.append(li);
    }
    if (msg.hands.length === 1) send({ type: "replay_hand", hand: 1 });
  }

  function onReplayHand(msg) {
    replay = msg;
    $("replay-view").hidden = false;
    const slider = $("rp-slider");
    slider.max = String(msg.frames.length - 1);
    replayGo(0);
  }

  function replayGo(step) {
    if (!replay) return;
    replayStep = Math.max(0, Math.min(step, replay.frames.length - 1));
    const f = replay.frames[replayStep];
    $("rp-slider").value = String(replayStep);
    $("rp-step").textContent = `step ${replayStep} of ${replay.frames.length - 1}`;
    $("rp-text").textContent = f.text + (replayStep === replay.frames.length - 1 && replay.scores ? ` — final scores ${replay.scores.map(signed).join(" ")}` : "");
    const seats = $("rp-seats");
    seats.replaceChildren();
    for (let s = 0; s < replay.players; s++) {
      const div = document.createElement("div");
      div.className = "seat" + (f.current_player === s && f.phase !== "over" ? " to-move" : "");
      div.dataset.seat = String(s);
      const head = document.createElement("div");
      head.className = "seat-head";
      head.innerHTML = `<strong>${escapeHtml(replay.labels[s])}</strong><span class="score">${signed(f.scores[s])}</span>`;
      div.append(head);
      const row = document.createElement("div");
      row.className = "row";
      row.append(smallCards(f.hands[s], "mini hand-mini"));
      div.append(row);
      if (f.exposed[s].length) { const r = document.createElement("div"); r.className = "row exposed"; r.append(label("exposed"), smallCards(f.exposed[s])); div.append(r); }
      if (f.captured[s].length) { const r = document.createElement("div"); r.className = "row captured"; r.append(label("took"), smallCards(f.captured[s])); div.append(r); }
      seats.append(div);
    }
    const trick = $("rp-trick");
    trick.replaceChildren();
    const t = f.trick;
    const per = t.pair_lead ? 2 : 1;
    for (let i = 0; i < t.cards.length; i += per) {
      const slot = document.createElement("div");
      slot.className = "slot";
      for (const c of t.cards.slice(i, i + per)) slot.append(cardEl(c, "played"));
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = replay.labels[(t.leader + i / per) % replay.players];
      slot.append(who);
      trick.append(slot);
    }
    $("rp-last-trick").textContent = f.last_trick ? `Trick ${f.last_trick.number}: ${f.last_trick.cards.map(CardArt.label).join(" ")} — ${replay.labels[f.last_trick.winner]} took it.` : "";
  }

  $("rp-first").addEventListener("click", () => replayGo(0));
  $("rp-prev").addEventListener("click", () => replayGo(replayStep - 1));
  $("rp-next").addEventListener("click", () => replayGo(replayStep + 1));
  $("rp-last").addEventListener("click", () => replayGo(Infinity));
  $("rp-slider").addEventListener("input", (ev) => replayGo(Number(ev.target.value)));
  document.addEventListener("keydown", (ev) => {
    if (ui.replay.hidden || !replay) return;
    if (ev.key === "ArrowRight") replayGo(replayStep + 1);
    if (ev.key === "ArrowLeft") replayGo(replayStep - 1);
  });

  // ------------------------------------------------------------------ navigation
  function show(which) {
    ui.navTable.hidden = !(tableInfo && which !== "table");
    ui.setup.hidden = which !== "setup";
    ui.table.hidden = which !== "table";
    ui.replay.hidden = which !== "replay";
  }

  $("nav-new").addEventListener("click", () => {
    if (tableInfo && shown && shown.phase !== "over" && !confirm("Leave this table? The hand in progress is lost.")) return;
    if (tableInfo) send({ type: "leave" });
    localStorage.removeItem(STORE_KEY);
    tableInfo = null;
    shown = null;
    show("setup");
  });
  $("nav-replay").addEventListener("click", () => show("replay"));
  ui.navTable.addEventListener("click", () => show("table"));

  connect();
})();
