// How the app writes bytes and counts: one formatter for every panel (details, hovers, lane titles, notes, overlays),
// following the table tests/fixtures/shared/number_formats.json that Python's formatter follows too, so a size reads
// the same in the page as in the CLI. tests/js/format.test.js checks every row of that table.

const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** `x` (>= 0) rounded to `digits` decimals as Python's format does: an exact tie goes to the even digit (JS
 * toFixed rounds it up: 1280 B is "1.2 KiB" in Python, "1.3" by toFixed), so a size reads here as in the CLI.
 * A tie is read off the double's exact decimal expansion (toFixed with many digits is exact for these values),
 * not off x * 10^digits, which can round 1.15 (really 1.1499...) into a false tie @param {number} x @param {number} digits */
export function fixed(x, digits) {
  const exact = x.toFixed(Math.min(100, digits + 60)), point = exact.indexOf(".");
  const tail = exact.slice(point + 1 + digits), kept = exact.slice(0, point + 1 + digits);
  if (!/^50*$/.test(tail)) return x.toFixed(digits);
  const last = digits ? kept[kept.length - 1] : exact[point - 1];  // a tie: keep an even last digit, else round up
  return Number(last) % 2 === 0 ? (digits ? kept : exact.slice(0, point)) : x.toFixed(digits);
}

// "1234567.5" -> "1,234,567.5": a "," every three digits of the integer part. A regex over the digits, not
// Intl.NumberFormat / toLocaleString (a new formatter per call cost 0.7 s of a 1k-op report's first view).
/** @param {string} text @returns {string} */
function grouped(text) {
  const point = text.indexOf("."), whole = point < 0 ? text : text.slice(0, point);
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (point < 0 ? "" : text.slice(point));
}

/** A count: `1,234,567` (an integer with "," every three digits). @param {number} n @returns {string} */
export function countText(n) {
  return grouped(String(n));
}

/** Bytes: `512 B`, `1,023 B`, `1.2 KiB` (1,280 B: one decimal, an exact tie to even), `1.0 MiB` (1,048,575 B: a
 * value that reads 1024.0 moves up a unit), `1,500.0 TiB`; null, negative or not a number: `?`.
 * @param {number | null | undefined} n @returns {string} */
export function bytesText(n) {
  if (n === null || n === undefined || !(n >= 0)) return "?";
  if (n < 1024) return countText(n) + " B";
  let k = 0, v = n / 1024;
  while (k < UNITS.length - 1 && v >= 1024) { v /= 1024; k++; }  // dividing by 1024 is exact in binary
  let text = fixed(v, 1);
  if (text === "1024.0" && k < UNITS.length - 1) { k++; text = fixed(v / 1024, 1); }
  return grouped(text) + " " + UNITS[k];
}

/** @type {[string, number][]} */
const TIME_UNITS = [["s", 1e9], ["ms", 1e6], ["µs", 1e3]];

/** A time in nanoseconds as the CLI writes it (describe/profile.py `time_text`, the table's `time` rows): `850 ns`,
 * `12.2 µs`, `3.4 ms`, `1.2 s` — three significant digits under 100 of a unit (Python's `.3g`: trailing zeros
 * dropped, an exact tie to even), whole ones above. @param {number} ns @returns {string} */
export function timeText(ns) {
  const sign = ns < 0 ? "-" : "", a = Math.abs(ns);
  for (const [unit, scale] of TIME_UNITS) {
    if (a < scale) continue;
    const v = a / scale;
    if (v >= 100) return sign + fixed(v, 0) + " " + unit;
    const text = fixed(v, v >= 10 ? 1 : 2);
    return sign + text.replace(/0+$/, "").replace(/\.$/, "") + " " + unit;  // always a point: 2 or 1 decimals
  }
  return sign + fixed(a, 0) + " ns";
}
