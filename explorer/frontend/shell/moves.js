// What-if moves in the app (docs/whatif.md, "In the widget and the report"): "Move to ▸" in the details of a selected
// op, delegate, tensor or group; the list of moves with an undo per move; the CLI line and the Python call that
// predict them, copyable. The prediction runs in Python (explorer.what_if): the widget publishes its `moves` trait
// and the kernel answers with a new payload (the diff of original vs predicted, or the original again) or with
// `whatif_error` (executorch's reason for refusing, or why a move cannot be honoured). A report has no kernel: the
// moves a user adds are a pending list shown with the command that will predict them.
// The payload's `whatif` (views/html/whatif.py): {file, moves, cli, py, origins}; file and selectors come from
// the user and the .pte, so they reach the page only as textContent or through esc, and the commands are quoted.
import {esc, h} from "../util/common.js";

// -- pure: moves as text -----------------------------------------------------------------------------------
/** "SELECTOR=DEVICE" -> [selector, device] (the last "=" splits, as explorer.whatif.predict.parse_moves), or null
 * @param {string} text @returns {[string, string] | null} */
export function parseMove(text) {
  const k = String(text).lastIndexOf("=");
  if (k <= 0) return null;
  return [text.slice(0, k).trim(), text.slice(k + 1).trim()];
}

/** moves with `move` appended; an earlier move of the same selector is dropped (what_if applies moves in order, the
 * later one wins): explorer.widget.whatif.add_move
 * @param {string[]} moves @param {string} move @returns {string[]} */
export function addMove(moves, move) {
  const p = parseMove(move), sel = p ? p[0] : move;
  return moves.filter((m) => { const q = parseMove(m); return !q || q[0] !== sel; }).concat([move]);
}

/** moves without move k (default: the last)
 * @param {string[]} moves @param {number} [k] @returns {string[]} */
export function undoMove(moves, k) {
  const at = k === undefined ? moves.length - 1 : k;
  return moves.filter((_m, j) => j !== at);
}

/** one POSIX shell word: bare when it holds only safe characters, else in single quotes
 * @param {string} s @returns {string} */
