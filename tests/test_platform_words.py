"""Issue 28, name-implied facts: a statement that the machine is bare metal, in the user's own words
(facts/platform.py PLATFORM_WORDS, read from importers/prose_machine.py's record), is the last source of
virtualization; FW-VM then says bare metal where nothing else in the paste tells."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.platform import platform_words, virtualization_from_user_words


@pytest.mark.parametrize("line", [
    # NVIDIA/nccl-tests#29 (corpus 335): the answer to the maintainer's question
    "- It is not running inside a VM.",
    # NVIDIA/nccl#1264 (corpus 309): the machine's label in the body's list
    "- Bare Metal Supermicro 8xH100 SXM Intel Server `GPU SuperServer SYS-821GE-TNHR`",
    # A public Ubuntu forum post ("Hover Click Will Not Disable", 2014-08-06)
    "I've got Ubuntu 14.04 running on my machine(bare metal, not a VM) and I cannot get hover click to disable.",
    # mudler/LocalAI#8370 (corpus 1844): the answer under the issue form's "Hardware:" line
    "    Physical bare metal",
])
def test_statements_of_bare_metal(line: str) -> None:
    assert platform_words(line) is not None
    assert virtualization_from_user_words(line + "\n").vm == "none"


@pytest.mark.parametrize("line", [
    # Real lines of VM threads that name bare metal or a VM without stating this machine is bare metal:
    # NVIDIA/nccl#1329, NVIDIA/nccl#2171, NVIDIA/nccl#1464, and the maintainer's question in NVIDIA/nccl#428.
    "I created a virtual machine on a bare-metal server with 8 A800 GPU cards. The virtual machine has 4 GPU cards "
    "attached.",
    "# NCCL within Cloud Hypervisor VM is 25% of baremetal speed.",
    "InfiniBand RDMA performance is also good (Not GPU Direct RDMA), the same as BareMetal environment",
    "Are you running inside a VM ? Or are you using an old Linux kernel ?",
    # Modelled: a pointer to instructions, a list of deployment kinds, a negated statement.
    "For running on bare metal, see the bare metal instructions.",
    "    - Bare Metal Performance",
    "It is not bare metal: a KVM guest",
    "Bare Metal",  # modelled on install guides' section headings: a heading, not an answer
])
def test_mentions_state_nothing(line: str) -> None:
    assert platform_words(line) is None


def test_an_instance_type_beside_bare_metal_words_decides_nothing() -> None:
    """Modelled: the words contradict each other (an EC2 VM size and bare metal), so neither is taken."""
    with pytest.raises(ParseError, match="says bare metal"):
        virtualization_from_user_words("g5.48xlarge\nIt is not running inside a VM.\n")


def test_fw_vm_ok_from_the_users_statement() -> None:
    """Corpus 335 (NVIDIA/nccl-tests#29): a topology matrix and the user's 'It is not running inside a VM.'."""
    result = capture_checks("335", "FW-VM")["FW-VM"]
    assert result.status == "ok"
    assert "not running inside a VM" in result.message


def test_a_vgpu_shown_outranks_the_words(tmp_path: Path) -> None:
    """Modelled: the words come last; an nvidia-smi table naming a vGPU profile says VM whatever they say."""
    table = (Path(__file__).parent / "data" / "captures").glob("295-*.txt")
    text = next(table).read_text().split("# ----- end of header", 1)[1].split("\n", 1)[1]
    result = paste_checks(tmp_path, "It is not running inside a VM.\n\n" + text, "FW-VM")["FW-VM"]
    assert result.status != "ok"


@pytest.mark.parametrize(("line", "said"), [
    # Azure/AKS#4869 (corpus 932): the licence of the vGPU at work
    ("On one of the nodes we managed to get `nvidia-smi` output and we are noticing licensing issue.", "licensing issue"),
    # ollama/ollama#8023 (corpus 311): the slowdown an unlicensed vGPU shows after 20 minutes
    ("which is very constant at around 20 minutes, after which it runs very poorly.", "around 20 minutes"),
    # Modelled: an unlicensed vGPU named outright
    ("nvidia-smi -q says the vGPU is Unlicensed (Restricted)", "Unlicensed"),
    # Modelled counter-examples: a model's or a project's licence, a duration with no slowdown
    ("The model is released under the Apache license 2.0", ""),
    ("Loading the weights takes about 20 minutes.", ""),
])
def test_a_vgpu_limit_in_the_users_words(line: str, said: str) -> None:
    from stackaudit.facts.platform import stated_vgpu_limit

    assert stated_vgpu_limit(line) == said
