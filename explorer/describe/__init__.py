"""Human text for the CLI (and the few panels that show the same words): :mod:`.program` for ``inspect``
and findings, :mod:`.companions`, :mod:`.diff` and :mod:`.profile` for what each adds. Text only: these
modules format facts computed in :mod:`explorer.analysis`, they never run the analysis themselves."""
