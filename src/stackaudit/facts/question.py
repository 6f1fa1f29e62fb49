"""The question the user came with, where it names a setting a check judges: `how could I know which NCCL_P2P_LEVEL it
uses?` (corpus 626), `is it the PHB topology?` (corpus 913).

Fact `question` (UserQuestion): the first question sentence of the paste that names a topic of TOPICS
(importers/prose_question.py), verbatim, with the checks that answer it, best first. The report's verdict names the
first of them that judged the host where no finding stands (report/header.py `verdict`), so that a user asking
whether to set NCCL_P2P_LEVEL does not read a sentence about throughput.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import Sourced, fact, first_of, parser
from stackaudit.facts.sources import USER_QUESTION

# The words of a topic and the checks that answer a question about it, best first. P2P's: whether it works, what the
# topology allows, the switches' ACS; a variable that sets its level (NCCL_P2P_LEVEL) is IC-NCCL-ENV's first. Each check ID is one the catalogue holds
# (tests/test_verdict_answers_the_question.py).
TOPICS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bNCCL_P2P_[A-Z_]+"), ("IC-NCCL-ENV", "IC-TOPO-READ")),
    (re.compile(r"(?<!_)\bP2P\b(?!_)|\bpeer[- ]to[- ]peer\b", re.I), ("IC-P2P-FUNCTIONAL", "IC-TOPO-READ", "FW-ACS-P2P")),
    (re.compile(r"\b(?:PHB|PXB|PIX|NV\d+)\b|\btopolog(?:y|ies)\b|\btopo -m\b", re.I), ("IC-TOPO-READ",)),
    (re.compile(r"\bNCCL_[A-Z][A-Z_]+\b"), ("IC-NCCL-ENV",)),  # a variable, in capitals (not `nccl_tests`)
    (re.compile(r"\bACS\b"), ("FW-ACS-P2P",)),
    (re.compile(r"\bIOMMU\b|\biommu=", re.I), ("FW-IOMMU-MODE",)),
    (re.compile(r"\bpower[- ]?limit\b", re.I), ("PWR-GPU-POWER-LIMIT",)),
    (re.compile(r"\bpersistence\b", re.I), ("DRV-PERSISTENCE",)),
    (re.compile(r"\bshm\b|--shm-size|/dev/shm|\bshared memory\b", re.I), ("CTR-SHM-SIZE",)),
    (re.compile(r"\bCUDA graphs?\b|\benforce[-_]eager\b", re.I), ("RT-CUDA-GRAPHS",)),
    (re.compile(r"\bNUMA\b"), ("IC-NUMA-AFFINITY",)),
    (re.compile(r"\bfabric ?manager\b", re.I), ("DRV-FABRIC-MANAGER",)),
    (re.compile(r"\bECC\b"), ("MEM-ECC-MODE",)),
    (re.compile(r"\bgovernor\b", re.I), ("KERN-CPUFREQ-GOVERNOR",)),
    # Memory that runs out with memory free (`CUDA error 2: out of memory ... but I have 39GB of VRAM available?`):
    # whether another process holds it.
    (re.compile(r"\bout of memory\b|\bOOM\b|\bVRAM\b", re.I), ("MEM-GPU-SHARED",)),
)
# A question: a `?` that ends a clause (not a URL's query string).
_ASKS = re.compile(r"\?(?=\s|$|[)\"'])")


@dataclass(frozen=True)
class UserQuestion(Sourced):
    line: str  # the question's clause, verbatim (`how could I know which NCCL_P2P_LEVEL it uses?`)
    checks: tuple[str, ...]  # the checks that answer it, best first


def asked_clause(line: str) -> str:
    """The clause of `line` that asks about a topic of TOPICS: for the first `?` that ends a clause, the text from the
    boundary before it (`, `, `; `, `. `) where that names a topic, else from the sentence's start (`. `); "" where no
    question names one. At most 300 characters."""
    for q in _ASKS.finditer(line):
        head = line[:q.end()]
        sentence = head[head.rfind(". ", 0, q.start()) + 2 if head.rfind(". ", 0, q.start()) >= 0 else 0:]
        clause = sentence[max(sentence.rfind(", "), sentence.rfind("; ")) + 2:] \
            if max(sentence.rfind(", "), sentence.rfind("; ")) >= 0 else sentence
        for text in (clause, sentence):
            if _topics(text):
                return text.strip()[:300]
    return ""


def _topics(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for pattern, checks in TOPICS if pattern.search(text) for c in checks))


def asked_checks(line: str) -> tuple[str, ...]:
    """The checks that answer the question a line asks (its asked_clause's topics, in TOPICS' order); () where the
    line asks nothing (no `?` ending a clause) or its questions name no topic."""
    return _topics(asked_clause(line))


fact("question", UserQuestion, first_of, hint="ask the question beside the output it is about")


@parser(USER_QUESTION, feeds="question", kind=UserQuestion, rank=90)
def question_in_user_words(text: str) -> UserQuestion:
    """The user's question naming a setting a check judges, and those checks.

    Input (tests/data/captures/626)::

        I turned on the nccl log using `NCCL_DEBUG=INFO` when I use 2 x 2080Ti GPUs, but how could I know which NCCL_P2P_LEVEL it uses?
    """
    line = text.strip().splitlines()[0] if text.strip() else ""
    checks = asked_checks(line)
    if not checks:
        raise ParseError("no question naming a setting a check judges")
    return UserQuestion(asked_clause(line), checks)
