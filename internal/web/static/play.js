// wopr: the games against the engine. The first part is shared by /play
// and /nineboard (the score kept in localStorage, the keyboard on a grid of
// cells, the status line); the second is /play's m,n,k games. The server
// owns each game and checks every move: this page only sends the move and
// draws what the server answers.
"use strict";

// Tally is the person's wins, draws and losses on one kind of board, kept
// in localStorage across reloads. Each game counts once, reloads included.
class Tally {
  constructor(key) {
    this.key = "wopr.tally." + key;
    let t = null;
    try {
      t = JSON.parse(localStorage.getItem(this.key));
    } catch (e) {
      t = null;
    }
    this.t = t && typeof t === "object" ? t : {};
    for (const k of ["wins", "draws", "losses"]) {
      if (!Number.isInteger(this.t[k])) this.t[k] = 0;
    }
    if (!Array.isArray(this.t.counted)) this.t.counted = [];
  }
  // count records the result of game id ("win", "draw" or "loss") once.
  count(id, outcome) {
    if (this.t.counted.includes(id)) return;
    this.t.counted = this.t.counted.slice(-20).concat([id]);
    this.t[{ win: "wins", draw: "draws", loss: "losses" }[outcome]]++;
    this.save();
  }
  reset() {
    this.t.wins = this.t.draws = this.t.losses = 0;
    this.save();
  }
  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify(this.t));
    } catch (e) {
      // A browser that keeps nothing still plays.
    }
  }
  show() {
    $("#wins").textContent = this.t.wins;
    $("#draws").textContent = this.t.draws;
    $("#losses").textContent = this.t.losses;
  }
}

// outcomeFor is "win", "draw" or "loss" for the person, or "" while the
// game goes on.
function outcomeFor(state) {
  if (!state.result) return "";
  if (state.result === "draw") return "draw";
  return state.result === state.human ? "win" : "loss";
}

// statusText is the status line of a state.
function statusText(state, busy) {
  const me = state.human.toUpperCase();
  switch (outcomeFor(state)) {
    case "win": return "You win!";
    case "loss": return "wopr wins.";
    case "draw": return "Draw.";
  }
  if (busy || state.thinking || state.to_move !== state.human) return "wopr is thinking…";
  return "Your move (" + me + ")";
}

// GridKeys moves the focus over a grid of cells with the arrow keys; Enter
// and Space play the focused cell, which is a button. cellAt(r, c) returns
// the element of a cell.
class GridKeys {
  constructor(container, rows, cols, cellAt) {
    this.rows = rows;
    this.cols = cols;
    this.cellAt = cellAt;
    this.r = 0;
    this.c = 0;
    container.addEventListener("keydown", (e) => this.key(e));
    container.addEventListener("focusin", (e) => {
      const t = e.target;
      if (t.dataset && t.dataset.gr !== undefined) this.focus(+t.dataset.gr, +t.dataset.gc, false);
    });
  }
  // focus makes (r, c) the one cell in the tab order, and focuses it if move.
  focus(r, c, move) {
    const old = this.cellAt(this.r, this.c);
    if (old) old.tabIndex = -1;
    this.r = Math.max(0, Math.min(this.rows - 1, r));
    this.c = Math.max(0, Math.min(this.cols - 1, c));
    const cell = this.cellAt(this.r, this.c);
    if (!cell) return;
    cell.tabIndex = 0;
    if (move) cell.focus();
  }
  key(e) {
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (!d) return;
    e.preventDefault();
    this.focus(this.r + d[0], this.c + d[1], true);
  }
}

