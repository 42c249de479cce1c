// What the one-program app (app.js) and the diff (diff.js) hand to the level-of-detail modules (lod.js lodPlan,
// diff_lod.js diffLod) and get back from them, and what mount.js returns: for `tsc --checkJs`
// (tests/js/jsconfig.json). Not shipped.
//
// Named app_types.d.ts, not app.d.ts: TypeScript resolves an import of "./app.js" to a sibling app.d.ts before
// app.js itself, so an app.d.ts would hide app.js's own exports from every module that imports them.

import type {Finding, Html, PlanPayload, Sides, StatusStyle} from "./payload";
import type {Items, overlay} from "./overlay";
import type {Lane} from "./memstrip";
import type {NodeKind} from "./overlay_data";

/** A side of a diff: A (before) or B (after). */
export type Side = "a" | "b";

/** A point coordinate as the open delegates move it (delegate.js): null/undefined break a polyline. */
export type Coord = number | null | undefined;

/** What a panel selects on one plan (a click on a node, a block, a finding). */
export interface PanelSelection { values?: number[]; instructions?: number[]; }

/** The values' and the instructions' labels of a plan (lod_graph.js labels): value index -> label, instruction -> op. */
export interface PlanLabels { v: Record<string, string>; i: string[]; }

/** One overlay layer over a figure (overlay.js `overlay`). */
export type OverlayLayer = ReturnType<typeof overlay>;

/** A lane's x axis mapped to another unit (profile.js: instructions <-> measured time); null: instructions. */
export interface AxisMap {
  to(x: number): number;
  from(t: number): number;
  /** the lane shapes (peak lines, bounds) moved onto the mapped axis */
  shapes?(shapes: any[]): any[];
}

/**
 * The host a plan is drawn for: what lod.js `lodPlan` (and its parts lod_base/lod_graph/lod_panels, and
 * delegate.js `delegateExpander`) read from and call back on. The one-program app (app.js) builds one per app;
 * the diff (diff_lod.js) one per side.
 */
export interface LodHost {
  /** the graph's plotly div: the LOD modules draw the folded graph into it */
  graph: PlotDiv;
  /** the memory map's plotly div: one lane per arena */
  memory: PlotDiv;
  /** the selection as the host holds it (read again after every draw, to redraw the rings) */
  state: { values: number[]; instructions: number[] };
  /** the plotly config every `Plotly.react` of the graph gets (frame.js CONFIG) */
  config: Record<string, unknown>;
  /** the device filter: device name -> shown (false: its tensors are faded) */
  shown(): Record<string, boolean>;
  /** a click selected something on this plan: the host applies it and publishes it */
  select(sel: PanelSelection): void;
  /** details markup (built and escaped by the caller) for the details box: a group's, a delegate's inner node's */
  html(markup: Html): void;
  /** the findings (explorer.check) a value's or instruction's details list when they name it */
  findings(): Finding[];
  /** the expanded groups changed (a click, a reveal): the host publishes the list */
  expanded(list: number[]): void;
  /** delegate.js: the open delegates moved points of the graph (the selection is drawn again) */
  moved(): void;
  /** after every draw of the graph: what the host draws over a fresh figure (open delegates, a profile's op sizes) */
  drawn?(): void;
  /** where a point of the graph as drawn is with the open delegates (delegate.js place) */
  place?(x: number, y: number): Coord[];
  /** edge polylines of the graph as drawn -> as they run with the open delegates (delegate.js placeLines) */
  placeLines?(xs: Coord[], ys: Coord[]): Coord[][];
  /** the selection's edges and rings over the graph (overlay.js) */
  rings(items: Pick<Items, "edges" | "rings">): void;
  /** the selection's outlines (blocks, instruction lines) over the memory map (overlay.js) */
  outlines(items: Pick<Items, "rects" | "lines">): void;
  /** the graph's traces before they are drawn: an overlay picked recolours the nodes (overlay_view.js paint) */
  paint?(traces: Record<string, any>[]): void;
  /** rows [label, cell HTML] the host puts first in a node's details (an overlay's number, "Move to ▸") */
  detailRows?(kind: NodeKind, index: number): [string, Html][];
  /** a diff: tensors marked in the memory lanes (outlined in their status colour, counted in a binned cell's hover) */
  marks?: { of(v: number): StatusStyle | null; noun: string };
}

/** The state of a plan's folding (lod.js `state()`): its expanded groups, the memory window, notes for tests. */
export interface LodState {
  expanded: number[];
  window: [number, number] | null;
  note: string;
  status: string;
}

/**
 * What lod.js `lodPlan` returns: the verbs the app and the diff call on a drawn plan.
 */
