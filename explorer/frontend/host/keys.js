// The keyboard of the frame (one set for the one-program app and the diff, in the widget and the report):
//   /        the search box (its text selected, so typing replaces it)
//   Escape   in the search box: clear it and leave it; elsewhere: clear the selection
//   [ and ]  the previous / next plan (method), when there are several
// Keys typed into a text field are the field's (except Escape); a key with Ctrl, Alt or Meta is the browser's or
// the host's (JupyterLab's commands, the browser's find).

/** What the frame does for a key, as its one-line hint says it. @type {[string, string, boolean][]} */
const KEYS = [["/", "search", false], ["Esc", "clear the selection", false], ["[ ]", "previous / next plan", true]];

/** The hint under the app: the keys that do something here (plan keys only with several plans).
 * @param {number} plans @returns {string} */
export function keysHint(plans) {
  return "keys: " + KEYS.filter((k) => !k[2] || plans > 1).map((k) => k[0] + " " + k[1]).join(" \u00b7 ");
}

/**
 * The action a key press asks for, or null when it is not ours.
 * @param {{key: string, ctrlKey?: boolean, altKey?: boolean, metaKey?: boolean}} ev
 * @param {boolean} typing the press went to a text field (the search box)
 * @returns {"search" | "clear-search" | "clear" | "previous" | "next" | null}
 */
export function keyAction(ev, typing) {
  if (ev.ctrlKey || ev.altKey || ev.metaKey) return null;
  if (ev.key === "Escape") return typing ? "clear-search" : "clear";
  if (typing) return null;
  if (ev.key === "/") return "search";
  if (ev.key === "[") return "previous";
  if (ev.key === "]") return "next";
  return null;
}

/**
 * The plan `step` places from `current` in `names`, staying at the ends; null when there is no other.
 * @param {string[]} names @param {string} current @param {number} step @returns {string | null}
 */
export function stepPlan(names, current, step) {
  const k = names.indexOf(current), to = Math.min(Math.max(k + step, 0), names.length - 1);
  return k < 0 || to === k ? null : names[to];
}

/**
 * Listens for the frame's keys over an app (one program or a diff) drawn in `root`. The keys drive the app through
 * its own controls, so both apps answer alike with no code of their own: "/" focuses the search box (`.dx-search`),
 * Escape empties it (an empty search clears the selection in both apps), "[" / "]" change the plan selector
 * (`.dx-plan`) as a user's pick does. In a report the whole page is the app, so the document listens; in a
 * notebook the app listens on its own root (made focusable: a press inside focuses it), so a key meant for the
 * notebook stays the notebook's, and a key the app handles goes no further.
 * @param {HTMLElement} root the element the app is drawn in
 * @param {{page?: boolean}} [where] page: listen on the document (a report)
 * @returns {() => void} removes the listener
 */
export function bindKeys(root, where = {}) {
  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    const target = /** @type {HTMLElement | null} */ (ev.target);
    const search = /** @type {HTMLInputElement | null} */ (root.querySelector(".dx-search"));
    const plans = /** @type {HTMLSelectElement | null} */ (root.querySelector(".dx-plan"));
    const typing = !!target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
                                target.isContentEditable);
    const action = keyAction(ev, typing);
    if (!action || !search) return;
    if (typing && target !== search) return;  // another field (a host's, the plan selector): its own keys
    if (action === "search") { search.focus(); search.select(); }
    else if (action === "clear-search" || action === "clear") {
      search.value = "";
      search.dispatchEvent(new Event("input"));  // also when nothing was typed: it clears a clicked selection
      if (action === "clear-search") { search.blur(); if (!where.page) root.focus({preventScroll: true}); }
    } else {
      const names = plans ? Array.from(plans.options).map((o) => o.value) : [];
      const next = plans ? stepPlan(names, plans.value, action === "next" ? 1 : -1) : null;
      if (!plans || next === null) return;
      plans.value = next;
      plans.dispatchEvent(new Event("change"));
    }
    ev.preventDefault();
    ev.stopPropagation();
  }
  const target = where.page ? document : root;
  // plotly's drag handling cancels the press's default, so a click on a graph would not focus the root by itself
  const onPress = (/** @type {Event} */ ev) => {
    const t = /** @type {HTMLElement} */ (ev.target);
    if (!root.contains(document.activeElement) && t.tagName !== "INPUT" && t.tagName !== "SELECT") root.focus({preventScroll: true});
  };
  if (!where.page) {
    if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "-1");
    root.addEventListener("pointerdown", onPress, true);
  }
  target.addEventListener("keydown", /** @type {EventListener} */ (onKey));
  return () => {
    target.removeEventListener("keydown", /** @type {EventListener} */ (onKey));
    root.removeEventListener("pointerdown", onPress, true);
  };
}
