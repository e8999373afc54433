// wopr: the jobs pages. /jobs lists the cluster's jobs, kept up to date
// by server-sent events (GET /api/jobs/events), or by polling GET /api/jobs
// when the stream fails, and submits jobs; /jobs/{id} follows one job and
// renders its report.
"use strict";

const POLL_MS = 2000;

// ---- formatting

function fmtInt(n) {
  return n === undefined || n === null ? "" : Number(n).toLocaleString("en-US");
}

function fmtSeconds(s) {
  if (!(s >= 0)) return "";
  if (s < 10) return s.toFixed(2) + " s";
  if (s < 120) return s.toFixed(1) + " s";
  const m = Math.floor(s / 60);
  if (m < 120) return m + " min " + Math.floor(s % 60) + " s";
  return Math.floor(m / 60) + " h " + (m % 60) + " min";
}

function fmtTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
    pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
}

function fmtValue(v) {
  if (Array.isArray(v)) return v.map(fmtValue).join(",");
  if (v && typeof v === "object") return JSON.stringify(v);
  if (typeof v === "number" && Math.abs(v) >= 10000) return fmtInt(v);
  return String(v);
}

// paramsText is a job's parameters in a line: the board first for the
// m,n,k kinds, the files for a corpus, then the rest as key=value.
function paramsText(kind, p) {
  if (!p || typeof p !== "object") return "";
  const parts = [];
  const skip = new Set();
  if (p.rows !== undefined && p.cols !== undefined) {
    parts.push(p.rows + "x" + p.cols + (p.k !== undefined ? " k=" + p.k : ""));
    skip.add("rows").add("cols").add("k");
  }
  if (Array.isArray(p.inputs)) {
    parts.push(p.inputs.map((i) => i.file).join(", "));
    skip.add("inputs");
  }
  for (const [k, v] of Object.entries(p)) {
    if (!skip.has(k)) parts.push(k + "=" + fmtValue(v));
  }
  return parts.join(" ");
}

function stateBadge(j) {
  let text = j.state;
  if (j.cancel_requested && !isFinal(j)) text += " (cancelling)";
  return el("span", { class: "state state-" + j.state }, text);
}

function isFinal(j) {
  return j.state === "done" || j.state === "cancelled" || j.state === "failed";
}

function progressBar(j) {
  const attrs = { max: Math.max(j.tasks, 1), "aria-label": "tasks done" };
  if (j.tasks > 0 || isFinal(j)) attrs.value = j.tasks > 0 ? j.done : 0;
  return el("progress", attrs);
}

function progressText(j) {
  return j.tasks > 0 ? fmtInt(j.done) + "/" + fmtInt(j.tasks) : isFinal(j) ? "" : "planning";
}

// ---- stalls: a job that does no task while no worker runs one says so,
// as analyze's progress line does.

// stalls watches the jobs that have done no task for stallMs: every 5 s,
// while one has, it asks the server for the workers, and its note names
// a stall when none of them runs a task.
function stalls(stallMs, redraw) {
  const seen = new Map(); // id -> {done, since}
  let workers = null; // {alive, busy} of the last answer
  let watched = [];
  const note = (j) => {
    const p = seen.get(j.id);
    if (isFinal(j) || !p || !workers || workers.busy > 0) return "";
    const ms = Date.now() - p.since;
    if (ms < stallMs) return "";
    return "no worker has taken a task for " + Math.round(ms / 1000) + " s (" +
      workers.alive + (workers.alive === 1 ? " worker" : " workers") + " seen)";
  };
  setInterval(async () => {
    const now = Date.now();
    watched = watched.filter((j) => !isFinal(j));
    if (!watched.some((j) => now - seen.get(j.id).since >= stallMs)) return;
    try {
      const d = await api("GET", "/api/workers");
      const alive = d.workers.filter((w) => w.alive);
      workers = { alive: alive.length, busy: alive.reduce((n, w) => n + w.busy, 0) };
    } catch (e) {
      workers = null;
    }
    redraw();
  }, Math.min(5000, stallMs));
  return {
    note,
    // track follows job j, and notes when its tasks done change.
    track(j) {
      const p = seen.get(j.id);
      if (!p || p.done !== j.done) seen.set(j.id, { done: j.done, since: Date.now() });
      watched = watched.filter((w) => w.id !== j.id);
      if (!isFinal(j)) watched.push(j);
    },
  };
}

