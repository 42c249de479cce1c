"""HTML: the offline reports (one program, a diff, a what-if, overlays, a data file) and the few tables the app
shows as they come."""
