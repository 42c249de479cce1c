"""Campaign: the app's ETRecord details on every zoo model (docs/etrecord.md "Where it shows").

    python scripts/check_etrecord_app_zoo.py            # all zoo builders (a few minutes)
    python scripts/check_etrecord_app_zoo.py cnn gru_unrolled

Each builder of ``scripts/make_zoo.py`` is exported again with an ETRecord (as ``scripts/check_etrecord_zoo.py``
does), its report payload is made with every plan at a level of detail (``app_payload(...)``), and the
app's own modules (``lodPlan``, under Node) write the details and hover of every instruction; each one the
ETRecord maps must say what our join says: module breadcrumb, source line, stack, the nodes before lowering or
held by a delegate (``tests/test_etrecord_details.py`` ``check_plan``, the check the suite runs on the fixtures).
Needs the ``interop`` extra and node. One line per model and a summary; exit 1 when any model fails.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "tests")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="zoo builders to check (default: all)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    import check_etrecord_zoo as zoo_check
    from test_etrecord_details import check_plan, run

    import explorer
    from explorer.views.payload.app import app_payload

    zoo = zoo_check._zoo()
    made = zoo_check._record_managers()
    models = failed = instructions = 0
    for name, (_what, build) in zoo._specs().items():
        if args.names and name not in args.names:
            continue
        made.clear()
        try:
            export = build()
        except Exception as exc:  # noqa: BLE001 - a model this executorch can't export with an ETRecord
            print(f"{name:28} not exported with an ETRecord: {type(exc).__name__}")
            continue
        manager = next((m for m in reversed(made) if m.buffer == export.pte), None)
        if manager is None:
            print(f"{name:28} skipped: its program was not made by to_executorch() (or was rewritten after)")
            continue
        buf = io.BytesIO()
        try:
            manager.get_etrecord().save(buf)
        except Exception as exc:  # noqa: BLE001 - executorch's serializer fails on cond/map bodies (1.5.1)
            print(f"{name:28} executorch cannot save its ETRecord: {type(exc).__name__}")
            continue
        models += 1
        try:
            program = explorer.load(manager.buffer, etrecord=buf.getvalue())
            payload = app_payload(program, findings=[])
            n = 0
            for k, plan in enumerate(program.plans):
                with tempfile.TemporaryDirectory() as tmp:
                    n += check_plan(run(Path(tmp), payload["plans"][k]), program, plan.name)
            instructions += n
            print(f"{name:28} ok ({n} instructions described)")
        except Exception as exc:  # noqa: BLE001 - reported, counted as a failure
            failed += 1
            print(f"{name:28} FAILED: {type(exc).__name__}: {str(exc)[:300]}")
            traceback.print_exc(limit=3)
    print(f"{models} models, {instructions} mapped instructions described by the app, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
