"""JSON schemas of the investigators' tools and a validator for the subset of JSON Schema they use.

The subset: `type` (object, array, string, integer, number, boolean), `properties`, `required`,
`additionalProperties: false`, `enum`, `minLength`/`maxLength`, `pattern`, `minimum`/`maximum`,
`minItems`/`maxItems`, `items`. A schema keyword outside it is a programming error (ValueError), so that a
tool's schema cannot promise a bound the validator does not enforce. tests/test_investigate_tools.py
checks the schemas against the JSON Schema meta-schema and this validator against `jsonschema`.
"""

from __future__ import annotations

import re
from typing import Any

from stackaudit.checks.registry import DOMAINS
from stackaudit.fixes.model import CONFIDENCES, SEVERITIES
from stackaudit.render.text import cut

_KNOWN = frozenset({"type", "properties", "required", "additionalProperties", "enum", "minLength", "maxLength",
                    "pattern", "minimum", "maximum", "minItems", "maxItems", "items", "description"})
_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
                                       "number": (int, float), "boolean": (bool,)}
# Reported errors per call: enough for a model to fix its arguments, never a wall of text.
MAX_ERRORS = 8

# A catalogue check ID (`KERN-NUMA-BALANCING`), or `X-<DOMAIN>-<slug>` for what the catalogue lacks.
X_ID_PATTERN = r"^X-(?:" + "|".join(DOMAINS) + r")-[a-z0-9]+(?:-[a-z0-9]+)*$"
FINDING_ID_PATTERN = r"^(?:(?:FW|CTR|DRV|KERN|KVER|MEM|PCIE|PWR|IC|RT)-[A-Z0-9-]+|X-(?:" + "|".join(DOMAINS) + \
    r")-[a-z0-9]+(?:-[a-z0-9]+)*)$"
FINDING_STATUSES = ("issue", "ok", "not-an-issue")
MAX_FINDINGS = 20
MAX_QUOTES = 5

FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "status", "severity", "confidence", "title", "evidence"],
    "properties": {
        "id": {"type": "string", "maxLength": 80, "pattern": FINDING_ID_PATTERN,
               "description": "a catalogue check ID, or X-<DOMAIN>-<slug> (lower-case slug) for something "
                              "the catalogue lacks"},
        "status": {"type": "string", "enum": list(FINDING_STATUSES)},
        "severity": {"type": "string", "enum": list(SEVERITIES)},
        "confidence": {"type": "string", "enum": list(CONFIDENCES)},
        "subject": {"type": "string", "maxLength": 200,
                    "description": "what it is about: a GPU's PCI address, a device, a process; empty for the host"},
        "title": {"type": "string", "minLength": 1, "maxLength": 200},
        "observed": {"type": "string", "maxLength": 500, "description": "the value seen, as a tool showed it"},
        "expected": {"type": "string", "maxLength": 500},
        "recommendation": {"type": "string", "maxLength": 1000},
        "evidence": {"type": "array", "minItems": 1, "maxItems": MAX_QUOTES,
                     "description": "quotes copied from tool outputs of this conversation: a whole line, or 20+ "
                                    "characters that contain the observed value",
                     "items": {"type": "string", "minLength": 1, "maxLength": 2000}},
    },
}
REPORT_FINDINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["findings"],
    "properties": {"findings": {"type": "array", "maxItems": MAX_FINDINGS, "items": FINDING_SCHEMA}},
}


def _is_type(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def validate(schema: dict[str, Any], value: Any, where: str = "") -> list[str]:
    """Every way `value` breaks `schema` (at most MAX_ERRORS), as `where: what` lines; [] when it is valid."""
    errors: list[str] = []
    _check(schema, value, where or "arguments", errors)
    return errors[:MAX_ERRORS]


def _check(schema: dict[str, Any], value: Any, where: str, errors: list[str]) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"schema keyword outside the validated subset: {sorted(unknown)}")
    if len(errors) >= MAX_ERRORS:
        return
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        errors.append(f"{where}: expected {kind}, got {_kind_of(value)}")
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {_short(value)} is not one of {', '.join(map(str, schema['enum']))}")
        return
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{where}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{where}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{where}: {_short(value)} does not match {schema['pattern']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: above the maximum {schema['maximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{where}: more than {schema['maxItems']} items")
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value[: schema.get("maxItems", len(value))]):
                _check(items, item, f"{where}[{i}]", errors)
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{where}: missing {name!r}")
        if schema.get("additionalProperties") is False:
            for name in value:
                if name not in properties:
                    errors.append(f"{where}: unexpected property {_short(name)}")
        for name, sub in properties.items():
            if name in value:
                _check(sub, value[name], f"{where}.{name}", errors)


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number"}.get(type(value), "value")


def _short(value: Any) -> str:
    return cut(repr(value), 60)
