"""The one start-up line that tells a host which address to give their friends.

``gameshack serve`` listens on 127.0.0.1 by default: only this machine. With ``--host 0.0.0.0``
(``make run HOST=0.0.0.0``) it listens on every network this machine is on, and the addresses
to share are the machine's own LAN addresses, which :func:`lan_addresses` finds with the
standard library alone (no packet is sent).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
import sys

__all__ = ["lan_addresses", "share_line"]

_ANY = ("0.0.0.0", "::", "")
_LOCAL = ("127.0.0.1", "localhost", "::1")


def _interface_addresses() -> list[str]:
    """IPv4 addresses of the interfaces that are up and connected (Linux: ioctl per interface;
    elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return []
    import fcntl

    siocgifflags, siocgifaddr = 0x8913, 0x8915
    iff_up, iff_loopback, iff_running = 0x1, 0x8, 0x40
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _index, name in socket.if_nameindex():
            packed = struct.pack("256s", name.encode()[:15])
            with contextlib.suppress(OSError):
                flags = struct.unpack("H", fcntl.ioctl(s.fileno(), siocgifflags, packed)[16:18])[0]
                if flags & iff_loopback or not (flags & iff_up and flags & iff_running):
                    continue
                found.append(socket.inet_ntoa(fcntl.ioctl(s.fileno(), siocgifaddr, packed)[20:24]))
    return found


def _routed_address() -> str | None:
    """The address this machine would send from towards a private network (a UDP "connect"
    only picks a route; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return str(s.getsockname()[0])
        except OSError:
            return None


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that others on its networks can reach: no loopback, no
    link-local; the one the default route uses first."""
    seen: list[str] = []
    for addr in [_routed_address(), *_interface_addresses()]:
        if addr is None or addr in seen:
            continue
        ip = ipaddress.IPv4Address(addr)
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
            continue
        seen.append(addr)
    return seen


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def share_line(host: str, port: int) -> str:
    """One line for the console: where this site can be opened, and by whom."""
    if host in _ANY:
        lan = lan_addresses()
        here = _url("127.0.0.1", port)
        if not lan:
            return (
                f"GameShack is up at {here}. No network address found on this machine: "
                "friends can join once it is on a network."
            )
        urls = " or ".join(_url(a, port) for a in lan)
        return f"GameShack is up. Friends on your network can join at {urls} (here: {here})."
    if host in _LOCAL:
        return (
            f"GameShack is up at {_url(host, port)}, for this machine only. To let friends on "
            "your network join, start it with make run HOST=0.0.0.0 (or --host 0.0.0.0)."
        )
    return f"GameShack is up. Share {_url(host, port)} with your friends."
