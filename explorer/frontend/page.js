// An exported report (one program or a diff): the app over the data embedded in the page (no kernel, no network).
import {createApp} from "./app.js";
import {createDiffApp} from "./diff.js";
import {createDataFileApp} from "./datafile.js";
import {decodePayload, localModel} from "./model.js";

export async function startPage() {
  performance.mark("dx:start");  // performance marks: bench/bench_view.py reads where the time goes
  const packed = document.getElementById("dx-data").textContent.trim();
  const data = await decodePayload(packed);
  performance.mark("dx:data");
  const model = localModel({plan: data.plan, selected: data.selected, devices: [], expanded: []});
  const el = document.getElementById("dx-app");
  const app = data.mode === "diff" ? createDiffApp(el, model, data)
    : data.mode === "data" ? createDataFileApp(el, model, data) : createApp(el, model, data);
  if (data.mode === "diff") window.dxDiff = app;
  else window.dxReport = app;
  performance.mark("dx:drawn");
  document.body.dataset.ready = "1";
  return app;
}
