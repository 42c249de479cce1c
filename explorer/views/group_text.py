"""Text about a group of the overview: its hover, its device mix, its details-panel HTML.

Plotly strings go through :func:`.escape.plotly_text`, HTML through :func:`.escape.html_text`; a
group's label is made of op, delegate and tensor names from the file.
"""

from __future__ import annotations

from ..analysis.groups import Groups
from .details import swatch
from .escape import html_text as h
from .escape import plotly_text
from .palette import device_style
from .text import fmt_bytes

__all__ = ["group_hover", "device_mix", "group_details"]


def group_hover(G: Groups, gid: int) -> str:
    g = G.groups[gid]
    c = G.counts(gid)
    kinds = ", ".join(f"{n:,} {k}" for k, n in c["kinds"].items())
    devices = " · ".join(f"{plotly_text(d)} {n:,}" for d, n in c["devices"].items())
    return (f"<b>{plotly_text(g.label)}</b><br>#{g.start} – #{g.stop - 1} · {c['ops']:,} ops ({kinds})"
            + (f"<br>runs on {devices}" if devices else "") + f"<br>{c['tensors']:,} tensors<br>click to expand")


def device_mix(G: Groups, gid: int) -> str:
    """`` ■ 44% ■ 50% ■ 6%``: the share of the group's ops per device, when it runs on several."""
    devices = G.counts(gid)["devices"]
    total = sum(devices.values())
    if len(devices) < 2 or not total:
        return ""
    return "  " + " ".join(f"<span style='color:{device_style(d).color}'>■</span>{round(100 * n / total)}%"
                           for d, n in devices.items())


def group_details(ov, gid: int) -> str:
    """Details-panel HTML for a group: what it holds, where it runs, what crosses its border."""
    G = ov.groups
    g = G.groups[gid]
    c = G.counts(gid)
    F = ov.folded
    k = F.position(("g", gid))
    rows = [("instructions", f"#{g.start} – #{g.stop - 1} ({c['ops']:,})"),
            ("ops", ", ".join(f"{n:,} {kind}" for kind, n in c["kinds"].items())),
            ("runs on", " · ".join(f"{swatch(d)} {n:,}" for d, n in c["devices"].items()) or "–"),
            ("tensors", f"{c['tensors']:,} made or first used here")]
    if k is not None:
        into = F.edges[:, 1] == k
        out = F.edges[:, 0] == k
        rows.append(("in", f"{int(F.tensors[into].sum()):,} tensors · {h(fmt_bytes(int(F.nbytes[into].sum())))}"))
        rows.append(("out", f"{int(F.tensors[out].sum()):,} tensors · {h(fmt_bytes(int(F.nbytes[out].sum())))}"))
    if ov._holds_error(g):
        rows.append(("findings", "<span class='dx-badge dx-error'>holds a value an error finding names</span>"))
    state = "expanded — click ▾ to collapse" if gid in ov.expanded else "click it in the graph to expand"
    body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return (f"<div class='dx-root'><h4>{h(g.label)} <span class='dx-muted'>{h(g.kind)} group</span></h4>"
            f"<table class='dx-kv'>{body}</table><span class='dx-muted'>{state}</span></div>")