export interface LodView {
  /** opens group g (its details go to host.html) */
  expand(g: number): void;
  /** closes group g; none: every group */
  collapse(g?: number | null): void;
  /** opens the groups that hold these values and instructions (up to a few), and brings them into view */
  reveal(values: number[], instructions: number[]): void;
  /** draws the selection over the graph and the memory map */
  highlight(values: number[], instructions: number[]): void;
  /** the device filter (host.shown) changed: fades what it hides */
  devices(): void;
  labels(): PlanLabels;
  valueDetails(v: number): Html;
  instrDetails(i: number): Html;
  groupDetails(g: number): Html;
  clickGraph(pt: PlotPoint): void;
  clickMemory(pt: PlotPoint): void;
  /** the memory map was zoomed or panned (plotly_relayout) */
  onRelayout(ev: PlotRelayout | null | undefined): void;
  /** the fold as drawn (lod_base.js: nodes, edges, positions) */
  folded(): any;
  /** lane k as drawn at the current zoom (lod_panels.js: blocks and bins) */
  lane(k: number): any;
  /** the expanded groups set from outside (the widget's `expanded` trait) */
  setExpanded(list: number[]): void;
  /** draws the graph again as it is (an overlay picked) */
  redraw(): void;
  /** per lane the bytes live at each instruction, for the overview strip (memstrip.js) */
  laneProfiles(): Lane[];
  /** the memory lanes' x axis on another unit (profile.js: measured time), or back on instructions */
  setAxis(map: AxisMap | null): void;
  axis(): AxisMap | null;
  /** how many memory lanes (arenas) the plan has */
  lanes(): number;
  state(): LodState;
  /** where layouts ran, whether one is running, how many draws (tests and the bench) */
  layout(): Record<string, number | boolean>;
}

/** The diff's selection (explorer.views.diff_prepare.DiffSelection): a side and what it names on both sides. */
export interface DiffState {
  side: Side | "";
  values: Sides<number[]>;
  instructions: Sides<number[]>;
  query?: string;
}

/** What the diff (diff.js) hands to diff_lod.js `diffLod`: both sides' divs and overlays, and its callbacks. */
export interface DiffLodHost {
  graphs: Sides<PlotDiv>;
  memories: Sides<PlotDiv>;
  /** the overlay over each side's graph (the diff's marks and the selection) */
  overlays: Sides<OverlayLayer>;
  /** the overlay over each side's memory map */
  memoryOverlays: Sides<OverlayLayer>;
  config: Record<string, unknown>;
  /** the details box (a group's change note is appended to it) */
  details: HTMLElement;
  /** the two programs' names, for the details' column heads */
  names: Sides<string>;
  /** a click selected something on one side (the diff pairs it with the other side) */
  select(sel: { side: Side; values: number[]; instructions: number[] }): void;
  /** after every draw of a side's graph */
  drawn?(side: Side): void;
}

/** What diff_lod.js `diffLod` returns. */
export interface DiffLodView {
  /** both sides draw the selection; `reveal`: the sides whose groups open to show it */
  highlight(state: DiffState, reveal: Side[]): void;
  /** the details of a one-item selection (it and its counterpart), else null */
  details(state: DiffState): Html | null;
  /** the other side's value ("v") or instruction ("i"), or undefined */
  counterpart(side: Side, kind: "v" | "i", x: number): number | undefined;
  clickGraph(side: Side, pt: PlotPoint): void;
  clickMemory(side: Side, pt: PlotPoint): void;
  onRelayout(side: Side, ev: PlotRelayout | null | undefined): void;
  /** the search box on both sides: each side's own matches */
  find(text: string): DiffState & { query: string };
  groupNote(side: Side, g: number): Html;
  follow(side: Side, g: number, open: boolean): void;
  /** a side as drawn (lod.js) */
  side(side: Side): LodView;
  /** a side's changes per group (diff_lod.js groupChanges) */
  groups(side: Side): { total: number[]; top: number[]; by: number[][]; nT: number };
  labels(side: Side): PlanLabels;
}

/** An app in the shell (app.js, diff.js): what mount.js returns for a program or a diff. */
export interface ShellApp {
  mode: "app" | "diff";
  /** the mode's state; `plan` the plan shown */
  state: { plan: string | null };
  /** switches the plan as the selector does (keep: the model's plan-scoped state is this plan's) */
  showPlan(name: string, keep?: boolean): void;
  /** a link's text (after "#" and the plan) selects what it names (links.js) */
  openLink(text: string): void;
  /** a selection -> the hash that selects it again ("" none) */
  hashOf(sel: Record<string, any>, firstPlan: string): string;
  /** the mode's other names (select, lod(), delegates(), profile(), ...) that tests and benches call */
  [name: string]: unknown;
}

/** A data file's view (datafile.js): an entries table, no plans. */
export interface DataApp {
  mode: "data";
  state: { plan: string };
}

/** What mount.js returns. */
export type MountedApp = ShellApp | DataApp;

/** A plan as the one-program app holds it once drawn: its labels filled in (app.js show). */
export type LabelledPlan = PlanPayload & { labels: PlanLabels };
