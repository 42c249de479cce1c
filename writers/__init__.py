"""Writers for tests, fixtures and benchmarks: valid ``.pte`` (:mod:`.pte`), synthetic programs of any size
(:mod:`.synth`) and ETDumps (:mod:`.etdump`). Not shipped with the package: the explorer itself only reads.

Tests, scripts and benches import them from the repository root (``python -m pytest`` and the scripts put it
on ``sys.path``)."""