export function shellQuote(s) {
  s = String(s);
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

/** a file argument of the CLI line: shellQuote, after "./" when it starts with "-" so argparse reads a file, not an
 * option (explorer/safe_text.py shell_path is the Python twin) @param {string} file @returns {string} */
export function fileWord(file) {
  const s = String(file);
  return shellQuote(s.startsWith("-") ? "./" + s : s);
}

/** a Python string literal (a JSON string is one: the same escapes) @param {string} s */
export function pyString(s) { return JSON.stringify(String(s)); }

export const REPORT_NAME = "whatif.html";

/** the command that predicts `moves` on `file` and writes the what-if view (explorer/cli/whatif.py)
 * @param {string} file @param {string[]} moves @param {string[]} [flags] CLI words (the report's own flags) */
export function cliLine(file, moves, flags) {
  const words = ["device-explorer", "whatif", fileWord(file)];
  // a move starting with "-" joined to its option: argparse would read it as an option of its own
  for (const m of moves) words.push(...(String(m).startsWith("-") ? [shellQuote("--move=" + m)] : ["--move", shellQuote(m)]));
  for (const f of flags || []) words.push(shellQuote(f));
  words.push("-o", REPORT_NAME);
  return words.join(" ");
}

/** the same in Python (explorer.what_if)
 * @param {string} file @param {string[]} moves @param {string[]} [kwargs] "name=literal" (written by Python's repr) */
export function pythonCall(file, moves, kwargs) {
  return whatIfCall("explorer.load(" + pyString(file) + ")", moves, kwargs);
}

/** explorer.what_if of the program `program` (a Python expression: explorer.load(FILE), or a what_if of one, written
 * by explorer/views/payload/app.py program_source) @param {string} program @param {string[]} moves @param {string[]} [kwargs] */
export function whatIfCall(program, moves, kwargs) {
  const args = [program, "[" + moves.map(pyString).join(", ") + "]"].concat(kwargs || []);
  return "explorer.what_if(" + args.join(", ") + ")";
}

// what_if's flags the bar toggles: [keyword argument, CLI option, the toggle's label] (explorer/views/payload/app.py _FLAGS)
export const FLAG_OPTIONS = /** @type {[string, string, string][]} */ ([
  ["skip_h2d_inputs", "--skip-h2d-inputs", "skip h2d of inputs"], ["skip_d2h_outputs", "--skip-d2h-outputs", "skip d2h of outputs"],
  ["alloc_graph_input", "--alloc-graph-input", "plan inputs"], ["alloc_graph_output", "--alloc-graph-output", "plan outputs"]]);
export const CONSTANTS = ["owned", "arguments"];

/** @typedef {Record<string, boolean | string | null>} Flags what_if's flags (null: as the original shows it) */

/** the flags as CLI words and Python keyword arguments, the defaults left out: explorer/views/payload/app.py flag_words
 * (without --method, which the payload writes) @param {Flags} F @returns {{cli: string[], py: string[]}} */
export function flagWords(F) {
  /** @type {string[]} */
  const cli = [], py = [];
  for (const [name, option] of FLAG_OPTIONS) {
    const v = F[name];
    if (v === true || v === false) {
      cli.push(v ? option : "--no-" + option.slice(2));
      py.push(name + "=" + (v ? "True" : "False"));
    }
  }
  const c = String(F.constants || "owned");
  if (c !== "owned" && CONSTANTS.indexOf(c) >= 0) { cli.push("--constants", c); py.push("constants='" + c + "'"); }
  return {cli, py};
}

/** the flags in a fixed order, one value each (null for unset) @param {Flags} F @returns {Flags} */
export function normalFlags(F) {
  /** @type {Flags} */
  const out = {};
  for (const [name] of FLAG_OPTIONS) out[name] = F[name] === true || F[name] === false ? F[name] : null;
  out.constants = CONSTANTS.indexOf(String(F.constants)) >= 0 ? String(F.constants) : "owned";
  return out;
}

/** the devices "Move to ▸" offers: cpu, the program's known devices (names as "kind:N"), and a new cuda:N (the
 * next free index) @param {string[]} known @returns {{name: string, fresh: boolean}[]} */
export function deviceChoices(known) {
  const out = ["cpu"], seen = new Set(out);
  let next = 0;
  for (const d of known) {
    const m = /^([a-z_]+):(\d+)$/.exec(d);
    if (m && m[1] === "cuda") next = Math.max(next, Number(m[2]) + 1);
    if ((m || d === "cpu") && !seen.has(d)) { seen.add(d); out.push(d); }
  }
  return out.map((name) => ({name, fresh: false})).concat([{name: "cuda:" + next, fresh: true}]);
}

// -- pure: the selector of a selection -----------------------------------------------------------------------
// What a user writes to move what is selected, as explorer.whatif.predict.select reads it: a delegate call is
// `delegate:N`, a kernel call `@N`, a tensor moves with the op that writes it, a group is `group:LABEL` when no
// other group of the plan has that label (select takes the first group so labelled). L: a plan's tables
// (views/payload/plan.py). Returns {selectors, what, current (the device it runs on, or "")} or {selectors: [], why}.
/** @typedef {{selectors: string[], what?: string, why?: string, current?: string}} Offer */

/** @param {any} L @param {number} i @returns {Offer} */
function instrOffer(L, i) {
  if (!(i >= 0 && i < L.m)) return {selectors: [], why: "no such instruction"};
  const kind = L.names.opKinds[L.ops.kind[i]], name = String(L.ops.opTable[L.ops.op[i]][0]);
  const d = L.ops.dev[i], current = d >= 0 && L.devices[d] ? L.devices[d].name : "";
  if (kind === "delegate" && L.delegateOf[i] >= 0) return {selectors: ["delegate:" + L.delegateOf[i]], what: "delegate " + L.delegateOf[i], current};
  if (kind === "copy") return {selectors: [], why: "a device copy: executorch places copies itself; move what it feeds instead"};
  if (kind !== "kernel" || L.ops.opTable[L.ops.op[i]][2] !== "KernelCall") return {selectors: [], why: "this instruction runs on no device"};
  const base = name.split(".")[0];
  if (base.endsWith("_") && !base.endsWith("__")) {
    return {selectors: [], why: "an in-place buffer write-back: executorch adds these after partitioning, no partitioner moves them"};
  }
  return {selectors: ["@" + i], what: "instruction #" + i, current};
}

/** @param {any} L @param {number} v @returns {number} the first instruction writing value v, or -1 */
export function writerOf(L, v) {
  const F = L.flow;
  for (let k = 0; k < F.v.length; k++) if (F.v[k] === v && F.w[k]) return F.i[k];
  return -1;
}

/** X: the plan's ETRecord context (plans[].context) or null: with one, select reads group:PATH as a module path of the
 * model, so only a group labelled by a module's path is offered as one (not the model's own ops, labelled by its
 * class, nor a bundle of modules)
 * @param {any} L @param {"value"|"instr"|"group"} kind @param {number} index @param {any} [X] @returns {Offer} */
export function selectorOf(L, kind, index, X) {
  if (kind === "instr") return instrOffer(L, index);
  if (kind === "value") {
    const w = writerOf(L, index);
    if (w < 0) return {selectors: [], why: "nothing in the plan writes it (an input, a weight or a constant): move the ops that read it"};
    const got = instrOffer(L, w);
    return got.selectors.length ? Object.assign({}, got, {what: "the op writing it, " + got.what}) : got;
  }
  const G = L.groups, label = G.label[index];
  if (!(index > 0 && index < G.label.length)) return {selectors: [], why: "the whole plan: use delegate:* or op:NAME"};
  if (G.label.some((/** @type {string} */ x, /** @type {number} */ g) => g !== index && x === label)) {
    return {selectors: [], why: "another group has the same label: move its ops or delegates one by one"};
  }
  if (X && X.modules && X.modules.path.indexOf(label) < 0) {
    return {selectors: [], why: "not one module of the model: open it and move what is inside"};
  }
  const d = G.dev[index];
  return {selectors: ["group:" + label], what: "group " + label, current: d >= 0 && L.devices[d] ? L.devices[d].name : ""};
}

/** origins of one re-derived plan ({start, orig} columns) -> the original instructions of predicted instruction i
 * (a plan not re-derived: i itself) @param {{start: number[], orig: number[]} | undefined} O @param {number} i */
export function originsOf(O, i) {
  if (!O) return [i];
  if (!(i >= 0 && i + 1 < O.start.length)) return [];
  return O.orig.slice(O.start[i], O.start[i + 1]);
}

/** what to move for a selection on the predicted side (B) of a what-if: the original instructions it stands for,
 * as selectors of the original (A). LA / LB: the tables of A and B; O: the plan's origins.
 * @param {any} LA @param {any} LB @param {any} O @param {"value"|"instr"|"group"} kind @param {number} index @returns {Offer} */
export function predictedSelectorOf(LA, LB, O, kind, index) {
  if (kind === "group") return predictedGroupOf(LA, LB, O, index);
  let i = index;
  if (kind === "value") {
    i = writerOf(LB, index);
    if (i < 0) return {selectors: [], why: "nothing in the plan writes it (an input, a weight or a constant): move the ops that read it"};
  }
  const from = originsOf(O, i);
  if (!from.length) return {selectors: [], why: "a copy the prediction inserted: executorch places copies itself"};
  const here = LB.ops.dev[i] >= 0 && LB.devices[LB.ops.dev[i]] ? LB.devices[LB.ops.dev[i]].name : "";  // where B runs it
  if (from.length === 1) {
    const got = selectorOf(LA, "instr", from[0]);
    return got.selectors.length ? Object.assign({}, got, {current: here}) : got;
  }
  const offers = from.map((k) => instrOffer(LA, k)).filter((o) => o.selectors.length);
  if (!offers.length) return {selectors: [], why: "nothing it stands for can move"};
  return {selectors: offers.map((o) => o.selectors[0]), what: "the " + from.length + " original instructions it stands for",
          current: here};
}

/** a group of the prediction (B): every original instruction its instructions stand for that can move (a kernel as
 * @N, a delegate call as delegate:N), in order, each once
 * @param {any} LA @param {any} LB @param {any} O @param {number} g @returns {Offer} */
function predictedGroupOf(LA, LB, O, g) {
  const G = LB.groups;
  if (!(g > 0 && g < G.label.length)) return {selectors: [], why: "the whole plan: use delegate:* or op:NAME"};
  const seen = new Set(), selectors = /** @type {string[]} */ ([]);
  for (let i = G.start[g]; i < G.stop[g]; i++) {
    for (const k of originsOf(O, i)) {
      if (seen.has(k)) continue;
      seen.add(k);
      const got = instrOffer(LA, k);
      if (got.selectors.length && selectors.indexOf(got.selectors[0]) < 0) selectors.push(got.selectors[0]);
    }
  }
  if (!selectors.length) return {selectors: [], why: "nothing it stands for can move (copies the prediction inserted, write-backs)"};
  const d = G.dev[g];
  return {selectors, what: "the " + seen.size + " original instructions group " + G.label[g] + " stands for",
          current: d >= 0 && LB.devices[d] ? LB.devices[d].name : ""};
}

// -- the view ----------------------------------------------------------------------------------------------
/** copy `text` to the clipboard (the page's own copy when the clipboard API is refused: a file:// page)
 * @param {string} text @returns {Promise<boolean>} */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_err) {
    const area = document.createElement("textarea");
    area.value = text;
    area.style.position = "fixed"; area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    return done;
  }
}

