// The wheel over a plot (the graph, a memory map): the page scrolls, as it does over any other part of it, unless the
// plot was clicked — it holds the wheel until a press elsewhere — or Ctrl (⌘ on a Mac) is held; then the wheel zooms the
// plot (plotly's scrollZoom, shell/frame.js CONFIG). Over a plot that does not take the wheel, a hint in its corner says
// how to zoom, as web maps do. Both modes' plots get it from the shell (shell/shell.js).

/** the hint's words @param {boolean} mac */
export function hintText(mac) {
  return (mac ? "\u2318" : "Ctrl") + " + scroll to zoom, or click the plot first";
}

/** whether a wheel turned over a plot zooms it (else the page scrolls) @param {{ctrlKey: boolean, metaKey: boolean}} ev
 * @param {boolean} focused the plot was clicked since the last press elsewhere */
export function wheelZooms(ev, focused) {
  return focused || ev.ctrlKey || ev.metaKey;
}

/** a Mac's keyboard (⌘ named in the hint) */
function isMac() {
  const nav = globalThis.navigator;
  return !!nav && /Mac|iPhone|iPad/.test(nav.platform || nav.userAgent || "");
}

/** Every plot of a view takes the wheel only when clicked or with the modifier held. @param {HTMLElement[]} gds */
export function wheelGate(gds) {
  for (const gd of gds) gate(gd);
}

/** The hint in the bottom right corner of the plot's area, over the plot as a map's is: clear of the axes' titles and
 * of the status line under the graph. @param {HTMLElement} gd @param {HTMLElement} hint */
function place(gd, hint) {
  if (hint.parentNode !== gd) gd.appendChild(hint);  // (after plotly's first draw in the div: its own nodes first)
  const L = /** @type {PlotDiv} */ (gd)._fullLayout, s = L && L._size;
  if (!s) return;
  hint.style.right = Math.max(0, L.width - s.l - s.w) + 8 + "px";
  hint.style.bottom = Math.max(0, L.height - s.t - s.h) + 8 + "px";
}

/** One plot: its wheel, its focus (a press inside; a press elsewhere in the page ends it), its hint.
 * `data-wheel` says which the wheel does now ("zoom" / "page"), for tests and styles.
 * @param {HTMLElement} gd */
function gate(gd) {
  let focused = false;
  const doc = gd.ownerDocument;
  const hint = doc.createElement("div");
  hint.className = "dx-wheel-hint";
  hint.textContent = hintText(isMac());
  hint.hidden = true;
  gd.classList.add("dx-wheel");
  gd.dataset.wheel = "page";
  /** @param {boolean} on */
  function show(on) {
    if (on) place(gd, hint);
    hint.hidden = !on;
  }
  /** @param {boolean} on */
  function focus(on) {
    focused = on;
    gd.dataset.wheel = on ? "zoom" : "page";
    if (on) show(false);
  }
  gd.addEventListener("pointerdown", () => focus(true), true);
  /** @param {Event} ev */
  const elsewhere = (ev) => {
    if (!gd.isConnected) { doc.removeEventListener("pointerdown", elsewhere, true); return; }  // its app was drawn over
    if (focused && !gd.contains(/** @type {Node | null} */ (ev.target))) focus(false);
  };
  doc.addEventListener("pointerdown", elsewhere, true);
  // capture: before plotly's own listener on the plot's drag layer, which zooms and keeps the page from scrolling
  gd.addEventListener("wheel", (ev) => {
    if (wheelZooms(ev, focused)) return;
    ev.stopPropagation();  // plotly never sees it; not prevented: the page scrolls
    show(true);
  }, {capture: true, passive: true});
  gd.addEventListener("mouseenter", () => { if (!focused) show(true); });
  gd.addEventListener("mouseleave", () => show(false));
}
