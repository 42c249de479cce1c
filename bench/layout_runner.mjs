// Runs explorer/frontend/layout/layout.js on graphs given as JSON (bench/bench_layout.py and the tests call it):
//   node bench/layout_runner.mjs IN.json OUT.json [REPEAT]
// IN: [{count, src, dst, weight?, key?}, ...]; OUT: per graph {rank, x, order, paths, ms: [wall time per run],
// cpu: [this process's CPU time per run]} (on a busy machine the CPU time is the steadier of the two).
import fs from "node:fs";
import {layered} from "../explorer/frontend/layout/layout.js";

const graphs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const repeat = Number(process.argv[4] || 1);
const out = graphs.map((g) => {
  const ms = [], cpu = [];
  let L = null;
  for (let k = 0; k < repeat; k++) {
    const t0 = performance.now(), c0 = process.cpuUsage();
    L = layered(g.count, g.src, g.dst, {weight: g.weight, key: g.key});
    const c = process.cpuUsage(c0);
    ms.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  return {rank: Array.from(L.rank), x: Array.from(L.x), order: Array.from(L.order), paths: L.paths, ms: ms, cpu: cpu};
});
fs.writeFileSync(process.argv[3], JSON.stringify(out));
