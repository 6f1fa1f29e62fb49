"""Helpers for the bench tests: servers run in their own processes on 127.0.0.1."""
