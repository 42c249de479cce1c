"""The payload's Python writers and its TypeScript declaration (explorer/frontend/types/payload.d.ts) agree.

On real exports (tests/fixtures: a device program, an XNNPACK program and a two-method program with their run
profiles, an ETRecord-joined program, the overlay report (built-in overlays), a .ptd data file, a placement diff
pair and a diff with profiles and ETRecords on both sides) the writers' payloads go through
:mod:`explorer.views.payload.embed` as the app receives them, and a generated TypeScript file states ``const x = <payload
JSON> satisfies AppPayload`` for each. tsc (strict, so ``null`` is not any type) then rejects a key the writer adds
that the declaration lacks (excess property), a declared key the writer no longer writes (missing property), and a
value of the wrong kind.

So that this test cannot pass by checking nothing, the same file holds broken copies of a real payload (a key
renamed, a key dropped, a key added, a number turned into a string, a null where none is allowed), each under
``// @ts-expect-error``: if the declaration stopped catching one, tsc reports the unused directive.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

import explorer
from explorer.analysis.pipeline import check
from explorer.views.html.data_file import data_file_payload
from explorer.views.state.diff import open_diff
from explorer.views.payload.diff import diff_payload, diff_views
from explorer.views.payload.embed import pack, unpack
from explorer.views.state.plan import open_program
from explorer.views.payload.profile import open_profile
from explorer.views.payload.app import app_payload

F = Path(__file__).parent / "fixtures"
JS = Path(__file__).parent / "js"
TSC = JS / "node_modules" / ".bin" / "tsc"
DECL = Path(explorer.__file__).parent / "frontend" / "types" / "payload"


def _app(pte: Path, etdump: Path | None = None, etrecord: Path | None = None) -> dict:
    program = explorer.load(pte, etrecord=etrecord)
    profile = open_profile(program, etdump) if etdump else None
    return app_payload(program, findings=list(check(program)), profile=profile)


def _diff(a: Path, b: Path, *, etdumps=None, etrecords=None) -> dict:
    pa, pb, result = open_diff(a, b)
    if etrecords:
        from explorer.analysis.context import attach_etrecord

        pa, pb = attach_etrecord(pa, etrecords[0]), attach_etrecord(pb, etrecords[1])
    profiles = (open_profile(pa, etdumps[0]), open_profile(pb, etdumps[1])) if etdumps else None
    return diff_payload(result, diff_views(result, pa, pb), programs=(pa, pb), profiles=profiles)


def _with_overlays(pte: Path, etdump: Path) -> dict:
    """The overlay report's payload (app_payload plus ``overlays``: the built-in overlays, a profile's among them),
    read back from the page as the app reads it."""
    from explorer.views.payload.embed import page_payload
    from explorer.views.html.overlay import overlay_report_html

    program = explorer.load(pte)
    return page_payload(overlay_report_html(program, profile=open_profile(program, etdump)))


def _numerics(name: str, against: str | None = None, *, diff: bool = False) -> dict:
    """A run's numbers (``payload["numerics"]``): the report ``numerics -o`` writes (the NaN run: its findings and the
    ``output_range`` overlay), or, compared, the diff view's payload (``diff --debug-buffer``)."""
    from explorer.views.payload.embed import page_payload
    from explorer.views.html.diff import diff_report_html
    from explorer.views.html.numerics import numerics_report_html

    N = F / "numerics"
    side = lambda n: tuple(str(N / f"{n}.{x}") for x in ("pte", "etdp", "bin", "etrecord"))  # noqa: E731
    report = explorer.load_numerics(*side(name)[:3], etrecord=side(name)[3],
                                    against=side(against) if against else None)
    if diff:
        return page_payload(diff_report_html(report.a.program, report.b.program, numerics=report))
    return page_payload(numerics_report_html(report))


def _as_received(payload: dict) -> dict:
    """The payload as the app reads it: packed (binary columns lifted out) and unpacked, as host/model.js does."""
    return unpack(pack(payload))


@pytest.fixture(scope="module")
def payloads() -> dict[str, tuple[str, dict]]:
    rec = F / "etrecord"
    return {name: (kind, _as_received(p)) for name, kind, p in [
        ("deviceMlp", "AppPayload", _app(F / "device_mlp.pte")),
        ("xnnpack", "AppPayload", _app(F / "xnnpack_mlp.pte", F / "etdump" / "xnnpack_mlp.etdp")),
        ("twoMethods", "AppPayload", _app(F / "two_methods.pte", F / "etdump" / "two_methods.etdp")),
        ("etrecord", "AppPayload", _app(rec / "net_xnnpack.pte", rec / "net_xnnpack.etdp", rec / "net_xnnpack.etrecord")),
        ("overlays", "AppPayload", _with_overlays(F / "xnnpack_mlp.pte", F / "etdump" / "xnnpack_mlp.etdp")),
        ("numericsNaN", "AppPayload", _numerics("nonfinite_portable")),
        ("numericsGap", "AppPayload", _numerics("diverge_portable", "diverge_xnnpack")),
        ("numericsDiff", "DiffPayload", _numerics("diverge_portable", "diverge_xnnpack", diff=True)),
        ("dataFile", "DataPayload", data_file_payload(open_program(F / "companions" / "external.ptd"))),
        ("diff", "DiffPayload", _diff(F / "diff" / "cpu_only.pte", F / "diff" / "device_cuda0.pte")),
        ("diffProfiled", "DiffPayload", _diff(rec / "net.pte", rec / "net_xnnpack.pte",
                                              etdumps=(rec / "net.etdp", rec / "net_xnnpack.etdp"),
                                              etrecords=(rec / "net.etrecord", rec / "net_xnnpack.etrecord"))),
    ]}