// GamePage is what both pages share: the settings form, the status and
// error lines, the score, the evaluation panel and the keys n and e.
class GamePage {
  constructor(api) {
    this.api = api; // base URL of the games, e.g. "/api/mnk/games"
    this.state = null;
    this.busy = false;
    $("#settings").addEventListener("submit", (e) => {
      e.preventDefault();
      this.newGame();
    });
    $("#analyse").addEventListener("click", () => this.analyse());
    $("#reset-tally").addEventListener("click", () => {
      this.tally.reset();
      this.tally.show();
    });
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest("input, select, textarea")) return;
      if (e.key === "n") this.newGame();
      else if (e.key === "e") this.analyse();
    });
  }

  // storageKey keeps the current game's id for a reload of this tab.
  get storageKey() {
    return "wopr.game." + this.api;
  }

  async start() {
    const id = sessionStorage.getItem(this.storageKey);
    if (id) {
      try {
        const st = await api("GET", this.api + "/" + encodeURIComponent(id));
        this.settingsFrom(st);
        this.show(st);
        return;
      } catch (e) {
        sessionStorage.removeItem(this.storageKey);
      }
    }
    await this.newGame();
  }

  async newGame() {
    if (this.busy) return;
    const params = this.params();
    if (!params) return;
    this.setBusy(true, params.human === "o" ? "wopr is thinking…" : "Setting up…");
    this.error("");
    this.clearAnalysis();
    try {
      const st = await api("POST", this.api, params);
      sessionStorage.setItem(this.storageKey, st.id);
      this.show(st);
    } catch (e) {
      this.error(e.message);
      if (this.state) this.show(this.state);
      else $("#status").textContent = "No game.";
    } finally {
      this.setBusy(false);
      this.status();
    }
  }

  // move sends a move and shows the answer: the state after the engine's
  // reply, or the server's reason for refusing it (the board as it was).
  async move(body, pending) {
    if (this.busy || !this.state) return;
    this.error("");
    this.clearAnalysis();
    this.setBusy(true, this.state.result ? null : "wopr is thinking…");
    if (pending && !this.state.result) {
      pending.textContent = this.state.human.toUpperCase();
      pending.classList.add("pending", this.state.human);
    }
    try {
      this.show(await api("POST", this.api + "/" + encodeURIComponent(this.state.id) + "/moves", body));
    } catch (e) {
      this.error(e.message);
      this.show(this.state);
    } finally {
      this.setBusy(false);
      this.status();
    }
  }

  async analyse() {
    if (!this.state || this.busy) return;
    this.error("");
    this.clearAnalysis();
    $("#eval-summary").textContent = "Thinking…";
    try {
      const a = await api("GET", this.api + "/" + encodeURIComponent(this.state.id) + "/analysis");
      this.showAnalysis(a);
    } catch (e) {
      $("#eval-summary").textContent = e.message;
    }
  }

  showAnalysis(a) {
    const who = (side) => (side === this.state.human ? "you" : "wopr");
    $("#eval-summary").textContent = a.summary + ".";
    const pv = $("#pv");
    pv.replaceChildren();
    let side = a.to_move;
    for (const m of a.pv) {
      pv.append(el("li", {}, el("span", { class: "mark " + side }, side.toUpperCase()), " " + this.moveText(m) + " ", el("span", { class: "muted" }, "(" + who(side) + ")")));
      side = side === "x" ? "o" : "x";
    }
    const detail = [a.engine];
    if (a.depth) detail.push("depth " + a.depth);
    detail.push(a.nodes.toLocaleString("en") + " positions", Math.round(a.seconds * 1000) + " ms");
    $("#eval-detail").textContent = detail.join(", ");
    this.markPV(a.pv);
  }

  clearAnalysis() {
    $("#eval-summary").textContent = "";
    $("#eval-detail").textContent = "";
    $("#pv").replaceChildren();
    for (const c of document.querySelectorAll("[data-pv]")) delete c.dataset.pv;
    for (const c of document.querySelectorAll(".best")) c.classList.remove("best");
  }

  setBusy(busy, text) {
    this.busy = busy;
    $("#board").classList.toggle("busy", busy);
    $("#board").setAttribute("aria-busy", busy ? "true" : "false");
    if (busy && text) $("#status").textContent = text;
  }

  status() {
    if (!this.state) return;
    const s = $("#status");
    s.textContent = statusText(this.state, this.busy);
    s.dataset.outcome = outcomeFor(this.state);
  }

  error(msg) {
    $("#error").textContent = msg;
  }

  show(st) {
    this.state = st;
    this.tally = new Tally(this.tallyKey(st));
    $("#tally-name").textContent = "(" + this.tallyName(st) + ")";
    const outcome = outcomeFor(st);
    if (outcome) this.tally.count(st.id, outcome);
    this.tally.show();
    this.draw(st);
    this.status();
  }
}

