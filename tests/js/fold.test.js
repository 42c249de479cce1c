// The app's folding (lod/expand.js: openGroup, dropGroup, revealGroups) on the shared table of cases,
// tests/fixtures/shared/fold_cases.json, the one Python's Overview is checked on (tests/test_fold_cases.py).
import test from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {lodBase, lodState} from "../../explorer/frontend/lod/base.js";
import {collapseGroup, openGroup, revealGroups} from "../../explorer/frontend/lod/expand.js";

const TABLE = JSON.parse(readFileSync(new URL("../fixtures/shared/fold_cases.json", import.meta.url), "utf-8"));

for (const c of TABLE.cases) {
  test(`the app folds ${c.name} as the table says`, () => {
    const B = lodBase(c.payload), S = lodState(B.L);
    c.steps.forEach((/** @type {any} */ step, /** @type {number} */ k) => {
      if (step.op === "collapse_all") collapseGroup(B, S, null);
      else if (step.op === "expand") openGroup(B, S, step.group);
      else if (step.op === "collapse") collapseGroup(B, S, step.group);
      else revealGroups(B, S, step.values || [], step.instructions || []);
      assert.deepEqual({expanded: S.expanded, note: S.note}, c.after[k], `step ${k}: ${JSON.stringify(step)}`);
    });
  });
}

test("the table reaches the limit: some expand closes other groups", () => {
  assert.ok(TABLE.cases.some((/** @type {any} */ c) => c.after.some((/** @type {any} */ a) => a.note !== "")));
});
