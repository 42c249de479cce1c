// The payload Python sends the app (widget model `_payload`, the report's data element), for `tsc --checkJs`
// (tests/js/jsconfig.json). Not shipped. tests/test_payload_types.py assigns the payloads the Python writers make
// of real exports to these types (`satisfies`, so a key missing, renamed or added on either side fails).
//
// Writers: AppPayload views/html/report.py app_payload; LodPayload views/payload/plan.py lod_payload; DiffPayload
// views/html/diff.py diff_payload; DataPayload views/html/data_file.py data_file_payload (and
// views/html/empty_program.py); ProfilePayload views/payload/profile.py; ContextPayload views/payload/context.py;
// CompanionsPayload views/payload/companions.py add_to_plan_payload; OverlaysPayload views/payload/overlays.py;
// NumericsPayload views/payload/numerics.py.

/** A per-row integer column (numpy in Python, packed by views/payload/embed.py, read back as a plain array). */
export type Column = number[];
/** Visible text from the file (views/escape.py `visible`): plain text, never markup. */
export type Text = string;
/** HTML made (and escaped) in Python, set with innerHTML. */
export type Html = string;

/** Plotly trace indices of the first-drawn figures (views/state/overview.py TRACE). */
export interface TraceIndex {
  edges: number; tensors: number; ops: number; hl_edges: number; hl_nodes: number;
}

export interface Finding {
  label: Text; plan: string; severity: string; values: number[]; instructions: number[];
}

export interface Selection {
  plan: string; values: number[]; instructions: number[]; finding: string | null; query: string;
  /** a group of the plan's graph selected by a click (its id in `lod.groups`), null otherwise */
  group: number | null;
}

// ---- the column tables of one plan (views/payload/plan.py) ----

export interface LodDevice {
  name: Text; color: string; ink: string; symbol: string; pattern: string; host: boolean; known: boolean;
}

export interface LodGroups {
  parent: number[]; start: number[]; stop: number[]; kind: string[]; label: Text[]; dev: number[]; nodes: number[];
  childStart: number[]; children: number[];
  /** per group, a count per `names.opKinds` */
  kinds: number[][];
  /** per group, a count per `devices` */
  devs: number[][];
}

export interface LodOps {
  kind: Column; dev: Column;
  /** index into `opTable`: [label, short label, instruction kind name] */
  op: Column; opTable: [Text, Text, string][];
  chain: Column; argStart: Column; args: Column;
  /** index into `stacks` (-1: no frames) */
  stack: Column; stacks: Text[][];
}

export interface LodTensors {
  /** `label`: filled in by the decoder (host/model.js fillLabels) from the named rows' labels the payload carries */
  index: Column; label: Text[]; named: Column;
  dtype: Column; shape: Column; shapes: string[]; dev: Column;
  dyn: Column; dyns: string[]; dimOrder: Column; dimOrders: string[]; storage: Column; storages: string[];
  mem: Column; off: Column; nbytes: Column; first: Column; last: Column; home: Column;
}

export interface LodDelegate { id: Text; location: Text; dataIndex: number; size: number; specs: [Text, Text][]; }

/** An arena: its size, high water (max offset + bytes touched), device, peak live bytes and the instruction where
 * they peak (null: none), how many of its tensors reach past its end, and its tensors (values) as rows. */
export interface LodArena {
  id: number; size: number; high: number; dev: number; peak: number; peakAt: number | null; past: number; rows: Column;
}

export interface OpStyle { label: string; symbol: string; size: number; }
export interface EdgeStyle { label: string; color: string; width: number; dash: string; }

export interface LodPayload {
  trace: TraceIndex & { groups: number; headers: number; crossings: number };
  /** in the order legends list them (views/palette.py ordered_devices: cpu, known types by index, unknown last) */
  devices: LodDevice[];
  expanded: number[];
  window: [number, number] | null;
  groups: LodGroups;
  ops: LodOps;
  valueKind: Column; valueKinds: string[];
  tensors: LodTensors;
  dtypes: string[];
  flow: { i: Column; v: Column; w: Column };
  moving: { i: Column; s: Column; d: Column; nbytes: Column };
  delegates: LodDelegate[];
  delegateOf: Column;
  inputs: number[]; outputs: number[]; errors: number[];
  arenas: LodArena[];
  names: { plan: Text; opKinds: string[] };
  limits: { visible: number; focus: number; labels: number; groupLabels: number; blocks: number; bins: number[] };
  style: {
    op: { kernel: OpStyle; delegate: OpStyle; copy: OpStyle; other: OpStyle };
    group: { delegate: string; run: string; prefix: string; prefixes: string; chunk: string; root: string };
    edge: { same: EdgeStyle; h2d: EdgeStyle; d2h: EdgeStyle; d2d: EdgeStyle };
    error: string;
    /** text and outline ink, secondary text, the selection ring, the figures' font (views/palette.py) */
    ink: string; muted: string; select: string; font: string;
    opacity: Opacity;
  };
  m: number; n: number;
}

