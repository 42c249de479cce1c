// A .ptd data file has no graph and no arenas: the app shows its entries table, built (and escaped) in Python
// by explorer.views.html.data_file, in the widget and in a report alike.
/** @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model @param {import("../types/payload").DataPayload} data */
export function createDataFileApp(el, model, data) {
  el.textContent = "";
  const root = document.createElement("div");
  root.className = "dx-app dx-root dx-datafile";
  root.innerHTML = data.html;  // every key went through html_text
  el.appendChild(root);
  return {state: {plan: ""}, mode: "data"};
}
