"""HTML fragments the app shows as they come: per-device totals and findings (:mod:`.tables`), runtime needs
(:mod:`.requirements`), a diff's review header and pair details (:mod:`.review`). Beneath the payload that
carries them and the pages that hold it."""
