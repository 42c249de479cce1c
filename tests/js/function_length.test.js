// No function in the browser app runs over LIMIT lines unless the comment at its head says why (a `long-function:`
// reason): a long function is a factory doing several jobs, to be split by job (docs/frontend.md, "The modules").
// Functions are found with TypeScript's own parser (tests/js/node_modules, as tests/test_tsc.py): declarations,
// expressions, arrows and methods, nested ones too (each measured on its own, from its first line to its last).
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {createRequire} from "node:module";
import {fileURLToPath} from "node:url";

const require = createRequire(import.meta.url);
const ts = require("typescript");
const FRONTEND = fileURLToPath(new URL("../../explorer/frontend/", import.meta.url));
export const LIMIT = 120, MARKER = "long-function:";

/** Every .js module of the app (vendor/ aside), as paths under explorer/frontend. */
function modules(dir = FRONTEND) {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "vendor" ? [] : modules(full);
    return e.name.endsWith(".js") ? [path.relative(FRONTEND, full).split(path.sep).join("/")] : [];
  });
}

/** Every function of `text`: {name, line, lines, reason} — reason: whether a comment at its head (before it, or
 * before the statement or property it starts on the same line as: `const f = () => {`, `f: function () {`) holds
 * the marker. */
export function functions(file, text) {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const lineOf = (pos) => src.getLineAndCharacterOfPosition(pos).line + 1;
  const out = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = lineOf(node.getStart(src)), last = lineOf(node.getEnd());
      let heads = "", at = node;
      while (at && at.kind !== ts.SyntaxKind.SourceFile && lineOf(at.getStart(src)) === first) {
        for (const c of ts.getLeadingCommentRanges(text, at.getFullStart()) || []) heads += text.slice(c.pos, c.end) + "\n";
        at = at.parent;
      }
      let name = node.name && ts.isIdentifier(node.name) ? node.name.text : "";
      if (!name && node.parent && (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) &&
          ts.isIdentifier(node.parent.name)) name = node.parent.name.text;
      out.push({file, name: name || "(anonymous)", line: first, lines: last - first + 1, reason: heads.includes(MARKER)});
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

test("no function of the app is over the limit without a reason at its head", () => {
  const files = modules();
  assert.ok(files.length > 30 && files.includes("lod/graph.js"), "the app's modules are found");
  const all = files.flatMap((f) => functions(f, fs.readFileSync(path.join(FRONTEND, f), "utf8")));
  const over = all.filter((f) => f.lines > LIMIT && !f.reason).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
  assert.deepEqual(over, []);
});

test("the measure sees a long function, its reason, and a nested one", () => {
  const body = (n) => "  x++;\n".repeat(n);
  const text = `export function long() {\n${body(LIMIT)}}\n` +
    `// ${MARKER} kept whole because ...\nexport function excused() {\n${body(LIMIT)}}\n` +
    `const arrow = () => {\n${body(3)}};\n` +
    `export function outer() {\n  const inner = function () {\n${body(LIMIT)}  };\n}\n`;
  const got = Object.fromEntries(functions("t.js", text).map((f) => [f.name, [f.lines, f.reason]]));
  assert.deepEqual(got, {long: [LIMIT + 2, false], excused: [LIMIT + 2, true], arrow: [5, false],
                         outer: [LIMIT + 4, false], inner: [LIMIT + 2, false]});
});
