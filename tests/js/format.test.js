// The one formatter of bytes and counts (explorer/frontend/util/format.js) against the shared table
// tests/fixtures/shared/number_formats.json, which Python's formatter is checked against too: every row.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import {bytesText, countText, fixed, timeText} from "../../explorer/frontend/util/format.js";

const TABLE = JSON.parse(fs.readFileSync(new URL("../fixtures/shared/number_formats.json", import.meta.url), "utf8"));

test("the table has rows of both kinds", () => {
  assert.ok(TABLE.bytes.length >= 20 && TABLE.count.length >= 5, "rows of bytes and counts");
  assert.match(TABLE.rules, /ties to even/);
});

test("bytes read as the shared table says, every row", () => {
  for (const [n, want] of TABLE.bytes) assert.equal(bytesText(n), want, `bytesText(${n})`);
});

test("counts read as the shared table says, every row", () => {
  for (const [n, want] of TABLE.count) assert.equal(countText(n), want, `countText(${n})`);
});

test("times read as the shared table says, every row (the CLI's time_text reads the same table)", () => {
  assert.ok(TABLE.time.length >= 10);
  for (const [ns, want] of TABLE.time) assert.equal(timeText(ns), want, `timeText(${ns})`);
});

test("not a number, or undefined, is '?' as null is", () => {
  assert.equal(bytesText(undefined), "?");
  assert.equal(bytesText(NaN), "?");
});

test("fixed rounds as Python's format does (an exact tie to even), not as toFixed (a tie up)", () => {
  assert.equal(fixed(12.5, 0), "12");
  assert.equal(fixed(13.5, 0), "14");
  assert.equal(fixed(1.15, 1), "1.1", "1.15 is 1.1499... as a double: no tie");
  assert.equal(fixed(1.35, 1), "1.4");
  assert.equal(fixed(2.675, 2), "2.67");
  assert.equal(fixed(0, 1), "0.0");
  assert.equal(fixed(1.25, 1), "1.2");
});