// elapsed is a job's elapsed time now: the server's figure, plus the time
// since it was received while the job runs.
function elapsed(j) {
  let s = j.elapsed_seconds;
  if (j.state === "running" && j.received) s += (Date.now() - j.received) / 1000;
  return fmtSeconds(s);
}

// follow calls onJob with each job record the stream sends (only id's if
// id is set); if the stream fails, it polls poll() instead. It shows how
// in the element live, if any.
function follow(id, onJob, poll, live) {
  const say = (t) => { if (live) live.textContent = t; };
  let timer = null;
  const startPolling = () => {
    if (timer) return;
    say("· updated every " + POLL_MS / 1000 + " s");
    const tick = async () => {
      try {
        await poll();
      } catch (e) {
        say("· " + e.message);
      }
    };
    tick();
    timer = setInterval(tick, POLL_MS);
  };
  if (!window.EventSource) {
    startPolling();
    return () => clearInterval(timer);
  }
  const es = new EventSource("/api/jobs/events" + (id ? "?id=" + encodeURIComponent(id) : ""));
  es.addEventListener("open", () => say("· live"));
  es.addEventListener("job", (e) => onJob(JSON.parse(e.data)));
  es.addEventListener("error", () => {
    es.close();
    startPolling();
  });
  return () => { es.close(); clearInterval(timer); };
}

// ---- /jobs: the list and the form

function jobsPage() {
  const tbody = $("#jobs-table tbody");
  const rows = new Map(); // id -> {tr, job}
  const stalled = stalls(Number($("#jobs-table").dataset.stallAfterMs), () => {
    for (const row of rows.values()) {
      if (!isFinal(row.job)) row.tr.replaceChildren(...cells(row.job));
    }
  });

  const cells = (j) => [
    el("td", null, el("a", { href: "/jobs/" + encodeURIComponent(j.id) }, j.id)),
    el("td", null, j.kind),
    el("td", { class: "params" }, paramsText(j.kind, j.params)),
    el("td", null, stateBadge(j)),
    el("td", { class: "progress" }, progressBar(j), " ", el("span", null, progressText(j)), " ",
      el("span", { class: "stall" }, stalled.note(j))),
    el("td", { class: "num" + (j.failed > 0 ? " error" : "") }, fmtInt(j.failed)),
    el("td", { class: "num" }, fmtInt(j.cached_tasks)),
    el("td", { class: "num elapsed" }, elapsed(j)),
    el("td", null, fmtTime(j.submitted)),
  ];

  const upsert = (j) => {
    j.received = Date.now();
    stalled.track(j);
    const row = rows.get(j.id);
    if (row) {
      row.job = j;
      row.tr.replaceChildren(...cells(j));
      return;
    }
    const tr = el("tr", { "data-id": j.id }, ...cells(j));
    // Newest first: the ids begin with the time of submission.
    let before = null;
    for (const [id, r] of rows) {
      if (id < j.id && (!before || r.job.id > before.job.id)) before = r;
    }
    tbody.insertBefore(tr, before ? before.tr : null);
    rows.set(j.id, { tr, job: j });
    $("#no-jobs").hidden = true;
    $("#jobs-table").hidden = false;
  };

  const poll = async () => {
    const d = await api("GET", "/api/jobs");
    d.jobs.forEach(upsert);
    $("#no-jobs").hidden = rows.size > 0;
    $("#jobs-table").hidden = rows.size === 0;
    $("#list-error").textContent = "";
  };
  poll().catch((e) => { $("#list-error").textContent = e.message; });
  follow("", upsert, poll, $("#live"));

  setInterval(() => {
    for (const { tr, job } of rows.values()) {
      if (job.state === "running") tr.querySelector(".elapsed").textContent = elapsed(job);
    }
  }, 1000);

  setupForm();
}

