"""`stackaudit investigate`: one LLM investigator per domain, read-only tools over a snapshot, every claim
checked against what a tool returned, merged into the report (docs/investigate.md)."""
