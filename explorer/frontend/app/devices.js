import {h} from "../util/common.js";

// The device filter of the one-program app (app/app.js) in the controls row: a button per device of the plan,
// pressed while its tensors are drawn at full strength. `shown` (device name -> shown) is the app's state, passed
// in and changed here; the app applies it to the panels and publishes it (the model's `devices`).

/** the names of the devices shown, in the plan's order @param {[string, string][]} devices the plan's [name, colour]
 * @param {Record<string, boolean>} shown */
export function shownList(devices, shown) { return devices.map((p) => p[0]).filter((d) => shown[d]); }

/** the buttons' pressed state from `shown` @param {HTMLElement} box @param {Record<string, boolean>} shown */
export function markDevices(box, shown) {
  for (const b of box.querySelectorAll("button")) b.setAttribute("aria-pressed", String(shown[b.dataset.device || ""]));
}

/** A button per device in `box`; `shown` refilled from `wanted` (the model's list: none or empty, all shown); a
 * click flips one and calls `toggled`. @param {HTMLElement} box @param {[string, string][]} devices
 * @param {unknown} wanted @param {Record<string, boolean>} shown @param {() => void} toggled */
export function deviceButtons(box, devices, wanted, shown, toggled) {
  const want = Array.isArray(wanted) ? wanted : [];
  for (const d of Object.keys(shown)) delete shown[d];
  box.textContent = "";
  for (const [d, color] of devices) {
    shown[d] = !want.length || want.indexOf(d) >= 0;
    const b = h("button", "dx-dev"), dot = h("span", "dx-sw");
    dot.style.backgroundColor = color;
    b.type = "button";
    b.appendChild(dot);
    b.appendChild(document.createTextNode(d));
    b.setAttribute("aria-pressed", String(shown[d]));
    b.title = "show tensors on " + d;
    b.dataset.device = d;
    b.addEventListener("click", () => { shown[d] = !shown[d]; toggled(); });
    box.appendChild(b);
  }
}