function setupForm() {
  const form = $("#job-form");
  const kind = () => form.querySelector("input[name=kind]:checked").value;
  const show = () => {
    for (const fs of form.querySelectorAll("fieldset")) fs.hidden = fs.dataset.kind !== kind();
    $("#submit-error").textContent = "";
  };
  for (const r of form.querySelectorAll("input[name=kind]")) r.addEventListener("change", show);
  show();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = $("#submit-error");
    err.textContent = "";
    const button = $("#submit");
    button.disabled = true;
    try {
      const fs = form.querySelector("fieldset[data-kind='" + kind() + "']");
      let j;
      if (kind() === "sudoku.solve") {
        j = await submitSudoku(fs);
      } else {
        j = await api("POST", "/api/jobs", { kind: kind(), params: formParams(kind(), fs) });
      }
      location.assign("/jobs/" + encodeURIComponent(j.id));
    } catch (ex) {
      err.textContent = ex.message;
    } finally {
      button.disabled = false;
    }
  });
}

// formParams reads a fieldset into the kind's parameters; empty fields are
// left out, so that the server fills in analyze's defaults.
function formParams(kind, fs) {
  const field = (name) => fs.querySelector("[name=" + name + "]");
  const text = (name) => field(name).value.trim();
  const p = {};
  const int = (name, key) => {
    const s = text(name);
    if (s === "") return;
    const n = Number(s);
    if (!Number.isInteger(n)) throw new Error(name.replace("_", " ") + " " + JSON.stringify(s) + ": want a whole number");
    p[key || name] = n;
  };
  if (field("board")) {
    const m = /^(\d+)\s*[x×]\s*(\d+)$/i.exec(text("board"));
    if (!m) throw new Error("board " + JSON.stringify(text("board")) + ": want RxC, such as 3x3 or 4x5");
    p.rows = Number(m[1]);
    p.cols = Number(m[2]);
    int("k");
  }
  switch (kind) {
    case "mnk.count":
      int("split_depth");
      break;
    case "mnk.solve":
      p.method = text("method");
      if (field("root_moves").checked) p.root_moves = true;
      break;
    case "mnk.sweep": {
      p.boards = text("boards").split(",").map((s) => s.trim()).filter((s) => s);
      p.ks = text("ks").split(",").map((s) => s.trim()).filter((s) => s).map((s) => {
        const n = Number(s);
        if (!Number.isInteger(n)) throw new Error("k " + JSON.stringify(s) + ": want whole numbers such as 3,4,5");
        return n;
      });
      p.algorithms = [...fs.querySelectorAll("[name=algorithms]:checked")].map((c) => c.value);
      if (text("node_budget") !== "") p.node_budget = parseCount(text("node_budget"));
      if (text("cell_seconds") !== "") {
        p.cell_seconds = Number(text("cell_seconds"));
        if (!(p.cell_seconds >= 0)) throw new Error("cell time " + JSON.stringify(text("cell_seconds")) + ": want seconds, 0 for no limit");
      }
      break;
    }
    case "mnk.simulate":
      p.x = text("x");
      p.o = text("o");
      int("games");
      int("seed");
      break;
  }
  return p;
}

// parseCount reads a node count as analyze's --node-budget does: 50000000,
// 5e7 or 50M.
function parseCount(s) {
  const m = /^([0-9.e+_]+)\s*([kKMG]?)$/.exec(s);
  const n = m ? Number(m[1].replaceAll("_", "")) * ({ "": 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 })[m[2]] : NaN;
  if (!Number.isInteger(n) || n < 1) throw new Error("node budget " + JSON.stringify(s) + ": want a whole number of nodes such as 50000000, 5e7 or 50M");
  return n;
}

async function submitSudoku(fs) {
  const file = fs.querySelector("[name=file]").files[0];
  if (!file) throw new Error("choose a puzzle file to upload");
  const body = new FormData();
  body.append("file", file, file.name);
  const chunk = fs.querySelector("[name=chunk]").value.trim();
  if (chunk !== "") body.append("chunk", chunk);
  const res = await fetch("/api/jobs/sudoku", { method: "POST", body });
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    throw new Error(res.status + " " + res.statusText);
  }
  if (!res.ok) throw new Error(data.error || res.status + " " + res.statusText);
  return data;
}

// ---- /jobs/{id}: one job

