"""Intermediate outputs from an ETDump's debug events: statistics (stats), joined to a program (join), two runs
compared (compare)."""
