"""The tables the browser app draws (docs/frontend.md, "payload"): column tables per plan, never figures."""