function jobPage(root) {
  const id = root.dataset.id;
  let current = null;
  let stop = null;
  let reported = false;

  const stalled = stalls(Number(root.dataset.stallAfterMs), () => { if (current) show(current); });
  const show = (j) => {
    if (j !== current) j.received = Date.now();
    current = j;
    stalled.track(j);
    $("#stall").textContent = stalled.note(j);
    $("#state").replaceChildren(stateBadge(j));
    $("#kind").textContent = j.kind;
    $("#params").textContent = paramsText(j.kind, j.params);
    $("#progress").replaceWith(Object.assign(progressBar(j), { id: "progress" }));
    $("#progress-text").textContent = progressText(j) + (j.note ? "; " + j.note : "");
    $("#failed").textContent = fmtInt(j.failed);
    $("#cached-tasks").textContent = fmtInt(j.cached_tasks);
    $("#cache-hits").textContent = fmtInt(j.cache_hits);
    $("#elapsed").textContent = elapsed(j);
    $("#submitted").textContent = fmtTime(j.submitted);
    $("#cancel").hidden = isFinal(j) || j.cancel_requested;
    if (j.error) {
      $("#failures").hidden = false;
      $("#job-failure").textContent = j.error;
    }
  };

  const load = async () => {
    const d = await api("GET", "/api/jobs/" + encodeURIComponent(id));
    show(d);
    if (isFinal(d) && !reported) {
      reported = true;
      if (stop) stop();
      showFailures(d.failures);
      renderReport(d);
    }
    return d;
  };

  $("#cancel").addEventListener("click", async () => {
    const msg = $("#job-message");
    msg.className = "";
    try {
      const j = await api("POST", "/api/jobs/" + encodeURIComponent(id) + "/cancel");
      show(j);
      msg.textContent = "Cancel requested: the job stops once its running tasks are handed back.";
    } catch (e) {
      msg.className = "error";
      msg.textContent = e.message;
    }
  });

  setInterval(() => {
    if (current && current.state === "running") $("#elapsed").textContent = elapsed(current);
  }, 1000);

  load().then((d) => {
    if (isFinal(d)) return;
    stop = follow(id, (j) => {
      show(j);
      if (isFinal(j)) load();
    }, load, null);
  }).catch((e) => {
    $("#job-message").className = "error";
    $("#job-message").textContent = e.message;
  });
}

function showFailures(failures) {
  if (!failures || failures.length === 0) return;
  $("#failures").hidden = false;
  $("#failure-list").replaceChildren(...failures.map((f) =>
    el("li", null, el("code", null, f.task), ": " + f.reason)));
}

// ---- reports

// table makes a table of rows (arrays of cells) under head; a cell that is
// a number is right-aligned and formatted.
function table(head, rows, caption) {
  const cell = (tag, v) => typeof v === "number"
    ? el(tag, { class: "num" }, fmtInt(v))
    : el(tag, null, v === undefined || v === null ? "" : v);
  return el("table", { class: "data report-table" },
    caption ? el("caption", null, caption) : null,
    head ? el("thead", null, el("tr", null, ...head.map((h) => el("th", null, h)))) : null,
    el("tbody", null, ...rows.map((r) => el("tr", null, ...r.map((v, i) => cell(i === 0 && !head ? "th" : "td", v))))));
}

function pct(n, of) {
  return of > 0 ? (100 * n / of).toFixed(1) + "%" : "";
}

function moves(ms) {
  return (ms || []).map((m) => m.join(",")).join(" ");
}

