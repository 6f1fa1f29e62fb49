"""Plan the facts, collect them in parallel with deadlines, evaluate the checks."""
