import {planText} from "./text.js";
import {groupTree} from "./tree.js";
import {folder} from "./fold.js";
import {groupSums} from "./summary.js";
import {fillLabels} from "../util/common.js";

// A plan drawn at its level of detail (lod/plan.js), part 1: the plan's tables and what is computed once from them
// (indices: planTables; hover texts: lod/text.js; the group tree: lod/tree.js; what each group holds:
// lod/summary.js), and folding (lod/fold.js). Nothing here changes after lodBase
// returns: what changes as the user expands, pans or zooms is one LodState object (lodState), which lod/plan.js hands
// to the parts that read or change it (lod/graph.js, lod/details.js, lod/memory.js) as a parameter.

/** @typedef {import("../types/payload").LodPayload} LodPayload */
/** What the app hands the drawing (app/app.js, diff/sides.js): its plots, selection, hooks (types/app.d.ts). @typedef {import("../types/app").LodHost} LodHost */
/** @typedef {keyof LodPayload["style"]["edge"]} EdgeKind  "same", "h2d", "d2h", "d2d" */
/** @typedef {Exclude<EdgeKind, "same">} CopyKind */
/** @typedef {["v" | "i" | "g", number]} FoldNode  a drawn unit: a tensor (value id), an instruction, a folded group */
/**
 * An edge of a fold, between two units, merging every tensor flowing that way (foldPlan).
 * @typedef {{key: number, src: number, dst: number, seen: Set<number>, count: number, bytes: number, lo: number,
 *            hi: number, v: number, i: number, w: number}} FoldEdge
 */
/**
 * A fold's first half (foldPlan): its units (instructions, tensors, folded groups, as unit codes), merged edges,
 * and the layout's job; foldFinish turns it and the job's answer into a Folded.
 * @typedef {{expanded: number[], units: number[], list: FoldEdge[], A: number[], B: number[], pos: Map<number, number>,
 *            instUnit: Int32Array, valueCode: Int32Array, stub: boolean[], job: import("../layout/worker.js").LayoutJob}} FoldPlan
 */
/**
 * A fold as drawn: per node (in drawing order) what it is and where (layout units: x, layer y going down), per
 * edge its ends, polyline ([x0, y0, x1, y1, ...]), tensors, bytes, kind and device (-1: several); per instruction
 * and value the node drawing it (-1: none), and node positions by "v12" / "i5" / "g3"; `stubs`: the edges drawn as a
 * short stub at their reader (a value read by many: lod/fold.js FANOUT_STUB).
 * @typedef {{nodes: FoldNode[], x: number[], y: number[], edges: [number, number][], paths: number[][],
 *            tensors: number[], bytes: number[], kinds: EdgeKind[], devs: number[], instUnit: Int32Array,
 *            valueUnit: Int32Array, index: Map<string, number>, stubs: number[]}} Folded
 */
/**
 * What a group holds: its ops per device [device, count, share], its tensors' bytes per device and in all, and its
 * copies per kind [count, bytes].
 * @typedef {{ops: [number, number, number][], bytes: [number, number][], total: number,
 *            copies: Partial<Record<CopyKind, [number, number]>>}} GroupSummary
 */
/**
 * The view's changing state: ONE object, made by lodState, read and changed by the parts lod/plan.js wires together.
 * @typedef {object} LodState
 * @property {number[]} expanded  the expanded groups, in the order they were opened
 * @property {string} note  what the last expand collapsed to stay within limits.visible ("": nothing)
 * @property {Folded | null} cur  the fold as drawn (null: not folded yet; currentFold() makes it)
 * @property {[number, number] | null} win  the memory lanes' x window, axis units (null: everything)
 * @property {number} laying  units of a layout running (0: none)
 * @property {[number, number, number, number] | null} region  what the last graph draw drew, [x0, x1, y0, y1] in
 *   plot units, y up (lod/graph.js regionOf; null: every node)
 * @property {{tk: number[], ok: number[], gk: number[], count: number} | null} drawn  the nodes drawn as markers
 *   by kind (positions in the fold: tensors, ops, groups) and how many
 * @property {number} draws  how many graph draws so far
 * @property {object | null} image  the dots image of a zoomed-out region (panels/nav.js dotImage), or null
 * @property {number} coarse  how many tensors and ops that image paints (0: markers drawn)
 * @property {number} viewArea  the view's area at the last windowed draw (plot units)
 */

/** The view state a plan opens with: the groups the payload opens, its memory window. @param {LodPayload} L @returns {LodState} */
export function lodState(L) {
  return {expanded: L.expanded.slice(), note: "", cur: null, win: L.window, laying: 0, region: null, drawn: null, draws: 0,
          image: null, coarse: 0, viewArea: 0};
}

/** The fold of the state's expanded groups as drawn, folded and laid out here the first time it is asked for.
 * @param {LodBase} B @param {LodState} S @returns {Folded} */
export function currentFold(B, S) {
  if (!S.cur) S.cur = B.fold(S.expanded);
  return S.cur;
}

/** @typedef {ReturnType<typeof lodBase>} LodBase */
/** @typedef {ReturnType<typeof planTables>} Tables */

/** The plan's tables and the indices every part reads them by. @param {import("../types/payload").DrawnPlan} P */
export function planTables(P) {
  const L = P.lod, T = L.trace, m = L.m, n = L.n, DEV = L.devices, ST = L.style;
  const G = L.groups, nG = G.start.length, gbase = m + n, span = gbase + nG;
  fillLabels(L.tensors);  // done by the decoder; a payload handed over in a test has its named labels only
  const TT = L.tensors, F = L.flow, OPS = L.ops;
  const rowOf = new Int32Array(n).fill(-1), written = new Uint8Array(n), home = new Int32Array(n).fill(-1);
  TT.index.forEach((v, r) => { rowOf[v] = r; home[v] = TT.home[r]; });
  for (let k = 0; k < F.v.length; k++) if (F.w[k]) written[F.v[k]] = 1;
  const fstart = new Int32Array(m + 1);  // flow rows of instruction i: fstart[i] .. fstart[i + 1]
  for (let k = 0; k < F.i.length; k++) fstart[F.i[k] + 1]++;
  for (let k = 0; k < m; k++) fstart[k + 1] += fstart[k];
  const inputs = new Set(L.inputs), outputs = new Set(L.outputs), errors = new Set(L.errors);
  const errorInstrs = L.errors.map((v) => home[v]).filter((h) => h >= 0).sort((a, b) => a - b);
  /** @param {number} k an op kind's index (names.opKinds) */
  const opStyle = (k) => ST.op[/** @type {keyof LodPayload["style"]["op"]} */ (L.names.opKinds[k])];
  /** @param {number} g */
  const groupSymbol = (g) => ST.group[/** @type {keyof LodPayload["style"]["group"]} */ (G.kind[g])];
  const OPSYM = L.names.opKinds.map((_, k) => opStyle(k).symbol);
  return {P, L, T, m, n, DEV, ST, G, nG, gbase, span, TT, F, OPS, rowOf, written, home, fstart, inputs, outputs, errors,
          errorInstrs, opStyle, groupSymbol, OPSYM};
}

/** The plan's tables and everything computed once from them, gathered from the parts (each given what it reads).
 * @param {import("../types/payload").DrawnPlan} P */
export function lodBase(P) {
  const t = planTables(P), tree = groupTree(t.G), text = planText(t);
  return {...t, ...text, ...tree, ...folder(t, tree, text.kindOf), ...groupSums(t, text.kindOf)};
}
