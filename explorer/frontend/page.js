// The exported report: the app over the data embedded in the page (no kernel, no network).
import {createApp} from "./app.js";
import {decodePayload, localModel} from "./model.js";

export async function startPage() {
  const packed = document.getElementById("dx-data").textContent.trim();
  const data = await decodePayload(packed);
  const model = localModel({plan: data.plan, selected: data.selected, devices: [], expanded: []});
  const app = createApp(document.getElementById("dx-app"), model, data);
  window.dxReport = app;
  document.body.dataset.ready = "1";
  return app;
}
