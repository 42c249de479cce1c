// Names the browser provides to the app, for `tsc --checkJs` (tests/js/jsconfig.json). Not shipped: the app
// needs no declaration at run time.

/** plotly.js (the vendored basic partial bundle), set on the page by its UMD wrapper before the app starts. */
declare var Plotly: any;

/** index.js: the promise of plotly.js the kernel sends once per page (shared by every widget on it). */
declare var __dxPlotly: Promise<any> | undefined;
/** An AMD loader's `define` (JupyterLab's RequireJS), set aside while plotly's UMD wrapper runs (index.js). */
declare var define: unknown;

interface Window {
  /** The app of an exported one-program report or data file (page.js), for tests and benchmarks to read its state. */
  dxReport?: import("./app").MountedApp;
  /** The app of an exported diff report (page.js). */
  dxDiff?: import("./app").MountedApp;
}

/** An axis of a drawn plotly figure (`gd._fullLayout.xaxis`): what the overlays read to place things in px. */
interface PlotAxis { _id?: string; _offset: number; _length: number; range: [number, number]; l2p(v: number): number; p2l(px: number): number; }

/** A div plotly has drawn into: its internals that the app reads, and the handles the app keeps on it. */
interface PlotDiv extends HTMLElement {
  _fullLayout?: any;
  layout?: any;
  data?: any[];
  on?(event: string, cb: (ev: any) => void): void;
  /** panels/rings.js: the SVG layer of selection rings, edges and marks over the figure */
  dxOverlay?: any;
  /** panels/cells.js: the pointer over a memory figure's binned cells */
  dxCells?: any;
}

/** A point of a plotly click event: its trace, its index in the trace, and the customdata the app put there (a value,
 * instruction or group index; a delegate's inner node "dI:K", panels/delegate.js). */
interface PlotPoint { curveNumber: number; pointNumber?: number; customdata?: number | string; x: number; y: number; }

/** A plotly click event (`plotly_click`). */
interface PlotClick { points: PlotPoint[]; }

/** A plotly relayout event (`plotly_relayout`): the layout keys that changed ("xaxis.range[0]", "xaxis.autorange"...). */
type PlotRelayout = Record<string, any>;