/** [selected, unselected] opacities (views/palette.py). */
export interface Opacity { tensor: [number, number]; block: [number, number]; }

// ---- what joins a plan: profile, ETRecord context, companions ----

export interface Stat { median: number | null; min: number | null; max: number | null; n: number; }

export interface ProfilePayload {
  file: string | null; runs: number; runIndex: number[]; unit: string; tickNs: number | null;
  run: Stat;
  median: (number | null)[]; min: (number | null)[]; max: (number | null)[]; n: number[];
  perRun: (number | null)[][] | null;
  bucket: string[];
  devices: (Stat & { name: string; color: string; share: number | null; instructions: number })[];
  copies: (Stat & { direction: string; count: number; bytes: number; bytesPerS: number | null })[];
  top: number[];
  nodes: (Stat & { instruction: number; id: string; node: string | null })[];
}

export interface ContextPayload {
  file: Text | null; warnings: Text[];
  modules: { path: Text[]; type: Text[]; parent: number[] };
  module: Column; sources: Text[]; source: Column; stacks: Text[][]; stack: Column;
  nodes: { name: Text[]; op: Column; module: Column; source: Column; handle: Column };
  ops: Text[]; opNames: Text[]; nodeStart: Column; nodeIndex: Column; backends: string[]; backend: Column;
}

export interface DelegateGraph {
  op: string[]; in: number[][]; out: number[][]; depth: number[]; col: number[]; width: number;
  values: { id: number[]; label: string[]; kind: string[] };
  bindIn: [number, number][]; bindOut: [number, number][];
}

export interface DelegateInside {
  instruction: number; delegate: number; backend: string; device: string; color: string; format: string;
  size: number; storage: string; magic: string; error: string | null; graph: DelegateGraph;
}

export interface CompanionsPayload {
  /** details rows (HTML) appended to a value's (`v`) or an instruction's (`i`) details, by index */
  rows: { v: Record<string, Html>; i: Record<string, Html> };
  /** value index -> [data file, key] */
  external: Record<string, [string, string]>;
  /** [device, bytes, tensors] */
  externalBytes: [string, number, number][];
  delegates: DelegateInside[];
}

// ---- the one-program app (views/html/report.py) ----

/** One plan of a side of a diff: what views/html/report.py `_plan_payload` writes. */
export interface PlanCore {
  name: string; label: Text; summary: Html;
  /** "… and 999,990 empty arenas (61.0 MiB: cpu 999,990)": the arenas with no tensor past the first 16, not drawn */
  emptyArenas?: Text | null;
  totals: Html;
  /** [device, colour] for the device filter */
  devices: [Text, string][];
  nInstructions: number; nValues: number;
  /** finding index -> details HTML */
  findingDetails: Record<string, Html>;
  lod: LodPayload;
}

export interface PlanPayload extends PlanCore {
  companions: CompanionsPayload;
  /** not sent: the app fills it in at the first draw (app/app.js), the values' and instructions' labels */
  labels?: { v: Record<string, string>; i: string[] };
  context?: ContextPayload;
  profile?: ProfilePayload;
}

export interface AppPayload {
  title: Text; trace: TraceIndex; opacity: Opacity;
  plan: string | null;
  plans: PlanPayload[];
  /** past views/payload/app.py PLANS_DRAWN plans: how many more the report leaves out, and how to see them */
  plansNotDrawn?: Text;
  findings: Finding[];
  selected: Selection | null;
  profileFindings?: string[];
  overlays?: OverlaysPayload;
  numerics?: NumericsPayload;
  whatif?: WhatIfPayload;
}

/** A what-if (views/html/whatif.py whatif_block): the moves shown ("SELECTOR=DEVICE"), the file and flags the CLI
 * line and the Python call are written from, and per re-derived plan the original instructions of each predicted one. */
export interface WhatIfPayload {
  /** the file the CLI line names (null: none, `nofile` says why); the Python expression of the program (null: none) */
  file: string | null; program: string | null; nofile: string; moves: string[]; cli: string[]; py: string[];
  /** what_if's flags as set (null: as the original shows it) and its --method (views/payload/app.py flag_block) */
  flags?: Record<string, boolean | string | null>; method?: { cli: string[]; py: string[] };
  origins: Record<string, { start: Column; orig: Column }>;
}

// ---- the diff (views/html/diff.py) ----

export type Sides<T> = { a: T; b: T };

export interface StatusStyle { name: string; color: string | null; width: number; label: string; }

export interface ProfileDiffPayload {
  plan: string;
  run: { a: number | null; b: number | null };
  instructions: { a: number | null; b: number | null; label: string; a_median: number | null;
    b_median: number | null; delta: number | null; ratio: number | null }[];
  devices: { device: string; a: number | null; b: number | null; delta: number | null }[];
}

