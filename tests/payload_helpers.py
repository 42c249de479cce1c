"""The payload builders of ``scripts/make_payload_fixtures.py`` (Ethos-U, VGF, Core ML and QNN layouts as their
upstream code writes them), for tests that build variants of ``tests/fixtures/payloads/``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from make_payload_fixtures import (  # noqa: E402,F401
    ETHOS_SPECS, OUT as PAYLOADS, REAL, ZOO, build_all, coreml_directory, program_with_payload, qnn_context, vela_stream,
    vgf_file,
)