const renderers = {
  "mnk.count": (r) => [
    table(null, [
      ["board", r.board + ", k=" + r.k],
      ["value (first player)", r.value],
      ["tree nodes", r.nodes],
      ["complete games", r.games],
      ["X wins", r.x_wins],
      ["O wins", r.o_wins],
      ["draws", r.draws],
      ["games up to symmetry", r.canonical_games],
      ["positions", r.positions],
      ["positions up to symmetry", r.canonical_positions],
      ["terminal positions", r.terminal_positions],
    ], "Game tree"),
    table(["plies", "games"], Object.entries(r.games_by_length || {}).map(([n, g]) => [n, g]), "Games by length"),
  ],
  "mnk.solve": (r) => [
    table(null, [
      ["board", r.board + ", k=" + r.k],
      ["method", r.method],
      ["value (first player)", r.value],
      ["best first moves", moves(r.best_moves) + (r.best_moves_partial ? " (one of them: solved at the root)" : "")],
      ["principal variation", moves(r.pv)],
      ["nodes", r.nodes],
      ["table hits", r.tt_hits],
    ], "Solution"),
  ],
  "mnk.simulate": (r) => [
    table(["result", "games", "share"], [
      ["X (" + (r.x ? r.x.player : "") + ") wins", r.x_wins, pct(r.x_wins, r.played)],
      ["O (" + (r.o ? r.o.player : "") + ") wins", r.o_wins, pct(r.o_wins, r.played)],
      ["draws", r.draws, pct(r.draws, r.played)],
    ], r.played + " games on " + r.board + ", k=" + r.k + ", seed " + r.seed + "; " + r.average_length + " plies on average"),
    table(["first move", "games", "X wins", "draws", "O wins"], (r.first_moves || []).map((f) =>
      [f.move.join(","), f.games, pct(f.x_wins, f.games), pct(f.draws, f.games), pct(f.o_wins, f.games)]), "First moves"),
  ],
  "mnk.sweep": (r, d) => [
    d.chart ? el("figure", { class: "chart" },
      el("img", { src: d.chart, alt: "Nodes to solve the empty board against its cells, per rung", id: "chart" })) : null,
    table(["board", "k", "algorithm", "value", "nodes", "seconds", "nodes/s", "table entries", "stopped"],
      (r.rows || []).map((x) => [x.board, String(x.k), x.algorithm, x.value, x.nodes, x.seconds.toFixed(3),
        Math.round(x.nodes_per_second), x.table_entries, x.stopped ? (x.stopped_by || "yes") : "no"]), "Rows"),
    table(["algorithm", "k", "largest board solved", "nodes", "stopped"],
      (r.frontier || []).map((f) => [f.algorithm, String(f.k), f.solved || "none", f.nodes, f.stopped]), "Frontier"),
    (r.skipped || []).length ? table(["board", "k", "algorithm", "why"],
      r.skipped.map((s) => [s.board, String(s.k), s.algorithm || "every rung", s.reason]), "Skipped") : null,
  ],
  "sudoku.solve": (r) => [
    table(null, [
      ["files", (r.files || []).join(", ")],
      ["puzzles", r.puzzles], ["unique", r.unique], ["multiple", r.multiple], ["unsolvable", r.unsolvable],
      ["invalid", r.invalid], ["malformed", r.malformed], ["puzzles per second", Math.round(r.puzzles_per_second)],
    ], "Corpus"),
    (r.hardest || []).length ? table(["guesses", "where", "puzzle"],
      r.hardest.map((h) => [h.guesses, h.file + ":" + h.line, el("code", null, h.puzzle)]), "Hardest (guesses)") : null,
    (r.rejects || []).length ? table(["where", "outcome", "reason"],
      r.rejects.map((x) => [x.file + ":" + x.line, x.outcome, x.reason]),
      r.rejects_total > r.rejects.length ? "Rejects (the first " + r.rejects.length + " of " + fmtInt(r.rejects_total) + ")" : "Rejects") : null,
  ],
};

function renderReport(d) {
  const body = $("#report-body");
  if (d.state !== "done") {
    body.replaceChildren(el("p", { class: "muted" }, "The job is " + d.state + ": it has no report."));
    return;
  }
  const parts = [];
  const render = renderers[d.kind];
  if (render && d.report) {
    try {
      parts.push(...render(d.report, d).filter((x) => x));
      parts.push(table(null, [
        ["tasks", d.report.tasks], ["failed tasks", d.report.failed_tasks],
        ["tasks from the result cache", d.report.cached_tasks],
        ["worker cache hits (positions or puzzles)", d.report.cache_hits], ["elapsed", fmtSeconds(d.report.elapsed_seconds)],
      ], "Run"));
    } catch (e) {
      parts.length = 0; // a report of another shape: the text says it all
    }
  }
  const pre = el("pre", { class: "report", id: "report-text" }, d.text || JSON.stringify(d.report, null, 2));
  if (parts.length) {
    parts.push(el("details", null, el("summary", null, "As analyze prints it"), pre));
  } else {
    parts.push(pre);
  }
  body.replaceChildren(...parts);
}

// ---- start

const jobRoot = $("#job");
if (jobRoot) jobPage(jobRoot);
else if ($("#jobs-table")) jobsPage();
