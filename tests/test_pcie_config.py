"""Binary PCI config-space parser (stackaudit.facts.pcie_config.parse_config) on byte fixtures built
as include/uapi/linux/pci_regs.h lays the registers out (see tests/pcie_support)."""

from __future__ import annotations

import contextlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pcie_support import acs, aer, bridge_config, config_space, express, gpu_config, rebar
from stackaudit.facts._parse import ParseError
from stackaudit.facts.pcie_config import ACS_CR, ACS_RR, parse_config


def test_endpoint_capability_chain_and_express_registers() -> None:
    data = gpu_config(devcap_mps=256, mps=128, mrrs=4096, ro=False, speed=2.5, width=8, aspm_support=3, aspm_ctl=2,
                      tag10_en=True)
    cfg = parse_config(data)
    assert cfg.readable and cfg.complete and not cfg.problems
    assert cfg.capability_ids == (0x01, 0x10) and cfg.vendor_id == 0x10DE and cfg.class_code == 0x030200
    exp = cfg.express
    assert exp is not None and exp.port_type == "endpoint" and exp.version == 2
    assert (exp.devcap_mps, exp.devctl_mps, exp.devctl_mrrs) == (256, 128, 4096)
    assert exp.devctl_relaxed_ordering is False and exp.devctl_ext_tag is True
    # Device Control raw value: MRRS bits 14:12 = 5 (4096), MPS bits 7:5 = 0, ExtTag bit 8.
    assert exp.devctl == 0x5100
    assert (exp.lnkcap_speed, exp.lnkcap_width, exp.lnksta_speed, exp.lnksta_width) == (16.0, 16, 2.5, 8)
    assert exp.lnkcap_aspm == "L0s L1" and exp.lnkctl_aspm == "L1"
    assert exp.devcap2_10bit_comp and exp.devcap2_10bit_req and exp.devctl2_10bit_req


def test_extended_capabilities_acs_rebar_aer() -> None:
    data = config_space(class_code=0x060400, header_type=1, caps=[(0x10, express("downstream-port"))],
                        ext=[(0x0001, aer(uncorrectable=1 << 14, correctable=(1 << 6) | 1)),
                             (0x000D, acs(cap=0x5F, ctl=0x001D)),
                             (0x0015, rebar([(0, 4, [4]), (1, 8, list(range(6, 16)))]))])
    cfg = parse_config(data)
    assert cfg.ext_capability_ids == (0x0001, 0x000D, 0x0015)
    assert cfg.acs is not None and cfg.acs.ctl == 0x001D and cfg.acs.redirect
    assert cfg.acs.ctl & ACS_RR and cfg.acs.ctl & ACS_CR
    assert cfg.acs.ctl_flags().startswith("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+")
    assert cfg.rebar is not None and [(e.bar, e.current_mib) for e in cfg.rebar] == [(0, 16), (1, 256)]
    assert max(cfg.rebar[1].supported_mib) == 32768
    assert cfg.aer is not None and cfg.aer.uncorrectable == ("CmpltTO",) and cfg.aer.correctable == ("RxErr", "BadTLP")
    assert cfg.express is not None and cfg.express.port_type == "downstream-port"


def test_acs_cleared_is_not_redirect() -> None:
    cfg = parse_config(bridge_config(acs_ctl=0))
    assert cfg.acs is not None and not cfg.acs.redirect


def test_64_byte_file_without_root_is_unreadable_never_ok() -> None:
    cfg = parse_config(gpu_config()[:64])
    assert not cfg.readable and not cfg.complete and cfg.express is None
    assert cfg.vendor_id == 0x10DE  # the header is still there


def test_256_byte_file_has_no_extended_space() -> None:
    cfg = parse_config(bridge_config(acs_ctl=0x1D)[:256])
    assert cfg.readable and cfg.express is not None and cfg.acs is None and not cfg.extended


def test_standard_chain_loop_ends_with_a_problem() -> None:
    data = bytearray(gpu_config())
    # Point the second capability's next back at the first one.
    second = data[0x41]
    data[second + 1] = 0x40
    cfg = parse_config(bytes(data))
    assert any("loops" in p for p in cfg.problems) and cfg.express is not None


def test_extended_chain_loop_ends_with_a_problem() -> None:
    data = bytearray(config_space(caps=[(0x10, express())], ext=[(0x0001, aer()), (0x000D, acs())]))
    header = struct.unpack_from("<I", data, 0x100)[0]
    nxt = header >> 20
    struct.pack_into("<I", data, nxt, (0x000D | 1 << 16) | (0x100 << 20))
    cfg = parse_config(bytes(data))
    assert any("loops" in p for p in cfg.problems) and cfg.acs is not None


def test_truncated_inside_a_capability() -> None:
    data = gpu_config()
    cfg = parse_config(data[:0x54])  # cut inside the Express capability (at 0x48; DevCtl at 0x50)
    assert cfg.readable and not cfg.complete and any("truncated" in p for p in cfg.problems)
    assert cfg.express is not None and cfg.express.devctl_mps == 256 and cfg.express.lnksta_speed is None


def test_pointer_into_header_and_short_or_dead_files() -> None:
    data = bytearray(gpu_config())
    data[0x34] = 0x10
    assert any("header" in p for p in parse_config(bytes(data)).problems)
    with pytest.raises(ParseError):
        parse_config(b"\x00" * 40)
    with pytest.raises(ParseError):
        parse_config(b"\xff" * 256)


def test_capability_version_1_has_no_devcap2() -> None:
    cfg = parse_config(config_space(caps=[(0x10, express(version=1))]))
    assert cfg.express is not None and cfg.express.devctl2_10bit_req is None


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=0, max_size=4096))
def test_fuzz_random_bytes_only_parse_error(data: bytes) -> None:
    with contextlib.suppress(ParseError):
        parse_config(data)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=4096), st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)),
                                                          max_size=40))
def test_fuzz_mutated_real_layout_only_parse_error(cut: int, edits: list[tuple[int, int]]) -> None:
    data = bytearray(bridge_config(acs_ctl=0x1D))
    for off, value in edits:
        data[off] = value
    with contextlib.suppress(ParseError):
        parse_config(bytes(data[:cut]))