// The m,n,k games of /play.
class MNKPage extends GamePage {
  constructor(root) {
    super("/api/mnk/games");
    this.root = root;
    this.maxPerfect = +root.dataset.maxPerfect;
    this.smallSide = +root.dataset.smallSide;
    this.maxBigK = +root.dataset.maxBigK;
    this.cells = [];
    this.keys = new GridKeys($("#board"), 0, 0, (r, c) => this.cells[r * this.keys.cols + c]);
    this.view = null; // the number of moves shown while stepping through the game, or null: the game now
    $("#preset").addEventListener("change", () => this.presetChanged());
    $("#step-first").addEventListener("click", () => this.step(0));
    $("#step-back").addEventListener("click", () => this.step(this.shown() - 1));
    $("#step-fwd").addEventListener("click", () => this.step(this.shown() + 1));
    $("#step-last").addEventListener("click", () => this.step(Infinity));
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest("input, select, textarea")) return;
      if (e.key === "[") this.step(this.shown() - 1);
      else if (e.key === "]") this.step(this.shown() + 1);
    });
    $("#record").addEventListener("focus", (e) => e.target.select());
    $("#load-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.load($("#load").value.trim());
    });
    for (const id of ["rows", "cols", "k"]) $("#" + id).addEventListener("input", () => this.opponents());
    window.addEventListener("resize", () => this.state && this.size(this.state));
  }

  // dims are the board of the settings: [rows, cols, k].
  dims() {
    const p = $("#preset").value;
    if (p !== "custom") return p.split(",").map(Number);
    return ["rows", "cols", "k"].map((id) => parseInt($("#" + id).value, 10));
  }

  presetChanged() {
    const custom = $("#preset").value === "custom";
    $("#custom").hidden = !custom;
    if (!custom) {
      const [r, c, k] = this.dims();
      $("#rows").value = r;
      $("#cols").value = c;
      $("#k").value = k;
    }
    this.opponents();
  }

  // perfectOK says whether the perfect player plays rows x cols.
  perfectOK(rows, cols) {
    return rows <= this.smallSide && cols <= this.smallSide && rows * cols <= this.maxPerfect;
  }

  // opponents offers perfect only where it plays, and says why not.
  opponents() {
    const [rows, cols] = this.dims();
    const ok = this.perfectOK(rows, cols);
    const sel = $("#opponent");
    sel.querySelector('option[value="perfect"]').disabled = !ok;
    if (!ok && sel.value === "perfect") sel.value = "engine:time=1s";
    $("#note").textContent = ok ? "" : "Perfect play is known for boards of up to " + this.maxPerfect +
      " cells; on this one wopr searches for the time or depth you choose.";
  }

  settingsFrom(st) {
    const key = st.rows + "," + st.cols + "," + st.k;
    const preset = $('#preset option[value="' + key + '"]');
    $("#preset").value = preset ? key : "custom";
    $("#custom").hidden = !!preset;
    $("#rows").value = st.rows;
    $("#cols").value = st.cols;
    $("#k").value = st.k;
    $("#human").value = st.human;
    this.opponents();
    if ($('#opponent option[value="' + st.opponent + '"]')) $("#opponent").value = st.opponent;
  }

  params() {
    const [rows, cols, k] = this.dims();
    return { rows, cols, k, human: $("#human").value, opponent: $("#opponent").value };
  }

  // load starts a game from one written down ("3x3 k3: 1,1 0,0"), with
  // the side and the opponent of the settings; the server checks it.
  async load(text) {
    if (this.busy || !text) return;
    this.error("");
    this.clearAnalysis();
    this.setBusy(true, "Setting up…");
    try {
      const st = await api("POST", this.api, { game: text, human: $("#human").value, opponent: $("#opponent").value });
      sessionStorage.setItem(this.storageKey, st.id);
      this.settingsFrom(st);
      this.show(st);
    } catch (e) {
      this.error(e.message);
    } finally {
      this.setBusy(false);
      this.status();
    }
  }

  // shown is the number of moves on the board as drawn.
  shown() {
    return this.view === null ? this.state.moves.length : this.view;
  }

  // step shows the position after n moves (the game now from its last).
  step(n) {
    if (!this.state) return;
    const last = this.state.moves.length;
    n = Math.max(0, Math.min(last, n));
    this.view = n === last ? null : n;
    this.clearAnalysis();
    this.draw(this.state);
    this.status();
  }

  status() {
    super.status();
    if (this.state && this.view !== null) {
      $("#status").textContent = "After move " + this.view + " of " + this.state.moves.length;
    }
  }

  // viewed is st as it was after n moves: the board, the last move; no
  // result or winning line before the end.
  viewed(st, n) {
    const board = Array.from({ length: st.rows }, () => Array(st.cols).fill("."));
    st.moves.slice(0, n).forEach((m, i) => { board[m[0]][m[1]] = i % 2 === 0 ? "X" : "O"; });
    return Object.assign({}, st, {
      board: board.map((r) => r.join("")), moves: st.moves.slice(0, n), winning_line: [], result: "",
    });
  }

  // drawMoves lists the moves, the one shown marked, each a step to its
  // position; and the game written down.
  drawMoves(st) {
    const shown = this.shown();
    $("#moves").replaceChildren(...st.moves.map((m, i) => {
      const side = i % 2 === 0 ? "x" : "o";
      const li = el("li", { class: i === shown - 1 ? "shown" : "" },
        el("button", { type: "button", class: "linkish", "data-ply": i + 1 },
          el("span", { class: "mark " + side }, side.toUpperCase()), " " + this.moveText(m)));
      li.firstChild.addEventListener("click", () => this.step(i + 1));
      return li;
    }));
    $("#viewing").textContent = this.view === null ? "" :
      "Showing the position after " + shown + " of " + st.moves.length + " moves: » or ] returns to the game.";
    $("#record").value = st.record || "";
    $("#step-first").disabled = $("#step-back").disabled = shown === 0;
    $("#step-fwd").disabled = $("#step-last").disabled = this.view === null;
  }

  tallyKey(st) {
    return "mnk." + st.rows + "x" + st.cols + "k" + st.k;
  }

  tallyName(st) {
    return st.rows + "x" + st.cols + ", " + st.k + " in a row";
  }

  moveText(m) {
    return m[0] + "," + m[1];
  }

  // size fits the cells to the width there is: big boards get small cells.
  size(st) {
    const board = $("#board");
    const room = Math.min(board.parentElement.clientWidth || 600, 640);
    const cell = Math.max(20, Math.min(110, Math.floor((room - 2 * (st.cols - 1) - 8) / st.cols)));
    board.style.setProperty("--cell", cell + "px");
    board.style.gridTemplateColumns = "repeat(" + st.cols + ", var(--cell))";
  }

  draw(st) {
    const board = $("#board");
    if (this.view !== null && (this.view >= st.moves.length || st.id !== this.viewOf)) this.view = null;
    this.viewOf = st.id;
    this.drawMoves(st);
    board.classList.toggle("viewing", this.view !== null);
    if (this.view !== null) st = this.viewed(st, this.view);
    if (!this.drawn || this.drawn.rows !== st.rows || this.drawn.cols !== st.cols) {
      this.build(st);
    }
    this.size(st);
    const win = new Set(st.winning_line.map((rc) => rc[0] * st.cols + rc[1]));
    const last = st.moves.length ? st.moves[st.moves.length - 1] : null;
    for (let r = 0; r < st.rows; r++) {
      for (let c = 0; c < st.cols; c++) {
        const cell = this.cells[r * st.cols + c];
        const v = st.board[r][c];
        const side = v === "X" ? "x" : v === "O" ? "o" : "";
        cell.textContent = v === "." ? "" : v;
        cell.className = "cell" + (side ? " " + side + " taken" : "") + (win.has(r * st.cols + c) ? " win" : "") +
          (last && last[0] === r && last[1] === c ? " last" : "");
        cell.setAttribute("aria-label", "row " + r + ", column " + c + ": " + (side ? side.toUpperCase() : "empty"));
      }
    }
    board.classList.toggle("over", !!st.result);
  }

  // build makes the cells of a board of a new size.
  build(st) {
    const board = $("#board");
    this.cells = [];
    const rows = [];
    for (let r = 0; r < st.rows; r++) {
      const row = el("div", { role: "row", class: "row" });
      for (let c = 0; c < st.cols; c++) {
        const cell = el("button", { type: "button", class: "cell", role: "gridcell", tabindex: "-1", "data-r": r, "data-c": c, "data-gr": r, "data-gc": c });
        cell.addEventListener("click", () => {
          if (this.view !== null) {
            this.step(Infinity); // a click while stepping returns to the game
            return;
          }
          this.move({ row: r, col: c }, cell.textContent ? null : cell);
        });
        row.append(cell);
        this.cells.push(cell);
      }
      rows.push(row);
    }
    board.replaceChildren(...rows);
    this.drawn = { rows: st.rows, cols: st.cols };
    this.keys.rows = st.rows;
    this.keys.cols = st.cols;
    this.keys.focus(Math.floor((st.rows - 1) / 2), Math.floor((st.cols - 1) / 2), false);
  }

  markPV(pv) {
    pv.forEach((m, i) => {
      const cell = this.cells[m[0] * this.state.cols + m[1]];
      if (!cell) return;
      if (i === 0) cell.classList.add("best");
      cell.dataset.pv = i + 1;
    });
  }
}

if ($("#play")) {
  new MNKPage($("#play")).start();
}
