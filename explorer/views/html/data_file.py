"""A ``.ptd`` data file as HTML: its header and one row per named entry (key, layout, segment, bytes).

A data file has no graph and no arenas, so its page is a plain table: what ``device-explorer show
model.ptd`` writes and what ``Explorer(data_file)`` displays. Every key goes through
:func:`~.escape.html_text`; the page needs no script and works offline.
"""

from __future__ import annotations

from explorer import frontend
from explorer.model.program import DataFile
from explorer.views.escape import html_text as h
from explorer.units import nbytes_text
from explorer.views.escape import visible

__all__ = ["data_file_fragment", "data_file_html", "data_file_payload"]

_STYLE = ("body{margin:0;background:#F6F8FA}.dx-page{max-width:1100px;margin:0 auto;padding:14px 18px 28px}"
          ".dx-card{background:#fff;border:1px solid #D0D7DE;border-radius:8px;padding:10px 12px}"
          ".dx-tot td.dx-key{text-align:left;font-family:ui-monospace,Menlo,Consolas,monospace;"
          "overflow-wrap:anywhere;white-space:normal}")


def data_file_fragment(data_file: DataFile, name: str | None = None) -> str:
    """The header line and the entries table, inside a ``dx-root`` div."""
    name = name or data_file.name
    hd = data_file.header
    tensors = sum(1 for e in data_file.entries if e.is_tensor)
    head = (f"<h4>{h(name)} <span class='dx-muted'>· ExecuTorch data file ({h(data_file.identifier)}), "
            f"{data_file.size:,} bytes, {len(data_file.entries)} entries ({tensors} tensors)</span></h4>")
    if hd is not None:
        head += (f"<div class='dx-muted'>flatbuffer {hd.flatbuffer_size:,} B at byte {hd.flatbuffer_offset}; "
                 f"{len(data_file.segments)} segments, {h(nbytes_text(hd.segment_data_size))} from byte "
                 f"{hd.segment_base_offset:,} (not read)</div>")
    rows = []
    for e, times in data_file.listed:  # an entry the file lists again is one row with its count
        layout = f"{h(e.dtype)}[{','.join(str(s) for s in e.sizes)}]" if e.is_tensor else "opaque"
        where = (f"{e.offset:,}" if e.offset is not None else "<span class='dx-sev-error'>no such segment</span>")
        again = f" <span class='dx-muted'>(listed {times:,} times: one table)</span>" if times > 1 else ""
        rows.append(f"<tr><td class='dx-key'>{h(e.key)}{again}</td><td>{layout}</td><td>{e.segment_index}</td>"
                    f"<td>{where}</td><td>{h(nbytes_text(e.nbytes))}</td></tr>")
    table = ("<table class='dx-tot'><tr><th>key</th><th>layout</th><th>segment</th><th>at byte</th><th>bytes</th></tr>"
             + "".join(rows) + "</table>")
    return f"<div class='dx-root'>{head}{table}</div>"


def data_file_html(data_file: DataFile, name: str | None = None) -> str:
    """A whole self-contained page for a data file."""
    title = h(name or data_file.name)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} · device-explorer</title>"
            f"<style>{frontend.css()}{_STYLE}</style></head><body><div class='dx-page'><div class='dx-card'>"
            f"{data_file_fragment(data_file, name)}</div></div></body></html>")


def data_file_payload(data_file: DataFile, name: str | None = None) -> dict:
    """What the app draws for a data file (``mode: "data"``: ``frontend/app/datafile.js``): the escaped fragment."""
    return {"mode": "data", "title": visible(name or data_file.name), "html": data_file_fragment(data_file, name)}
