// wopr: nine-board tic-tac-toe against the engine (/nineboard). Uses the
// shared parts of play.js. Boards and cells are 1 to 9, row by row, as the
// API and the referee protocol number them.
"use strict";

class NinePage extends GamePage {
  constructor() {
    super("/api/nineboard/games");
    this.cells = []; // cells[(board-1)*9 + cell-1]
    this.minis = [];
    this.build();
  }

  // build makes the nine boards once; a cell's place on the 9x9 grid the
  // arrow keys move over is (gr, gc).
  build() {
    const root = $("#board");
    for (let b = 1; b <= 9; b++) {
      const mini = el("div", { class: "mini", role: "group", "aria-label": "board " + b });
      for (let c = 1; c <= 9; c++) {
        const gr = Math.floor((b - 1) / 3) * 3 + Math.floor((c - 1) / 3);
        const gc = ((b - 1) % 3) * 3 + ((c - 1) % 3);
        const cell = el("button", { type: "button", class: "cell", tabindex: "-1", "data-b": b, "data-c": c, "data-gr": gr, "data-gc": gc });
        cell.addEventListener("click", () => this.move({ board: b, cell: c }, cell.textContent ? null : cell));
        mini.append(cell);
        this.cells.push(cell);
      }
      this.minis.push(mini);
      root.append(mini);
    }
    this.grid = [];
    for (const cell of this.cells) this.grid[+cell.dataset.gr * 9 + +cell.dataset.gc] = cell;
    this.keys = new GridKeys(root, 9, 9, (r, c) => this.grid[r * 9 + c]);
    this.keys.focus(4, 4, false);
  }

  settingsFrom(st) {
    $("#variant").value = st.variant;
    $("#human").value = st.human;
    if ($('#opponent option[value="' + st.opponent + '"]')) $("#opponent").value = st.opponent;
  }

  params() {
    return { variant: $("#variant").value, human: $("#human").value, opponent: $("#opponent").value };
  }

  tallyKey(st) {
    return "nineboard." + st.variant;
  }

  tallyName(st) {
    return st.variant === "ultimate" ? "ultimate" : "first three in a row";
  }

  moveText(m) {
    return m[0] + ":" + m[1];
  }

  draw(st) {
    const playable = new Set(st.playable);
    const win = new Set(st.winning_line.map((m) => (m[0] - 1) * 9 + m[1] - 1));
    const winBoards = new Set(st.winning_boards);
    const last = st.moves.length ? st.moves[st.moves.length - 1] : null;
    for (let b = 1; b <= 9; b++) {
      const mini = this.minis[b - 1];
      const won = st.won[b - 1];
      mini.className = "mini" + (playable.has(b) ? " playable" : "") + (won !== "." ? " decided won-" + won.toLowerCase() : "") +
        (winBoards.has(b) ? " winning" : "");
      if (won !== ".") mini.dataset.won = won;
      else delete mini.dataset.won;
      mini.setAttribute("aria-label", "board " + b + (playable.has(b) ? ", yours to play in" : "") + (won !== "." ? ", won by " + won : ""));
      for (let c = 1; c <= 9; c++) {
        const i = (b - 1) * 9 + c - 1;
        const cell = this.cells[i];
        const v = st.boards[b - 1][c - 1];
        const side = v === "X" ? "x" : v === "O" ? "o" : "";
        cell.textContent = v === "." ? "" : v;
        cell.className = "cell" + (side ? " " + side + " taken" : "") + (win.has(i) ? " win" : "") +
          (last && last[0] === b && last[1] === c ? " last" : "");
        cell.setAttribute("aria-label", "board " + b + ", cell " + c + ": " + (side ? side.toUpperCase() : "empty"));
      }
    }
    $("#board").classList.toggle("over", !!st.result);
    const note = [];
    if (st.referee_moves) note.push("The referee made X's first move at random, " + this.moveText(st.moves[0]) + ".");
    if (st.result && st.why) note.push("The game is over: " + st.why + ".");
    $("#note").textContent = note.join(" ");
  }

  markPV(pv) {
    pv.forEach((m, i) => {
      const cell = this.cells[(m[0] - 1) * 9 + m[1] - 1];
      if (!cell) return;
      if (i === 0) cell.classList.add("best");
      cell.dataset.pv = i + 1;
    });
  }
}

if ($("#nineboard")) {
  new NinePage().start();
}
