"""The only layer that touches the machine (DESIGN.md, "Layers")."""

from stackaudit.host.base import CommandResult, Host, NotCaptured

__all__ = ["CommandResult", "Host", "NotCaptured"]
