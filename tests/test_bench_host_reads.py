"""What bench reads of the host with the standard library (psutil and platformdirs dropped): this host's
addresses, for "is the server on this machine", and the user data directory of the history database."""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stackaudit.bench import history, server

# Verbatim: /proc/net/fib_trie and /proc/net/if_inet6 of the development machine (a container with lo and
# eth0), 2026-12-01; `ip -o addr show` there listed 127.0.0.1, 192.0.2.2, ::1, fd00::2, fe80::fc:ff:fe00:1.
FIB_TRIE = """Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 192.0.2.0/24 2 0 2
        +-- 192.0.2.0/30 2 0 2
           |-- 192.0.2.0
              /24 link UNICAST
           |-- 192.0.2.2
              /32 host LOCAL
        |-- 192.0.2.255
           /32 link BROADCAST
Local:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 192.0.2.0/24 2 0 2
        +-- 192.0.2.0/30 2 0 2
           |-- 192.0.2.0
              /24 link UNICAST
           |-- 192.0.2.2
              /32 host LOCAL
        |-- 192.0.2.255
           /32 link BROADCAST
"""
IF_INET6 = """fd000000000000000000000000000002 04 40 00 82     eth0
fe8000000000000000fc00fffe000001 04 40 20 80     eth0
00000000000000000000000000000001 01 80 10 80       lo
"""
# Modelled on the same layout: a second address on eth0 (ip addr add 10.20.0.7/16 dev eth0) and a
# 10.20.0.0/16 network whose own entry is not an address of the host.
SECONDARY = FIB_TRIE.replace("Local:\n", """     +-- 10.20.0.0/16 2 0 2
        |-- 10.20.0.0
           /16 link UNICAST
        |-- 10.20.0.7
           /32 host LOCAL
Local:
""", 1)


def test_ipv4_addresses_are_the_local_host_routes() -> None:
    assert server._ipv4_local(FIB_TRIE) == {"127.0.0.1", "192.0.2.2"}
    assert server._ipv4_local(SECONDARY) == {"127.0.0.1", "192.0.2.2", "10.20.0.7"}
    assert server._ipv4_local("") == set()


def test_ipv6_addresses_are_read_from_their_hex_form() -> None:
    assert server._ipv6_local(IF_INET6) == {"fd00::2", "fe80::fc:ff:fe00:1", "::1"}
    assert server._ipv6_local("zz\n0123 too short\n") == set()


def test_local_addresses_from_a_proc_tree(tmp_path: Path) -> None:
    (tmp_path / "net").mkdir()
    assert server._local_addresses(str(tmp_path)) == {"127.0.0.1", "::1"}  # files absent: loopback only
    (tmp_path / "net" / "fib_trie").write_text(FIB_TRIE)
    (tmp_path / "net" / "if_inet6").write_text(IF_INET6)
    assert server._local_addresses(str(tmp_path)) == {"127.0.0.1", "192.0.2.2", "::1", "fd00::2",
                                                        "fe80::fc:ff:fe00:1"}


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ip") is None,
                    reason="needs Linux and iproute2's `ip` to list this host's addresses")
def test_this_hosts_addresses_match_ip_addr() -> None:
    done = subprocess.run(["ip", "-o", "addr", "show"], capture_output=True, text=True, timeout=10, check=True)
    listed = set()
    for line in done.stdout.splitlines()[:10_000]:
        fields = line.split()
        if len(fields) > 3 and fields[2] in ("inet", "inet6"):
            listed.add(str(ipaddress.ip_address(fields[3].split("/")[0])))
    assert "127.0.0.1" in listed and listed <= server._local_addresses()
    for address in listed:
        assert server.is_local_url(f"http://[{address}]:8000/" if ":" in address else f"http://{address}:8000/")
    assert not server.is_local_url("http://198.51.100.254:8000/")  # TEST-NET-2, not an address of this host


def test_user_data_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if sys.platform in ("darwin", "win32"):
        pytest.skip("the XDG rules are the Linux and BSD ones")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert history.user_data_dir() == str(tmp_path / "data" / "stackaudit")
    assert history.default_db_path() == str(tmp_path / "data" / "stackaudit" / "bench.sqlite3")
    for unset in ("", "   ", "relative/dir"):  # empty, blank, or relative (invalid by the spec): the default
        monkeypatch.setenv("XDG_DATA_HOME", unset)
        assert history.user_data_dir() == os.path.join(str(tmp_path), ".local", "share", "stackaudit")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert history.default_db_path() == os.path.join(str(tmp_path), ".local", "share", "stackaudit",
                                                     "bench.sqlite3")
