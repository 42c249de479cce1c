// The app in two-program mode: the placement diff of A (before) and B (after). Both graphs side by side with
// changes ringed, memory lanes paired, the runtime needs compared; a click on either side (or a memory block)
// selects it and its counterpart. Model state: `plan`, `selected` ({plan, side, values: {a, b},
// instructions: {a, b}}), as explorer.views.diff_prepare.DiffSelection.to_json writes it. A big pair (either
// plan over the overview threshold) is drawn by the one-program level-of-detail modules, one per side, with the
// diff's marks on top (diff_lod.js); its memory maps are each side's own binned lanes.
import {arr, esc, h} from "./util.js";
import {blockRects, laneBlocks, nodePositions, ringItems} from "./highlight.js";
import {overlay} from "./overlay.js";
import {profileDiffView} from "./profile_diff.js";
import {diffLod} from "./diff_lod.js";
import {search} from "./search.js";
import {labelLayer} from "./labels.js";

const CONFIG = {displaylogo: false, responsive: true, scrollZoom: true,
                modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"]};
const SIDES = ["a", "b"];

function skeleton(el, data) {
  el.textContent = "";
  const root = h("div", "dx-app dx-root dx-diff");
  root.innerHTML = `
<div class="dx-header"></div>
<div class="dx-controls"><label class="dx-muted">plan <select class="dx-plan"></select></label>
 <input class="dx-search" type="search" placeholder="search both sides: name, op, %value, #op" aria-label="search">
 <span class="dx-muted dx-only"></span></div>
<div class="dx-row">
 <div class="dx-card dx-half"><h3><span class="dx-side-a">A</span><span class="dx-name-a"></span> <span class="dx-muted">(before)</span></h3><div class="dx-graph-a"></div></div>
 <div class="dx-card dx-half"><h3><span class="dx-side-b">B</span><span class="dx-name-b"></span> <span class="dx-muted">(after)</span></h3><div class="dx-graph-b"></div></div>
</div>
<div class="dx-row">
 <div class="dx-card" style="flex:3 1 520px"><h3>Details <span class="dx-muted">— the selection and its counterpart</span></h3><div class="dx-details"></div></div>
 <div class="dx-card" style="flex:2 1 380px"><h3>Runtime needs <span class="dx-muted">— what the runtime must provide, A vs B</span></h3><div class="dx-req"></div></div>
</div>
<div class="dx-row dx-paired"><div class="dx-card" style="flex:1 1 100%"><h3>Memory maps <span class="dx-muted">— per arena pair, A's lane above B's;
 each tensor spans its lifetime (x, instructions of its own program) and bytes (y, one scale per pair)</span></h3>
 <div class="dx-memory"></div></div></div>
<div class="dx-row dx-lod-memory" hidden>
 <div class="dx-card" style="flex:1 1 100%"><h3><span class="dx-side-a">A</span>memory map <span class="dx-muted dx-sum-a"></span></h3><div class="dx-memory-a"></div></div>
 <div class="dx-card" style="flex:1 1 100%"><h3><span class="dx-side-b">B</span>memory map <span class="dx-muted dx-sum-b"></span></h3><div class="dx-memory-b"></div></div>
</div>`;
  el.appendChild(root);
  const $ = (cls) => root.querySelector("." + cls);
  $("dx-name-a").textContent = data.nameA;
  $("dx-name-b").textContent = data.nameB;
  $("dx-only").textContent = data.only;
  const planBox = $("dx-plan");
  for (const p of data.plans) {
    const o = h("option", "", p.label);
    o.value = p.name;
    planBox.appendChild(o);
  }
  planBox.disabled = data.plans.length < 2;
  return $;
}

export function createDiffApp(el, model, data) {
  const T = data.trace, Plotly = globalThis.Plotly;
  const $ = skeleton(el, data);
  const G = {a: $("dx-graph-a"), b: $("dx-graph-b")}, memoryDiv = $("dx-memory");
  const M = {a: $("dx-memory-a"), b: $("dx-memory-b")};
  const state = {plan: null, side: "", values: {a: [], b: []}, instructions: {a: [], b: []}, query: ""};
  let P = null, nodes = {a: new Map(), b: new Map()}, blocks = [];
  let D = null;  // a big pair: both sides at a level of detail (diff_lod.js)
  let PROF = null;  // two run profiles compared on this plan (profile_diff.js)
  const over = {};
  const other = (side) => (side === "a" ? "b" : "a");

  function publish(key, value) {
    if (JSON.stringify(model.get(key)) === JSON.stringify(value)) return;
    model.set(key, value);
    model.save_changes();
  }

  function showPlan(name) {
    if (PROF) { PROF.remove(); PROF = null; }  // puts back what it changed on the previous plan's figures
    P = data.plans.find((p) => p.name === name) || data.plans[0];
    state.plan = P.name;
    $("dx-plan").value = P.name;
    $("dx-header").innerHTML = P.header;  // escaped when built (explorer.views.diff_details)
    $("dx-req").innerHTML = P.requirements;
    $("dx-paired").hidden = !!P.lod;
    $("dx-lod-memory").hidden = !P.lod;
    if (!over.memory) {
      over.a = overlay(G.a); over.b = overlay(G.b); over.memory = overlay(memoryDiv);
      over.ma = overlay(M.a); over.mb = overlay(M.b);
    }
    D = null;
    if (P.lod) {
      for (const s of SIDES) $("dx-sum-" + s).textContent = "\u00b7 " + P.sides[s].summary;
      D = diffLod(P, {graphs: G, memories: M, overlays: {a: over.a, b: over.b}, memoryOverlays: {a: over.ma, b: over.mb},
                      config: CONFIG, details: $("dx-details"), names: {a: data.nameA, b: data.nameB},
                      select: (sel) => select(sel)});
    } else {
      for (const s of SIDES) {
        Plotly.react(G[s], P.graphs[s].data, P.graphs[s].layout, CONFIG);
        nodes[s] = nodePositions(P.graphs[s], T);
      }
      Plotly.react(memoryDiv, P.memory.data, P.memory.layout, CONFIG);
      blocks = P.lanes.filter((lane) => lane.memory_id !== null).map((lane) => {
        const tr = P.memory.data[lane.blocks];
        return Object.assign(laneBlocks(tr), {side: lane.side, xaxis: tr.xaxis || "x", yaxis: tr.yaxis || "y"});
      });
    }
    // two run profiles: the runs compared, what got faster or slower (a click selects it on both sides, opening the
    // groups that hold it on a big pair), and time per run in the details
    if (P.profiles) PROF = profileDiffView(P, {graphs: G, T, lod: !!P.lod, select: (sel) => select(sel, SIDES),
                                                mountTop: (card) => $("dx-controls").after(card)});
    for (const s of SIDES) {  // node labels that fit, as in the one-program app (labels.js); redrawn after every draw
      if (!over["labels" + s] && G[s].on) over["labels" + s] = labelLayer(G[s], arr);
      if (over["labels" + s]) over["labels" + s].draw();
    }
    wire();
    publish("plan", P.name);
    const pre = model.get("selected");
    if (pre && pre.plan === P.name && (pre.side || ["a", "b"].some((x) => ((pre.values || {})[x] || []).length))) apply(pre);
    else select({side: "", values: [], instructions: []});
  }

  // plotly's event methods exist once a figure is drawn in the div: the divs a plan drew are wired after it
  const wired = new Map();
  function on(gd, event, fn) {
    if (!gd.on) return;
    if (!wired.has(gd)) wired.set(gd, new Set());
    if (wired.get(gd).has(event)) return;
    wired.get(gd).add(event);
    gd.on(event, fn);
  }
  function wire() {
    for (const s of SIDES) {
      on(G[s], "plotly_click", (ev) => {
        const pt = ev.points[0];
        if (D) { D.clickGraph(s, pt); return; }
        if (pt.curveNumber === T.tensors) select({side: s, values: [pt.customdata]});
        else if (pt.curveNumber === T.ops) select({side: s, instructions: [pt.customdata]});
      });
      // a big pair's memory maps: each side's binned lanes (lod_panels.js)
      on(M[s], "plotly_click", (ev) => { if (D) D.clickMemory(s, ev.points[0]); });
      on(M[s], "plotly_relayout", (ev) => { if (D) D.onRelayout(s, ev); });
    }
    on(memoryDiv, "plotly_click", (ev) => {
      const pt = ev.points[0];
      const lane = P.lanes.find((l) => l.blocks === pt.curveNumber && l.memory_id !== null);
      if (lane && pt.customdata !== undefined) select({side: lane.side, values: [pt.customdata]});
    });
  }

  function highlight(reveal) {  // drawn over the figures (overlay.js), both sides and both memory blocks
    if (D) { D.highlight(state, reveal || []); return; }
    for (const s of SIDES) {  // the change rings (views/diff_figures.ring_marks) under the selection's
      const R = P.rings[s], marks = R.x.map((x, k) => ({x, y: R.y[k], symbol: R.symbol[k], r: R.r[k], color: R.color[k], width: R.width[k]}));
      over[s].set(Object.assign(ringItems(nodes[s], P.edges[s], P.opSymbols[s], state.values[s], state.instructions[s]), {marks}));
    }
    const rects = [];
    for (const s of SIDES) rects.push(...blockRects(blocks.filter((l) => l.side === s), new Set(state.values[s])));
    over.memory.set({rects});
  }

  function details() {
    const box = $("dx-details"), s = state.side || "a";
    const vs = state.values[s], is = state.instructions[s];
    const one = D && D.details(state);
    if (one) { box.innerHTML = one; return; }
    if (!D && vs.length === 1 && !is.length && P.vd[s][vs[0]] !== undefined) { box.innerHTML = P.texts[P.vd[s][vs[0]]]; return; }
    if (!D && is.length === 1 && !vs.length && P.id[s][is[0]] !== undefined) { box.innerHTML = P.texts[P.id[s][is[0]]]; return; }
    if (!vs.length && !is.length) { box.innerHTML = data.empty; return; }
    box.innerHTML = "<div class='dx-root dx-diff'><h4>" + (state.query ? "search \u201c" + esc(state.query) + "\u201d" : "selection") + "</h4>" + SIDES.map((x) =>
      "<div><span class='dx-side-" + x + "'>" + x.toUpperCase() + "</span>" +
      esc(state.values[x].slice(0, 60).map((v) => label(x, "v", v)).concat(state.instructions[x].slice(0, 60).map((i) => label(x, "i", i))).join(", ") || "—") +
      (state.values[x].length + state.instructions[x].length > 120 ? " \u2026" : "") +
      "</div>").join("") + "</div>";
  }

  function label(s, kind, x) {  // a value's name (else %N), an instruction's #N and op, for lists
    const L = D ? D.labels(s) : (P.search || {})[s] ? P.search[s].labels : null;
    const name = L && (kind === "v" ? L.v[x] : L.i[x]);
    return kind === "v" ? (name && name !== "%" + x ? name + " (%" + x + ")" : "%" + x) : "#" + x + (name ? " " + name : "");
  }

  function selection() {
    return {plan: state.plan, side: state.side, values: {a: state.values.a.slice(), b: state.values.b.slice()},
            instructions: {a: state.instructions.a.slice(), b: state.instructions.b.slice()}};
  }

  function apply(sel) {  // a whole selection (both sides), as Python sends it: both sides open what it names
    state.side = sel.side || "";
    state.query = sel.query || "";
    state.values = {a: ((sel.values || {}).a || []).slice(), b: ((sel.values || {}).b || []).slice()};
    state.instructions = {a: ((sel.instructions || {}).a || []).slice(), b: ((sel.instructions || {}).b || []).slice()};
    highlight(SIDES); details(); profileDetails();
  }

  function counterpart(s, kind, x) {
    if (D) return D.counterpart(s, kind, x);
    return kind === "v" ? P.pairs[s][x] : P.ipairs[s][x];
  }

  function find(text) {  // the search box: each side's own matches (explorer/frontend/search.js rules)
    text = text.trim();
    if (!text) { select({side: "", values: [], instructions: []}); return; }
    if (D) { apply(D.find(text)); publish("selected", selection()); return; }
    const out = {side: "", query: text, values: {a: [], b: []}, instructions: {a: [], b: []}};
    for (const s of SIDES) {
      const r = search(P.search[s], text);
      out.values[s] = r.values; out.instructions[s] = r.instructions;
    }
    apply(out);
    publish("selected", selection());
  }

  function profileDetails() {
    if (PROF) $("dx-details").insertAdjacentHTML("beforeend", PROF.details(state.instructions));
  }

  // sel: {side: "a"|"b", values, instructions} on that side; the other side follows the pairing. reveal: the sides
  // whose folded groups open to show it (default: the other side; a click on a side shows what it hit already)
  function select(sel, reveal) {
    const s = sel.side || "", o = s ? other(s) : "";
    state.side = s;
    state.query = "";
    state.values = {a: [], b: []}; state.instructions = {a: [], b: []};
    if (s) {
      state.values[s] = (sel.values || []).slice();
      state.instructions[s] = (sel.instructions || []).slice();
      state.values[o] = state.values[s].map((v) => counterpart(s, "v", v)).filter((v) => v !== undefined);
      state.instructions[o] = state.instructions[s].map((i) => counterpart(s, "i", i)).filter((i) => i !== undefined);
    }
    highlight(reveal || (o ? [o] : [])); details(); profileDetails();
    publish("selected", selection());
  }

  $("dx-plan").addEventListener("change", (e) => showPlan(e.target.value));
  $("dx-search").addEventListener("input", (e) => find(e.target.value));
  model.on("change:plan", () => { if (model.get("plan") !== state.plan) showPlan(model.get("plan")); });
  model.on("change:selected", () => {
    const sel = model.get("selected");
    if (!sel || JSON.stringify(sel) === JSON.stringify(selection())) return;
    if (sel.plan !== state.plan) showPlan(sel.plan);
    else apply(sel);
  });
  if (typeof ResizeObserver !== "undefined") {
    let pending = 0;
    const resize = new ResizeObserver(() => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => {
        for (const gd of [G.a, G.b, memoryDiv, M.a, M.b]) {
          if (gd._fullLayout && Math.abs(gd._fullLayout.width - gd.clientWidth) > 1) Plotly.Plots.resize(gd);
        }
      });
    });
    for (const gd of [G.a, G.b, memoryDiv, M.a, M.b]) resize.observe(gd.parentElement);
  }

  showPlan(model.get("plan") || data.plan);
  wire();
  return {select, state, showPlan, find, profile: () => PROF, lod: () => D};
}
