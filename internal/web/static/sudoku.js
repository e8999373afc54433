// /sudoku: the grid and its entries live here; the puzzle's solution stays
// on the server, which answers check, hint and solve. The rules (a digit
// once per row, column and box) are checked here as the person types.
"use strict";

(function () {
  const grid = $("#sdk-grid");
  const statusEl = $("#sdk-status");
  const conflictsEl = $("#sdk-conflicts");
  const timerEl = $("#sdk-timer");
  const hintBox = $("#sdk-hint-box");
  const pad = $("#sdk-pad");
  const saveKey = "wopr.sudoku";

  const S = {
    id: "",
    givens: new Array(81).fill(0),
    values: new Array(81).fill(0),
    marks: new Array(81).fill(0), // bit d-1 for pencil mark d
    sel: 40,
    pencil: false,
    undo: [], // actions: lists of {i, from: {v, m}, to: {v, m}}
    redo: [],
    mistakes: new Set(),
    hint: null,
    elapsed: 0, // ms before started
    started: 0, // Date.now() when the clock last started; 0: stopped
    done: "", // "" while playing, "solved" or "revealed"
    busy: false,
  };

  const name = (i) => "r" + (Math.floor(i / 9) + 1) + "c" + ((i % 9) + 1);
  const row = (i) => Math.floor(i / 9);
  const col = (i) => i % 9;
  const box = (i) => Math.floor(row(i) / 3) * 3 + Math.floor(col(i) / 3);

  // peers[i] lists the other cells of i's row, column and box.
  const peers = [];
  for (let i = 0; i < 81; i++) {
    peers.push([]);
    for (let j = 0; j < 81; j++) {
      if (j !== i && (row(j) === row(i) || col(j) === col(i) || box(j) === box(i))) peers[i].push(j);
    }
  }

  // The cells, made once.
  const cells = [];
  for (let i = 0; i < 81; i++) {
    const marks = el("div", { class: "sdk-marks" });
    for (let d = 1; d <= 9; d++) marks.append(el("span"));
    const v = el("span", { class: "sdk-v" });
    const c = el("div", { class: "sdk-cell", role: "gridcell", "data-i": i }, v, marks);
    if (col(i) % 3 === 2 && col(i) !== 8) c.classList.add("br");
    if (row(i) % 3 === 2 && row(i) !== 8) c.classList.add("bb");
    if (col(i) === 8) c.classList.add("lc");
    if (row(i) === 8) c.classList.add("lr");
    c.addEventListener("mousedown", (e) => {
      e.preventDefault();
      S.sel = i;
      grid.focus();
      render();
    });
    cells.push(c);
    grid.append(c);
  }

  // The number pad.
  for (let d = 1; d <= 9; d++) {
    pad.append(el("button", { type: "button", class: "digit", "data-d": d, onclick: () => digit(d, S.pencil) }, String(d)));
  }
  pad.append(el("button", { type: "button", class: "erase", title: "Clear the cell (Delete)", onclick: () => clear() }, "⌫ Clear"));

  // conflicts finds, for every filled cell, the peers with the same digit.
  function conflicts() {
    const found = new Map(); // cell -> [peer...]
    for (let i = 0; i < 81; i++) {
      const v = S.values[i];
      if (!v) continue;
      const same = peers[i].filter((j) => S.values[j] === v);
      if (same.length) found.set(i, same);
    }
    return found;
  }

  // unitOf names the unit that i and j share, row first.
  function unitOf(i, j) {
    if (row(i) === row(j)) return "row " + (row(i) + 1);
    if (col(i) === col(j)) return "column " + (col(i) + 1);
    return "box " + (box(i) + 1);
  }

  function render() {
    const found = conflicts();
    const sv = S.values[S.sel];
    const hintRel = new Set(S.hint ? S.hint.related : []);
    for (let i = 0; i < 81; i++) {
      const c = cells[i];
      const v = S.values[i];
      const given = S.givens[i] !== 0;
      c.firstChild.textContent = v ? String(v) : "";
      const marks = c.lastChild.children;
      for (let d = 1; d <= 9; d++) {
        const on = !v && (S.marks[i] >> (d - 1)) & 1;
        marks[d - 1].textContent = on ? String(d) : "";
        marks[d - 1].className = on && d === sv ? "on-same" : "";
      }
      const cl = c.classList;
      cl.toggle("given", given);
      cl.toggle("entry", !given && v !== 0);
      cl.toggle("sel", i === S.sel);
      cl.toggle("shade", i !== S.sel && (row(i) === row(S.sel) || col(i) === col(S.sel) || box(i) === box(S.sel)));
      cl.toggle("same", i !== S.sel && sv !== 0 && v === sv);
      cl.toggle("conflict", found.has(i));
      cl.toggle("mistake", S.mistakes.has(i));
      cl.toggle("hint", !!S.hint && S.hint.cell === i);
      cl.toggle("hint-rel", hintRel.has(i));
      c.setAttribute("aria-selected", i === S.sel ? "true" : "false");
      c.setAttribute("aria-label", name(i) + (v ? " " + v : " empty") + (given ? " given" : ""));
    }
    // Name each entry that repeats a digit, with the cells it repeats.
    conflictsEl.replaceChildren();
    for (const [i, same] of found) {
      if (S.givens[i]) continue;
      const where = same.map((j) => name(j) + " (" + unitOf(i, j) + ")").join(", ");
      conflictsEl.append(el("li", {}, S.values[i] + " at " + name(i) + " repeats " + where));
    }
    grid.classList.toggle("solved", S.done !== "");
    $("#sdk-undo").disabled = S.undo.length === 0 || S.done === "revealed";
    $("#sdk-redo").disabled = S.redo.length === 0 || S.done === "revealed";
    for (const id of ["#sdk-check", "#sdk-hint", "#sdk-solve"]) $(id).disabled = !S.id || S.done !== "" || S.busy;
    $("#sdk-new").disabled = S.busy;
    $("#sdk-load").disabled = S.busy;
    $("#sdk-pencil").setAttribute("aria-pressed", S.pencil ? "true" : "false");
    pad.classList.toggle("pencil", S.pencil);
  }

  function say(text, kind) {
    statusEl.textContent = text;
    statusEl.className = "sdk-status" + (kind ? " " + kind : "");
  }

  // apply makes a list of cell changes, as one undoable action.
  function apply(changes) {
    if (!changes.length) return;
    for (const ch of changes) {
      S.values[ch.i] = ch.to.v;
      S.marks[ch.i] = ch.to.m;
      S.mistakes.delete(ch.i);
    }
    S.undo.push(changes);
    S.redo = [];
    changed();
  }

  function changed() {
    S.hint = null;
    hintBox.hidden = true;
    render();
    save();
    const full = S.values.every((v) => v !== 0);
    if (S.done === "" && full && conflicts().size === 0) finishIfSolved();
  }

  function editable(i) {
    if (!S.id || S.done !== "") return false;
    if (S.givens[i]) {
      say(name(i) + " holds a given, which stays.", "bad");
      return false;
    }
    return true;
  }

  // digit enters d in the selected cell, or toggles its pencil mark.
  function digit(d, pencil) {
    const i = S.sel;
    if (!editable(i)) return;
    say("");
    const from = { v: S.values[i], m: S.marks[i] };
    if (pencil) {
      if (S.values[i]) return;
      apply([{ i, from, to: { v: 0, m: S.marks[i] ^ (1 << (d - 1)) } }]);
      return;
    }
    if (S.values[i] === d) return;
    // Placing a digit also takes it out of its peers' pencil marks.
    const changes = [{ i, from, to: { v: d, m: 0 } }];
    const bit = 1 << (d - 1);
    for (const j of peers[i]) {
      if (S.marks[j] & bit) changes.push({ i: j, from: { v: S.values[j], m: S.marks[j] }, to: { v: S.values[j], m: S.marks[j] & ~bit } });
    }
    apply(changes);
  }

  function clear() {
    const i = S.sel;
    if (!editable(i)) return;
    say("");
    if (S.values[i] === 0 && S.marks[i] === 0) return;
    apply([{ i, from: { v: S.values[i], m: S.marks[i] }, to: { v: 0, m: 0 } }]);
  }

  function undo(redo) {
    const from = redo ? S.redo : S.undo;
    const to = redo ? S.undo : S.redo;
    if (!from.length || S.done === "revealed") return;
    const changes = from.pop();
    for (const ch of redo ? changes : [...changes].reverse()) {
      const st = redo ? ch.to : ch.from;
      S.values[ch.i] = st.v;
      S.marks[ch.i] = st.m;
      S.mistakes.delete(ch.i);
    }
    to.push(changes);
    S.sel = changes[0].i;
    say("");
    changed();
  }

  function gridString() {
    return S.values.map((v) => (v ? String(v) : ".")).join("");
  }

  // The clock: elapsed time on this puzzle, stopped when it is done.
  function clock() {
    const ms = S.elapsed + (S.started ? Date.now() - S.started : 0);
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600);
    const mm = String(Math.floor(s / 60) % 60);
    const ss = String(s % 60).padStart(2, "0");
    timerEl.textContent = h ? h + ":" + mm.padStart(2, "0") + ":" + ss : mm + ":" + ss;
    timerEl.classList.toggle("done", S.done === "solved");
    return ms;
  }
  function stopClock() {
    S.elapsed = clock();
    S.started = 0;
  }
  setInterval(clock, 250);

  // load starts a game the server made.
  function load(game, saved) {
    S.id = game.id;
    grid.dataset.id = game.id;
    S.givens = [...game.puzzle].map((c) => (c === "." ? 0 : Number(c)));
    S.values = saved ? saved.values : S.givens.slice();
    S.marks = saved ? saved.marks : new Array(81).fill(0);
    S.undo = [];
    S.redo = [];
    S.mistakes = new Set();
    S.hint = null;
    S.done = saved && (saved.done === "solved" || saved.done === "revealed") ? saved.done : "";
    S.elapsed = saved && saved.elapsed > 0 ? saved.elapsed : 0;
    S.started = S.done ? 0 : Date.now();
    S.sel = S.givens.findIndex((v) => v === 0);
    hintBox.hidden = true;
    const rating = game.rating === null ? "rated beyond the logical solver" : "rating " + game.rating.toFixed(1);
    $("#sdk-info").textContent = (game.level || "pasted") + " · " + rating + " · " + game.clues + " givens";
    if (game.level) $("#sdk-level").value = game.level;
    say(saved ? "" : "A new puzzle: good luck.");
    render();
    clock();
    save();
    grid.focus();
  }

  // save keeps the game in this browser, so that a reload resumes it.
  function save() {
    if (!S.id) return;
    const elapsed = S.elapsed + (S.started ? Date.now() - S.started : 0);
    try {
      localStorage.setItem(saveKey, JSON.stringify({ id: S.id, values: S.values, marks: S.marks, elapsed, done: S.done }));
    } catch (e) {
      // A browser that keeps nothing plays on without resuming.
    }
  }
  window.addEventListener("pagehide", save);

  async function request(what, fn) {
    S.busy = true;
    render();
    try {
      return await fn();
    } catch (e) {
      say(what + ": " + e.message, "bad");
      return null;
    } finally {
      S.busy = false;
      render();
    }
  }

  async function newGame() {
    const level = $("#sdk-level").value;
    say("Making a " + level + " puzzle…");
    const game = await request("New puzzle", () => api("POST", "/api/sudoku/games", { level }));
    if (game) load(game);
  }

  async function paste() {
    const puzzle = $("#sdk-paste").value.trim();
    const errEl = $("#sdk-paste-error");
    errEl.textContent = "";
    if (!puzzle) {
      errEl.textContent = "Paste 81 cells first.";
      return;
    }
    S.busy = true;
    render();
    try {
      load(await api("POST", "/api/sudoku/games", { puzzle }));
      $("#sdk-paste-box").open = false;
    } catch (e) {
      errEl.textContent = e.message;
    } finally {
      S.busy = false;
      render();
    }
  }

  async function finishIfSolved() {
    const id = S.id;
    const res = await request("Check", () => api("POST", "/api/sudoku/games/" + id + "/check", { grid: gridString() }));
    if (!res || id !== S.id || S.done) return;
    if (res.solved) {
      stopClock();
      S.done = "solved";
      say("Solved in " + timerEl.textContent + ". Well done!", "good");
      render();
      save();
    } else {
      S.mistakes = new Set(res.mistakes);
      say("The grid is full but " + plural(res.mistakes.length, "entry is", "entries are") + " not the solution's: " + res.names.join(", ") + ".", "bad");
      render();
    }
  }

  function plural(n, one, many) {
    return n + " " + (n === 1 ? one : many);
  }

  async function check() {
    const res = await request("Check", () => api("POST", "/api/sudoku/games/" + S.id + "/check", { grid: gridString() }));
    if (!res) return;
    S.mistakes = new Set(res.mistakes);
    if (res.mistakes.length) {
      say(plural(res.mistakes.length, "mistake", "mistakes") + ": " + res.names.join(", ") + ".", "bad");
    } else {
      say("No mistakes so far; " + plural(res.empty, "cell", "cells") + " to fill.", "good");
    }
    render();
  }

  async function hint() {
    const res = await request("Hint", () => api("POST", "/api/sudoku/games/" + S.id + "/hint", { grid: gridString() }));
    if (!res) return;
    S.hint = res;
    if (res.cell >= 0) S.sel = res.cell;
    const title = el("div", { class: "title" }, res.text);
    const parts = [el("div", { class: "muted" }, hintLabel(res)), title];
    if (res.before && res.before.length) {
      parts.push(el("div", { class: "muted" }, "after:"), el("ol", {}, ...res.before.map((t) => el("li", {}, t))));
    }
    hintBox.replaceChildren(...parts);
    hintBox.hidden = false;
    say("");
    render();
    grid.focus();
  }

  function hintLabel(h) {
    switch (h.kind) {
      case "step":
        return "Next step: " + h.technique + " (" + h.rating.toFixed(1) + ")";
      case "mistake":
        return "A mistake first";
      case "value":
        return "A cell's value";
      default:
        return "Done";
    }
  }

  async function solve() {
    const id = S.id;
    const res = await request("Solve", () => api("POST", "/api/sudoku/games/" + id + "/solve"));
    if (!res || id !== S.id) return;
    const changes = [];
    for (let i = 0; i < 81; i++) {
      const v = Number(res.solution[i]);
      if (S.values[i] !== v || S.marks[i]) changes.push({ i, from: { v: S.values[i], m: S.marks[i] }, to: { v, m: 0 } });
    }
    stopClock();
    S.done = "revealed";
    apply(changes);
    S.mistakes = new Set();
    say("Solved by the computer.", "");
    render();
    save();
  }

  grid.addEventListener("keydown", onKey);
  document.addEventListener("keydown", (e) => {
    // Keys typed anywhere but in a form field go to the grid.
    if (e.target === grid || e.target.closest("textarea, input, select, summary")) return;
    onKey(e);
  });

  function onKey(e) {
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && (e.key === "z" || e.key === "Z")) {
      undo(e.shiftKey);
    } else if (ctrl && (e.key === "y" || e.key === "Y")) {
      undo(true);
    } else if (ctrl || e.altKey) {
      return;
    } else if (e.key.startsWith("Arrow")) {
      const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key] || [0, 0];
      S.sel = Math.min(8, Math.max(0, row(S.sel) + dr)) * 9 + Math.min(8, Math.max(0, col(S.sel) + dc));
      render();
    } else if (/^(Digit|Numpad)[1-9]$/.test(e.code)) {
      digit(Number(e.code.slice(-1)), S.pencil !== e.shiftKey);
    } else if (e.key === "Backspace" || e.key === "Delete" || e.code === "Digit0" || e.code === "Numpad0") {
      clear();
    } else if (e.key === "p" || e.key === "P") {
      S.pencil = !S.pencil;
      render();
    } else {
      return;
    }
    e.preventDefault();
  }

  $("#sdk-new").addEventListener("click", newGame);
  $("#sdk-load").addEventListener("click", paste);
  $("#sdk-pencil").addEventListener("click", () => {
    S.pencil = !S.pencil;
    render();
    grid.focus();
  });
  $("#sdk-undo").addEventListener("click", () => undo(false));
  $("#sdk-redo").addEventListener("click", () => undo(true));
  $("#sdk-check").addEventListener("click", check);
  $("#sdk-hint").addEventListener("click", hint);
  $("#sdk-solve").addEventListener("click", solve);

  function validCells(a, most) {
    return Array.isArray(a) && a.length === 81 && a.every((v) => Number.isInteger(v) && v >= 0 && v <= most);
  }

  // Resume the game this browser was playing, else start one.
  async function start() {
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(saveKey) || "null");
    } catch (e) {
      saved = null;
    }
    if (saved && typeof saved.id === "string" && validCells(saved.values, 9) && validCells(saved.marks, 511)) {
      try {
        const game = await api("GET", "/api/sudoku/games/" + encodeURIComponent(saved.id));
        // The saved entries must keep the givens.
        if ([...game.puzzle].every((c, i) => c === "." || Number(c) === saved.values[i])) {
          load(game, saved);
          return;
        }
      } catch (e) {
        // Forgotten by the server: a new puzzle.
      }
    }
    newGame();
  }
  render();
  start();
})();
