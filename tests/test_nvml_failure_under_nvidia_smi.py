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


# --- `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver` ----------------------------------
# Only nvidia-smi prints it: its whole output wherever it stands, with or without its command above it (issue 28,
# blind CL: corpus 2391, 2394, 2402; and 1012, 1177, 1557, 1582, 1584 of other threads).

def _spans(text: str) -> list[tuple[str, int, int]]:
    return [(kind, start, end) for kind, start, end, *_ in recognise(text).recognised]


def test_nvidia_smis_no_driver_line_is_its_output() -> None:
    # corpus 2391 (under `$ nvidia-smi`), 2394 and 2402 (alone in a fence), 1582 (no closing period), 1584 (`sudo`).
    for prefix in ("2391", "2394", "2402", "1582", "1584", "1012", "1557"):
        assert "nvidia-smi" in {kind for kind, *_ in _spans(body(prefix))}, prefix


def test_the_failed_nvml_shutdown_below_is_the_same_output_1177() -> None:
    """corpus 1177: the failure line, a blank line, then `Failed to properly shut down NVML: Driver Not Loaded`."""
    text = "\n".join(body("1177").splitlines()[:6]) + "\n"
    assert ("nvidia-smi", 3, 5) in _spans(text)


def test_the_checks_that_read_nvidia_smi_say_it_reached_no_driver_2402() -> None:
    shared = capture_checks("2402", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert shared.status == "unknown" and "reached no NVIDIA driver" in shared.message
    assert "not in the source" not in shared.message


def test_a_probe_event_quoting_the_line_is_not_nvidia_smis_output() -> None:
    """Modelled counter-example: the kubelet's event quotes the line after its own words (the symptom's, not a run)."""
    text = ("Warning  Unhealthy  2m  kubelet  Startup probe failed: NVIDIA-SMI has failed because it couldn't "
            "communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n")
    assert "nvidia-smi" not in {kind for kind, *_ in _spans(text)}


def test_the_no_driver_pattern_is_bounded_on_a_long_line() -> None:
    import time

    from stackaudit.facts.nvidia_smi import NO_DRIVER
    line = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. " + "x" * 200_000
    t = time.monotonic()
    assert NO_DRIVER.search(line) and NO_DRIVER.search(" " * 200_000 + "y") is None
    assert time.monotonic() - t < 0.5
