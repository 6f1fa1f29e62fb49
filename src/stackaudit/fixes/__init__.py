"""Fixes as data (DESIGN.md, "Fix steps as data"): every renderer, the fix plans and `fix --apply`
read the same steps."""

from stackaudit.fixes.model import (
    COST_WORDS,
    FIX_COSTS,
    Command,
    Fix,
    FixCost,
    FixScope,
    Persist,
    Step,
    StepScope,
    advice,
    cmd,
    keep_cmd,
    keep_line,
    keep_text,
    needs_shell,
    sh,
    step,
)

__all__ = ["COST_WORDS", "FIX_COSTS", "Command", "Fix", "FixCost", "FixScope", "Persist", "Step", "StepScope",
           "advice", "cmd", "keep_cmd", "keep_line", "keep_text", "needs_shell", "sh", "step"]
