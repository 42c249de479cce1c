"""The Arm backends' compile specs (Ethos-U, VGF, TOSA) as readable pairs.

Their values are text (``backends/arm/common/arm_compile_spec.py`` ``ArmCompileSpec._to_list``):
``compile_flags`` is the compiler's flags joined by spaces (``_from_list`` splits them on " "; for
Ethos-U the Vela command line, ``--accelerator-config=ethos-u55-128 --system-config=...``), and
``transform_pipeline_config`` a JSON object (``ArmPassPipelineConfig.serialize``). Both are long enough
to be cut in a summary line, so each flag and each pipeline option becomes its own
``compile_flags.<flag>`` / ``transform_pipeline_config.<option>`` pair; the other keys (``tosa_spec``,
``output_format``, ``target``...) are short text and stay as they are.
"""

from __future__ import annotations

import json

__all__ = ["ARM_IDS", "arm_spec_pairs"]

ARM_IDS = frozenset({"EthosUBackend", "VgfBackend", "TOSABackend"})


def arm_spec_pairs(key: str, value: bytes) -> tuple[tuple[str, str], ...] | None:
    """The pairs for ``compile_flags`` and ``transform_pipeline_config``; None for other keys or a value
    that is not what ``ArmCompileSpec`` writes (the caller then shows it as it is)."""
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if key == "compile_flags":
        out = []
        for flag in (f for f in text.split(" ") if f):
            if not flag.startswith("--") or len(flag) < 3:
                return None
            name, eq, val = flag[2:].partition("=")
            out.append((f"{key}.{name}", val if eq else "on"))
        return tuple(out) or None
    if key == "transform_pipeline_config":
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            return None
        if not isinstance(doc, dict) or not doc:
            return None
        return tuple((f"{key}.{k}", v if isinstance(v, str) else json.dumps(v, sort_keys=True)) for k, v in doc.items())
    return None
