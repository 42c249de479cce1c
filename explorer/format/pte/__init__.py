"""The ``.pte`` itself: :mod:`.container` (identifier, ``eh00`` header, segments), :mod:`.slots` (the
schema's field slots), :mod:`.decode` and :mod:`.columnar` (tables -> model), :mod:`.program_file` (the reader)."""
