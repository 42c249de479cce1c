"""Files that travel with a program: ``.ptd`` data files, ``.bpte`` bundles, ETDump profiles and ETRecords
(:mod:`.slots` holds the field slots of their vendored schemas)."""
