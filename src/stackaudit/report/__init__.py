"""Ranking, renderers (text, markdown, json) and exit codes."""
