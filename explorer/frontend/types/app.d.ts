// What the one-program app (app/app.js) and the diff (diff/sides.js, one per side) hand the level-of-detail modules
// (lod/plan.js lodPlan: LodHost), and what app/mount.js returns (MountedApp): for `tsc --checkJs` (tests/js/jsconfig.json).
// Not shipped. What lodPlan and diffLod return is typed where they are written (lod/plan.js LodPlan, diff/sides.js).
//
// Named types/app.d.ts, not app.d.ts: TypeScript resolves an import of "../app/app.js" to a sibling app.d.ts before
// app/app.js itself, so an app.d.ts would hide app/app.js's own exports from every module that imports them.

import type {Finding, Html, PlanPayload} from "./payload";
import type {Items, overlay} from "../panels/rings";
import type {NodeKind} from "../overlay/data";

/** What a panel selects on one plan (a click on a node, a block, a finding). */
export interface PanelSelection { values?: number[]; instructions?: number[]; }

/** The values' and the instructions' labels of a plan (lod/graph.js labels): value index -> label, instruction -> op. */
export interface PlanLabels { v: Record<string, string>; i: string[]; }

/** One overlay layer over a figure (panels/rings.js `overlay`). */
export type OverlayLayer = ReturnType<typeof overlay>;

/**
 * The host a plan is drawn for: what lod/plan.js `lodPlan` (its parts lod_graph/lod_panels/lod_memory) and panels/delegate.js
 * `delegateExpander` read from and call back on. The one-program app (app/app.js) builds one per app;
 * the diff (diff/sides.js) one per side.
 */
export interface LodHost {
  /** the graph's plotly div: the LOD modules draw the folded graph into it */
  graph: PlotDiv;
  /** the memory map's plotly div: one lane per arena */
  memory: PlotDiv;
  /** the selection as the host holds it (read again after every draw, to redraw the rings) */
  state: { values: number[]; instructions: number[] };
  /** the plotly config every `Plotly.react` of the graph gets (shell/frame.js CONFIG) */
  config: object;
  /** the device filter: device name -> shown (false: its tensors are faded) */
  shown(): Record<string, boolean>;
  /** a click selected something on this plan: the host applies it and publishes it */
  select(sel: PanelSelection): void;
  /** a click selected group g of the graph (expanded or collapsed by it; its details are shown): the host makes it the
   * selection and publishes it (the widget's `selected.group`) */
  group?(g: number): void;
  /** details markup (built and escaped by the caller) for the details box: a group's, a delegate's inner node's */
  html(markup: Html): void;
  /** the findings (explorer.check) a value's or instruction's details list when they name it */
  findings(): Finding[];
  /** the expanded groups changed (a click, a reveal): the host publishes the list */
  expanded(list: number[]): void;
  /** panels/delegate.js: the open delegates moved points of the graph (the selection is drawn again) */
  moved(): void;
  /** the most px the graph's figure may be tall (lod/graph.js: no less than 240 px, no more than its layers need; Infinity:
   * no limit): the diff leaves its memory maps' top in the first view (diff/diff.js graphRoom), a compact app fits its box
   * (app/fit.js) */
  room?(): number;
  /** a fold of at most 100 nodes keeps its whole height, whatever the room (the diff: every label of a small plan) */
  keepSmall?: boolean;
  /** after every draw of the graph: what the host draws over a fresh figure (open delegates, a profile's op sizes) */
  drawn?(): void;
  /** where a point of the graph as drawn is with the open delegates (panels/delegate.js place) */
  place?(x: number, y: number): [number, number];
  /** edge polylines of the graph as drawn (null between two) -> as they run with the open delegates (panels/delegate.js
   * placeLines: points move, the nulls stay) */
  placeLines?(xs: (number | null)[], ys: (number | null)[]): [(number | null)[], (number | null)[]];
  /** the selection's edges and rings over the graph (panels/rings.js) */
  rings(items: Pick<Items, "edges" | "rings">): void;
  /** the selection's outlines (blocks, instruction lines) over the memory map (panels/rings.js) */
  outlines(items: Pick<Items, "rects" | "lines">): void;
  /** the graph's traces before they are drawn: an overlay picked recolours the nodes (overlay/view.js paint) */
  paint?(traces: Record<string, any>[]): void;
  /** rows [label, cell HTML] the host puts first in a node's details (an overlay's number, "Move to ▸") */
  detailRows?(kind: NodeKind, index: number): [string, Html][];
  /** a diff: tensors marked in the memory lanes (outlined in their status colour, counted in a binned cell's hover) */
  marks?: { of(v: number): { color: string; width: number } | null; noun: string };
}

/** An app in the shell (app/app.js, diff/diff.js): what app/mount.js returns for a program or a diff. */
export interface ShellApp {
  mode: "app" | "diff";
  /** the mode's state; `plan` the plan shown */
  state: { plan: string | null };
  /** switches the plan as the selector does (keep: the model's plan-scoped state is this plan's) */
  showPlan(name: string, keep?: boolean): void;
  /** resolves once every stage of the first view is drawn (app/app.js: each stage a task of its own); absent: drawn at once */
  drawn?(): Promise<void>;
  /** a link's text (after "#" and the plan) selects what it names (host/links.js) */
  openLink(text: string): void;
  /** a selection -> the hash that selects it again ("" none) */
  hashOf(sel: Record<string, any>, firstPlan: string): string;
  /** the mode's other names (select, lod(), delegates(), profile(), ...) that tests and benches call */
  [name: string]: unknown;
}

/** A data file's view (app/datafile.js): an entries table, no plans. */
export interface DataApp {
  mode: "data";
  state: { plan: string };
}

/** What app/mount.js returns. */
export type MountedApp = ShellApp | DataApp;

/** A plan as the one-program app holds it once drawn: its labels filled in (app/app.js show). */
export type LabelledPlan = PlanPayload & { labels: PlanLabels };