// long-function: not split yet: the "Move to ▸" menu, the moves bar and its commands share the pending list and
// the live/report switch in closures; splitting by job needs that state passed explicitly first.
/** The what-if bar and the "Move to ▸" offers of one app.
 * ctx: {root (the app's element: clicks are caught there), model, publish(key, value), data (the payload), mount(bar)}.
 * Live (a widget: the model has `moves`): a move is sent to the kernel; else (a report) it joins a pending list.
 * side: over a diff of two programs, the side ("a" or "b") whose program this view moves (its block: data.whatifSides).
 * @param {{root: HTMLElement, model: import("../types/payload").WidgetModel, publish: function(string, any): void, data: any,
 *          mount: function(HTMLElement): void, side?: "a" | "b"}} ctx */
export function movesView(ctx) {
  // side: a diff of two programs (no what-if): this view moves what is on that side, in that side's program.
  // W.file: the file the CLI line names (null: none, `nofile` says why); W.program: the Python expression of the program
  const side = ctx.side || "";
  const W = (side ? (ctx.data.whatifSides || {})[side] : ctx.data.whatif) ||
    {file: null, program: null, nofile: "no command line: no file to run it on", moves: [], cli: [], py: [], origins: {}};
  const live = !side && Array.isArray(ctx.model.get("moves"));
  /** @type {string[]} */
  const applied = live ? ctx.model.get("moves").slice() : W.moves.slice();  // what the view shows
  /** @type {string[]} */
  let pending = applied.slice();  // what the user asked for (live: sent, waiting for the kernel)
  let busy = false;
  /** @type {Offer | null} */
  let offer = null;  // the selection "Move to ▸" last offered to move
  const shownFlags = normalFlags(W.flags || {});  // the flags the view shows (a widget's: its traits)
  const readFlags = () => {
    /** @type {Flags} */
    const F = {};
    for (const [name] of FLAG_OPTIONS) F[name] = ctx.model.get(name);
    F.constants = ctx.model.get("constants");
    return normalFlags(F);
  };
  let flags = live ? readFlags() : shownFlags;  // what the user asked for (live: sent, waiting for the kernel)
  const bar = h("div", "dx-card dx-whatif");
  bar.hidden = true;
  ctx.mount(bar);

  const known = [];
  for (const p of ctx.data.plans || []) {
    const lists = side ? [p.sides[side].devices] : p.sides ? [p.sides.a.devices, p.sides.b.devices] : [p.devices];
    for (const list of lists) for (const d of list || []) if (known.indexOf(d[0]) < 0) known.push(d[0]);
  }
  const choices = deviceChoices(known);

  const same = (/** @type {string[]} */ a, /** @type {string[]} */ b) => JSON.stringify(a) === JSON.stringify(b);

  /** a line with its copy button @param {string} label @param {string} text @param {string} cls */
  function copyLine(label, text, cls) {
    const row = h("div", "dx-whatif-cmd");
    row.appendChild(h("span", "dx-muted dx-whatif-label", label));
    const code = h("code", "dx-code " + cls, text);
    const btn = h("button", "dx-copy", "copy");
    btn.type = "button";
    btn.title = "copy to the clipboard";
    btn.addEventListener("click", () => {
      copyText(text).then((ok) => { btn.textContent = ok ? "copied" : "select and copy"; });
    });
    row.appendChild(code);
    row.appendChild(btn);
    return row;
  }

  function draw() {
    const error = live ? String(ctx.model.get("whatif_error") || "") : "";
    const flagged = JSON.stringify(flags) !== JSON.stringify(normalFlags({}));
    bar.hidden = !pending.length && !applied.length && !error && !busy && !flagged;
    bar.textContent = "";
    if (bar.hidden) return;
    const head = h("div", "dx-whatif-head");
    head.appendChild(h("h3", "", side ? "What-if on " + side.toUpperCase() : "What-if"));
    const waiting = !same(pending, applied) || JSON.stringify(flags) !== JSON.stringify(shownFlags);
    let note;
    if (busy) note = "predicting in Python\u2026";
    else if (!live && waiting) note = "This report cannot predict offline: the prediction runs in Python (explorer.what_if). " +
      "Run this command to see original vs predicted for these moves.";
    else if (applied.length) note = (live ? "Showing" : "This report shows") + " original (A) vs what executorch 1.5.1 would export (B) for these moves.";
    else note = "";
    if (note) head.appendChild(h("span", "dx-muted dx-whatif-note", note));
    bar.appendChild(head);
    if (error) bar.appendChild(h("div", "dx-whatif-error dx-sev-error", error));
    const list = h("div", "dx-whatif-moves");
    pending.forEach((m, k) => {
      const chip = h("span", "dx-move-chip" + (applied.indexOf(m) < 0 ? " dx-pending" : ""));
      chip.appendChild(h("code", "dx-code", m));
      const x = h("button", "dx-undo-one", "\u2715");
      x.type = "button";
      x.title = "undo this move";
      x.setAttribute("aria-label", "undo " + m);
      x.addEventListener("click", () => change(undoMove(pending, k)));
      chip.appendChild(x);
      list.appendChild(chip);
    });
    if (pending.length) {
      for (const [label, fn] of /** @type {[string, function(): string[]][]} */ ([["undo last", () => undoMove(pending)], ["clear", () => []]])) {
        const b = h("button", "dx-whatif-" + label.replace(" ", "-"), label);
        b.type = "button";
        b.addEventListener("click", () => change(fn()));
        list.appendChild(b);
      }
    } else list.appendChild(h("span", "dx-muted", "no moves: select an op, a delegate, a tensor or a group and use Move to \u25b8"));
    bar.appendChild(list);
    bar.appendChild(flagRow());
    if (pending.length || flagged) {
      const words = flagWords(flags), method = W.method || {cli: [], py: []};
      const cli = words.cli.concat(method.cli), py = words.py.concat(method.py);
      if (W.file) bar.appendChild(copyLine("CLI", cliLine(W.file, pending, cli), "dx-whatif-cli"));
      else {  // never a command on a file that does not exist: said plainly instead
        const row = h("div", "dx-whatif-cmd");
        row.appendChild(h("span", "dx-muted dx-whatif-label", "CLI"));
        row.appendChild(h("span", "dx-muted dx-whatif-nofile", String(W.nofile || "")));
        bar.appendChild(row);
      }
      if (W.program) bar.appendChild(copyLine("Python", whatIfCall(W.program, pending, py), "dx-whatif-py"));
    }
  }

  // the flags' toggles: a select per flag (as the original / on / off) and the constants' convention
  function flagRow() {
    const row = h("div", "dx-whatif-flags");
    /** @param {string} name @param {string} label @param {[string, string][]} options @param {string} value
     * @param {function(string): void} set */
    const toggle = (name, label, options, value, set) => {
      const lab = h("label", "dx-whatif-flag");
      lab.appendChild(h("span", "dx-muted", label));
      const sel = /** @type {HTMLSelectElement} */ (h("select", "dx-whatif-" + name.replace(/_/g, "-")));
      sel.title = "explorer.what_if(" + name + "=...)";
      for (const [v, text] of options) {
        const o = /** @type {HTMLOptionElement} */ (h("option", "", text));
        o.value = v;
        sel.appendChild(o);
      }
      sel.value = value;
      sel.addEventListener("change", () => set(sel.value));
      lab.appendChild(sel);
      row.appendChild(lab);
    };
    for (const [name, , label] of FLAG_OPTIONS) {
      const v = flags[name];
      toggle(name, label, [["", "as the original"], ["true", "on"], ["false", "off"]], v === true ? "true" : v === false ? "false" : "",
             (x) => setFlag(name, x === "" ? null : x === "true"));
    }
    toggle("constants", "constants", CONSTANTS.map((c) => /** @type {[string, string]} */ ([c, c])), String(flags.constants),
           (x) => setFlag("constants", x));
    return row;
  }

  /** @param {string} name @param {boolean | string | null} value */
  function setFlag(name, value) {
    const before = flags;
    flags = normalFlags(Object.assign({}, flags, {[name]: value}));
    if (live) {
      // the kernel predicts when moves or a flag other than constants are set, before or after (widget/whatif.py)
      const predicts = (/** @type {Flags} */ F) => pending.length > 0 || FLAG_OPTIONS.some(([n]) => F[n] !== null);
      busy = predicts(before) || predicts(flags);
      ctx.publish(name, value);
    }
    draw();
  }

  /** @param {string[]} next */
  function change(next) {
    pending = next;
    if (live) {
      busy = !same(next, applied);
      ctx.publish("moves", next.slice());
    }
    draw();
  }

  if (live) {
    ctx.model.on("change:whatif_error", () => { busy = false; draw(); });
    for (const name of FLAG_OPTIONS.map((f) => f[0]).concat(["constants"])) {
      ctx.model.on("change:" + name, () => {  // the kernel put a refused flag back, or Python set one
        const now = readFlags();
        if (JSON.stringify(now) !== JSON.stringify(flags)) { flags = now; busy = false; draw(); }
      });
    }
    ctx.model.on("change:moves", () => {  // the kernel put its list back (a refused move), or Python set it
      const now = ctx.model.get("moves") || [];
      if (same(now, applied)) { busy = false; pending = applied.slice(); draw(); }
    });
  }

  // "Move to ▸": the buttons' clicks, caught on the app's element (the details are rewritten on every selection)
  ctx.root.addEventListener("click", (ev) => {
    const t = /** @type {HTMLElement | null} */ (ev.target instanceof Element ? ev.target.closest(".dx-move-to") : null);
    if (!t || (t.dataset.view || "") !== side || !offer || !offer.selectors.length) return;
    let next = pending;
    for (const s of offer.selectors) next = addMove(next, s + "=" + t.dataset.device);
    change(next);
  });

  /** the row's cell: a button per device (the one it runs on disabled), what it moves, or why it cannot
   * @param {Offer} got */
  function cell(got) {
    offer = got;
    if (!got.selectors.length) return "<span class='dx-muted dx-move-why'>" + esc(got.why || "") + "</span>";
    const buttons = choices.map((c) => "<button type='button' class='dx-move-to" + (c.fresh ? " dx-fresh" : "") + "' data-device='" +
      esc(c.name) + "' data-view='" + side + "'" + (c.name === got.current ? " disabled title='it runs there already'" : " title='predict it on " + esc(c.name) + "'") +
      ">" + esc(c.name) + "</button>").join("");
    const sel = got.selectors.length > 3 ? got.selectors.slice(0, 3).join(", ") + ", \u2026" : got.selectors.join(", ");
    return "<span class='dx-move'>" + buttons + "</span><div class='dx-muted dx-move-sel'>" + esc(got.what || "") +
      " \u00b7 as <span class='dx-code'>" + esc(sel) + "</span></div>";
  }

  draw();
  return {
    /** a details row [label, cell] for lod/details.js (host.detailRows) @param {any} P the plan's payload
     * @param {string} kind @param {number} index */
    detailRows(P, kind, index) {
      if (kind !== "value" && kind !== "instr" && kind !== "group") return [];
      return [["Move to \u25b8", cell(selectorOf(P.lod, kind, index, P.context))]];
    },
    /** the same as a block under a diff's details: side "a" is the original, "b" the prediction (a view of one side of a
     * diff of two programs: only that side, in its program)
     * @param {any} P a diff plan payload @param {string} s @param {"value"|"instr"|"group"} kind @param {number} index */
    diffBlock(P, s, kind, index) {
      if (side ? s !== side : !ctx.data.whatif) return "";
      const got = side ? selectorOf(P.sides[s].lod, kind, index, P.contexts ? P.contexts[s] : null)
        : s === "b" ? predictedSelectorOf(P.sides.a.lod, P.sides.b.lod, (W.origins || {})[P.name], kind, index)
        : selectorOf(P.sides.a.lod, kind, index, P.contexts ? P.contexts.a : null);
      return "<div class='dx-root dx-move-block'><table class='dx-kv'><tr><td>Move to \u25b8</td><td>" + cell(got) +
        "</td></tr></table></div>";
    },
    pending: () => pending.slice(),
    applied: () => applied.slice(),
    bar,
  };
}

/** "Move to ▸" over a diff of two programs (no what-if: `diff --html`, explorer.Diff): a view per side, each moving what
 * is selected on its side in its side's program; neither predicts (the commands that will are given)
 * @param {Parameters<typeof movesView>[0]} ctx */
export function sidesMovesView(ctx) {
  const b = movesView(Object.assign({}, ctx, {side: "b"})), a = movesView(Object.assign({}, ctx, {side: "a"}));  // A's bar on top
  const views = {a, b};
  return Object.assign({}, views.a, {
    /** @param {any} P @param {string} s @param {"value"|"instr"|"group"} kind @param {number} index */
    diffBlock: (P, s, kind, index) => (s === "b" ? views.b : views.a).diffBlock(P, s, kind, index),
    pending: () => views.a.pending().concat(views.b.pending()),
  });
}
