"""stackaudit: audit the stack under an LLM inference server."""

__version__ = "0.1.0"
