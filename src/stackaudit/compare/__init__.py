"""`stackaudit compare A B`: what changed between two audits, or between two nodes.

A and B are each a JSON report (`audit --format json`, schema 2) or a snapshot (a directory or
.tar.gz, audited on the fly by the same engine): `inputs` reads them into one shape. `diff` sorts
every check into fixed, regressed, still wrong, newly unknown or newly known, and lists the
configuration values that changed (each result's observed value and the host inventory, by check ID
and subject). Values of checks declared `sample=True` (CPU pressure, processes on a GPU, clock event
reasons, swap in use) are what the host was doing at that instant: they are listed apart and never
make two hosts differ. `render` draws the comparison's document (render.document) as text, Markdown
or JSON (the common envelope, docs/compare.md).
"""
