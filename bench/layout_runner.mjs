// Runs explorer/frontend/layout.js on graphs given as JSON (bench/bench_layout.py and the tests call it):
//   node bench/layout_runner.mjs IN.json OUT.json [REPEAT]
// IN: [{count, src, dst, weight?, key?}, ...]; OUT: per graph {rank, x, order, paths, ms: [time per run]}.
import fs from "node:fs";
import {layered} from "../explorer/frontend/layout.js";

const graphs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const repeat = Number(process.argv[4] || 1);
const out = graphs.map((g) => {
  const ms = [];
  let L = null;
  for (let k = 0; k < repeat; k++) {
    const t0 = performance.now();
    L = layered(g.count, g.src, g.dst, {weight: g.weight, key: g.key});
    ms.push(performance.now() - t0);
  }
  return {rank: Array.from(L.rank), x: Array.from(L.x), order: Array.from(L.order), paths: L.paths, ms: ms};
});
fs.writeFileSync(process.argv[3], JSON.stringify(out));