export interface DiffPlanPayload {
  name: string; label: Text; header: Html; requirements: Html;
  lod: true;
  sides: Sides<PlanCore>;
  /** changed values (`v`, status `vs`) and instructions (`i`, status `is`) per side; statuses index `statuses` */
  marks: Sides<{ v: number[]; vs: number[]; i: number[]; is: number[] }>;
  statuses: { tensor: StatusStyle[]; op: StatusStyle[] };
  badges: { tensor: Html[]; op: Html[]; same: Html };
  /** value pairing: pairs.a[k] in A is pairs.b[k] in B */
  pairs: { a: number[]; b: number[] };
  ipairs: Sides<{ i: number[]; o: number[] }>;
  /** before -> after table (HTML) of each changed pair; `vd[side]`: value `v[k]` has text `t[k]` */
  texts: (Html | null)[];  // null: sent on request (a widget's what-if)
  vd: Sides<{ v: number[]; t: number[] }>;
  profiles?: Sides<ProfilePayload>;
  profileDiff?: ProfileDiffPayload;
  contexts?: Sides<ContextPayload | null>;
}

export interface DiffSelection {
  plan: string; side: "a" | "b"; values: Sides<number[]>; instructions: Sides<number[]>;
}

export interface DiffPayload {
  mode: "diff"; title: Text; nameA: Text; nameB: Text; only: Text;
  trace: TraceIndex; plan: string; empty: Html;
  plans: DiffPlanPayload[];
  selected: DiffSelection | null;
  numerics?: NumericsPayload;
  /** with two runs' numbers compared: each side's built-in overlays (views/payload/diff.py diff_overlays) */
  overlays?: DiffOverlaysPayload;
  whatif?: WhatIfPayload;
  /** a diff of two programs: what each side's "Move to ▸" commands run on (views/payload/diff.py) */
  whatifSides?: Sides<WhatIfPayload>;
}

// ---- a data file, or a program without plans ----

export interface DataPayload { mode: "data"; title: Text; html: Html; }

export type Payload = AppPayload | DiffPayload | DataPayload;

// ---- a run's numbers (views/payload/numerics.py; profile/numerics.js) ----

/** [label, text, mark]: plain text; mark "" | "bad" (NaN/Inf, a gap over the tolerance) | "first" (the first divergence) */
export type NumericsRow = [Text, Text, "" | "bad" | "first"];

/** per instruction (rows) or value (values) index, as a string key, its rows; B's own as rowsB / valuesB */
export interface PlanNumericsPayload {
  rows: Record<string, NumericsRow[]>; values: Record<string, NumericsRow[]>;
  rowsB: Record<string, NumericsRow[]> | null; valuesB: Record<string, NumericsRow[]> | null;
  first: number | null; firstB: number | null; firstText: Text | null;
}

export interface NumericsPayload { tol: number; against: Text | null; plans: Record<string, PlanNumericsPayload>; }

// ---- overlays (views/payload/overlays.py) ----

export interface OverlayPayload {
  name: string; label: Text; unit: Text; format: string; aggregate: string; rule: string; noun: string;
  builtin: boolean; note: Text; scale: OverlayScale; none: string; m: number; n: number; missing: number | null;
  instr: (number | null)[]; instrFrom: Column; value: (number | null)[];
  modules: [Text, number, number, number, number][];
  group: (number | null)[]; groupCount: Column; groupFrom: Column;
  range: [number, number] | null; groupRange: [number, number] | null; count: number;
}

export type OverlayScale =
  | { kind: "thresholds"; bounds: number[]; colors: string[]; labels: Text[] }
  | { kind: "continuous"; name: string; stops: [number, string][]; min: number | null; max: number | null; log: boolean };

export interface OverlaysPayload { shown: string | null; plans: Record<string, OverlayPayload[]>; }

/** a diff's: the overlay drawn first, and each side's overlays as one program's (the same names on both sides) */
export interface DiffOverlaysPayload { shown: string | null; sides: Sides<OverlaysPayload>; }

/** A plan as the level-of-detail modules draw it (lod/plan.js lodPlan, lod/base.js lodBase, panels/delegate.js, profile/profile.js):
 * one plan of the app, or one side of a diff with its ETRecord context (diff/sides.js sideContext). */
export type DrawnPlan = PlanCore & { companions?: CompanionsPayload; context?: ContextPayload; profile?: ProfilePayload };

/** What carries the payload and the selection: the anywidget model in the notebook, host/model.js `localModel` in a
 * report page (the same surface). */
export interface WidgetModel {
  get(key: string): any;
  set(key: string, value: unknown): void;
  on(event: string, cb: (...args: any[]) => void): void;
  off(event: string, cb?: (...args: any[]) => void): void;
  save_changes(): void;
  send(content: unknown): void;
}
