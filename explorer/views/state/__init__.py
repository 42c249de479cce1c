"""What the user has open: a plan analysed and placed once (:mod:`.plan`, :mod:`.diff` for two), which groups
are open (:mod:`.overview`), what is selected (:mod:`.selection`) and which overlays exist (:mod:`.overlays`)."""
