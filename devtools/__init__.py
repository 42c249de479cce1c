"""Writers for tests, fixtures and benchmarks: valid ``.pte`` (:mod:`.writer`), synthetic programs of any size
(:mod:`.synth`) and ETDumps (:mod:`.etdump_writer`). Not shipped with the package: the explorer only reads."""
