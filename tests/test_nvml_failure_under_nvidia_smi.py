"""nvidia-smi's one line where NVML cannot start, under the prompt that ran it (issue 28, blind run WW: corpus 932,
934, 940).

- `$ nvidia-smi` then `Failed to initialize NVML: Unknown Error` is nvidia-smi's whole answer: the nvidia-smi reader
  takes both lines, and the failure line goes where any pasted line of evidence goes (facts/symptoms.py reads it).
- go-nvml's spelling of the same return code (`ERROR_UNKNOWN`) is the same symptom (940).

Real lines are corpus captures; counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks
from stackaudit.importers.recognition import recognise


def test_the_prompt_and_its_failure_line_are_nvidia_smi() -> None:
    for prefix in ("932", "934", "940"):
        result = recognise(body(prefix))
        assert "nvidia-smi" in {kind for kind, *_ in result.recognised}, prefix


def test_error_unknown_is_the_same_symptom_940() -> None:
    access = capture_checks("940", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert access.status == "issue" and "ERROR_UNKNOWN" in access.message


def test_a_failure_line_without_the_command_stays_an_evidence_line() -> None:
    """Modelled counter-example: the failure quoted on its own line, no `nvidia-smi` above it."""
    result = recognise("The pod logs say:\nFailed to initialize NVML: Unknown Error\n")
    assert "nvidia-smi" not in {kind for kind, *_ in result.recognised}
    assert "evidence line" in {kind for kind, *_ in result.recognised}


def test_the_checks_that_read_nvidia_smi_say_it_showed_no_gpu_934() -> None:
    """corpus 934: nvidia-smi was read, and its answer is NVML's failure: not "not in the source"."""
    shared = capture_checks("934", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert shared.status == "unknown" and "could not start NVML" in shared.message
    assert "not in the source" not in shared.message