def _broken(payloads: dict) -> list[tuple[str, str, dict]]:
    """Copies of real payloads each with one defect the declaration must catch."""
    app, diff = payloads["etrecord"][1], payloads["diff"][1]
    out = []

    def variant(name, kind, base, edit):
        p = copy.deepcopy(base)
        edit(p)
        out.append((name, kind, p))

    variant("renamedColumn", "AppPayload", app,
            lambda p: p["plans"][0]["lod"]["tensors"].__setitem__("homes", p["plans"][0]["lod"]["tensors"].pop("home")))
    variant("droppedTitle", "AppPayload", app, lambda p: p.pop("title"))
    variant("extraPlanKey", "AppPayload", app, lambda p: p["plans"][0].__setitem__("graphHtml", ""))
    variant("renamedContext", "AppPayload", app,
            lambda p: p["plans"][0]["context"].__setitem__("opName", p["plans"][0]["context"].pop("opNames")))
    variant("renamedProfile", "AppPayload", app,
            lambda p: p["plans"][0]["profile"].__setitem__("tick", p["plans"][0]["profile"].pop("tickNs")))
    variant("stringCount", "AppPayload", app, lambda p: p["plans"][0].__setitem__("nValues", "7"))
    variant("nullLod", "AppPayload", app, lambda p: p["plans"][0].__setitem__("lod", None))
    variant("renamedOverlayKey", "AppPayload", payloads["overlays"][1],
            lambda p: next(iter(p["overlays"]["plans"].values()))[0].__setitem__("colour", "x"))
    variant("renamedNumericsRows", "AppPayload", payloads["numericsGap"][1],
            lambda p: p["numerics"]["plans"]["forward"].__setitem__("row", p["numerics"]["plans"]["forward"].pop("rows")))
    variant("unknownNumericsMark", "AppPayload", payloads["numericsGap"][1],
            lambda p: p["numerics"]["plans"]["forward"]["rows"]["5"][0].__setitem__(2, "red"))
    variant("stringFirst", "DiffPayload", payloads["numericsDiff"][1],
            lambda p: p["numerics"]["plans"]["forward"].__setitem__("first", "5"))
    variant("renamedPairs", "DiffPayload", diff,
            lambda p: p["plans"][0].__setitem__("ipair", p["plans"][0].pop("ipairs")))
    variant("stringMark", "DiffPayload", diff, lambda p: p["plans"][0]["marks"]["a"].__setitem__("vs", ["moved"]))
    variant("wrongMode", "DiffPayload", diff, lambda p: p.__setitem__("mode", "data"))
    return out


def _typescript(payloads: dict) -> str:
    kinds = sorted({k for k, _ in payloads.values()} | {"AppPayload", "DiffPayload"})
    lines = [f'import type {{ {", ".join(kinds)} }} from {json.dumps(str(DECL))};', ""]
    for name, (kind, p) in payloads.items():
        lines.append(f"export const {name} = {json.dumps(p)} satisfies {kind};")
    for name, kind, p in _broken(payloads):
        lines += ["// @ts-expect-error", f"export const {name} = {json.dumps(p)} satisfies {kind};"]
    return "\n".join(lines) + "\n"


def _tsc(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    assert TSC.exists(), "typescript is not installed: run `npm install --no-package-lock` in tests/js (.ci/run does)"
    ts = tmp_path / "payloads.ts"
    ts.write_text(source, encoding="utf-8")
    return subprocess.run([str(TSC), "--noEmit", "--strict", "--target", "es2022", "--module", "es2022",
                           "--moduleResolution", "bundler", "--skipLibCheck", str(ts)],
                          capture_output=True, text=True, timeout=300)


def test_writers_match_the_declaration(payloads, tmp_path):
    """Every payload, exactly as declared; every broken copy rejected."""
    done = _tsc(tmp_path, _typescript(payloads))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_the_fixtures_reach_every_optional_part(payloads):
    """The optional parts (profile, context, profiles, profileDiff, contexts) are present in some payload, so
    the check above covers their keys too."""
    plans = [pl for kind, p in payloads.values() if kind == "AppPayload" for pl in p["plans"]]
    assert any("profile" in pl for pl in plans) and any("context" in pl for pl in plans)
    assert any(pl["companions"]["delegates"] for pl in plans)
    overlays = [o for kind, p in payloads.values() if kind == "AppPayload" and "overlays" in p
                for ovs in p["overlays"]["plans"].values() for o in ovs]
    assert overlays and {o["scale"]["kind"] for o in overlays} >= {"continuous"}
    sides = [p["overlays"]["sides"] for kind, p in payloads.values() if kind == "DiffPayload" and "overlays" in p]
    assert sides and all("gap" in [o["name"] for o in side[s]["plans"]["forward"]] for side in sides for s in "ab")
    dplans = [pl for kind, p in payloads.values() if kind == "DiffPayload" for pl in p["plans"]]
    assert {"profiles", "profileDiff", "contexts"} <= {k for pl in dplans for k in pl}
    numbers = [p["numerics"]["plans"]["forward"] for _k, p in payloads.values() if "numerics" in p]
    assert any(pn["rowsB"] for pn in numbers) and any(pn["rowsB"] is None for pn in numbers)
    assert {r[2] for pn in numbers for rs in pn["rows"].values() for r in rs} == {"", "bad", "first"}
    assert any(pn["first"] is not None for pn in numbers)
