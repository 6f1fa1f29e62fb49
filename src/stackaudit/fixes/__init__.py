"""Fixes as data (docs/design.md): every renderer, the fix plans and `fix --apply`
read the same steps (the step helpers live in stackaudit.fixes.model)."""
