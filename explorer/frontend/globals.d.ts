// Names the browser provides to the app, for `tsc --checkJs` (tests/js/jsconfig.json). Not shipped: the app
// needs no declaration at run time.

/** plotly.js (the vendored basic partial bundle), set on the page by its UMD wrapper before the app starts. */
declare var Plotly: any;

interface Window {
  /** The app of an exported one-program report (page.js), for tests and benchmarks to read its state. */
  dxReport?: unknown;
  /** The app of an exported diff report (page.js). */
  dxDiff?: unknown;
}
