"""The only layer that touches the machine (docs/design.md)."""

from stackaudit.host.base import CommandResult, Host, NotCaptured

__all__ = ["CommandResult", "Host", "NotCaptured"]
