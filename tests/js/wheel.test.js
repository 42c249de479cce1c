// The wheel over a plot (explorer/frontend/shell/wheel.js): which turn zooms the plot, and the hint's words.
import test from "node:test";
import assert from "node:assert/strict";
import {hintText, wheelZooms} from "../../explorer/frontend/shell/wheel.js";

test("the wheel zooms a plot only once clicked or with Ctrl or Meta held; else it is the page's", () => {
  assert.equal(wheelZooms({ctrlKey: false, metaKey: false}, false), false);
  assert.equal(wheelZooms({ctrlKey: true, metaKey: false}, false), true);  // also a trackpad's pinch
  assert.equal(wheelZooms({ctrlKey: false, metaKey: true}, false), true);
  assert.equal(wheelZooms({ctrlKey: false, metaKey: false}, true), true);
});

test("the hint names the modifier of the keyboard", () => {
  assert.equal(hintText(false), "Ctrl + scroll to zoom, or click the plot first");
  assert.equal(hintText(true), "\u2318 + scroll to zoom, or click the plot first");
});
