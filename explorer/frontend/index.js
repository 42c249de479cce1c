// The notebook widget's front end (anywidget): the app over the widget's model. plotly.js comes from the
// kernel once per page (a custom message answered with the vendored file as a binary buffer), not once per
// widget; the payload is a gzip-compressed binary trait.
import {createApp} from "./app.js";
import {createDiffApp} from "./diff.js";
import {createDataFileApp} from "./datafile.js";
import {decodePayload} from "./model.js";

function ensurePlotly(model) {
  if (globalThis.Plotly) return Promise.resolve(globalThis.Plotly);
  if (!globalThis.__dxPlotly) {
    globalThis.__dxPlotly = new Promise((resolve) => {
      const onMessage = (msg, buffers) => {
        if (!msg || msg.type !== "plotly") return;
        model.off("msg:custom", onMessage);
        const view = buffers[0], bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        const script = document.createElement("script"), amd = globalThis.define;
        globalThis.define = undefined;  // plotly's UMD wrapper must set window.Plotly, not register with an AMD loader
        script.textContent = new TextDecoder().decode(bytes);
        document.head.appendChild(script);
        globalThis.define = amd;
        resolve(globalThis.Plotly);
      };
      model.on("msg:custom", onMessage);
      model.send({type: "plotly"});
    });
  }
  return globalThis.__dxPlotly;
}

export async function render({model, el}) {
  el.classList.add("dx-explorer");
  const waiting = document.createElement("div");
  waiting.className = "dx-root dx-loading";
  waiting.textContent = "drawing…";
  el.appendChild(waiting);
  const [, data] = await Promise.all([ensurePlotly(model), decodePayload(model.get("_payload"))]);
  waiting.remove();
  const app = data.mode === "diff" ? createDiffApp(el, model, data)
    : data.mode === "data" ? createDataFileApp(el, model, data) : createApp(el, model, data);
  el.dxApp = app;
  return () => {
    for (const gd of el.querySelectorAll(".js-plotly-plot")) globalThis.Plotly.purge(gd);
  };
}

export default {render};
