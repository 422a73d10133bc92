"""Hosts of their own on this machine: a network namespace per host, each joined to one bridge by a veth pair,
on a private /24 the drill picks (one no route or address of this machine overlaps).

The machine itself (the root namespace) holds the bridge's address, `.1`: the drills reach every host from
there, so what they observe is never cut by the faults they make. A fault is between two hosts only:

- a partition: each side's neighbour (ARP) entry for the other points at a hardware address nobody has, so
  the frames leave and are lost on the bridge, as on a broken switch. Nothing tells either side: a connect
  waits for an answer that never comes, a connection goes silent. It needs no firewall (this machine has no
  iptables or nft) and leaves the hosts' other links alone. Healing deletes the entries: ARP finds the way.
- a slow link: `tc netem` delay where the kernel has it, else a token bucket (`tbf`) that narrows the link,
  so that queueing makes the latency: both directions of one host's link.

Everything is named after the run (`rcd<4 hex>`), so runs on one machine never touch each other's parts,
and `Network.close()` removes it all: whatever still runs in a namespace, the namespaces, the bridge.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import random
import secrets
import shutil
import signal
import subprocess
from dataclasses import dataclass, field

IP = shutil.which("ip") or "/usr/sbin/ip"
TC = shutil.which("tc") or "/usr/sbin/tc"
NOWHERE = "02:00:00:de:ad:00"
"""A locally administered address no interface has: frames sent to it are lost."""


class NetworkUnavailable(RuntimeError):
    """Namespaces cannot be made here (not root, no `ip netns`)."""


def _run(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {result.stderr.strip() or result.returncode}")
    return result


@dataclass(frozen=True)
class Host:
    """One host: a namespace with one link (`link`, inside it) to the bridge (`port`, on the bridge)."""

    name: str
    namespace: str
    address: str
    link: str
    port: str

    def command(self, argv: list[str]) -> list[str]:
        """`argv` run inside this host (`ip netns exec` execs it: the process keeps its pid)."""
        return [IP, "netns", "exec", self.namespace, *argv]

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _run(*self.command(list(argv)), check=check)

    def pids(self) -> list[int]:
        """Every process running inside this host."""
        return [int(pid) for pid in _run(IP, "netns", "pids", self.namespace, check=False).stdout.split()]


def unavailable_reason() -> str | None:
    """Why namespaces cannot be made on this machine, or None when they can."""
    if os.geteuid() != 0:
        return "not running as root"
    if not os.path.exists(IP):
        return "no `ip` command"
    probe = f"rcdprobe{secrets.token_hex(2)}"
    made = _run(IP, "netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"`ip netns add` failed: {made.stderr.strip()}"
    _run(IP, "netns", "del", probe, check=False)
    return None


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 in 10.0.0.0/8 that no address or route of this machine overlaps (nor another run's bridge)."""
    taken = []
    for line in _run(IP, "-4", "-o", "route", "show", "table", "all").stdout.splitlines():
        words = line.split()
        if words and words[0] in ("local", "broadcast", "unicast", "blackhole", "unreachable", "prohibit"):
            words = words[1:]
        if words and words[0] != "default":
            with contextlib.suppress(ValueError):
                taken.append(ipaddress.ip_network(words[0], strict=False))
    for line in _run(IP, "-4", "-o", "addr", "show").stdout.splitlines():
        taken.append(ipaddress.ip_interface(line.split()[3]).network)
    choices = list(range(200, 255))
    random.shuffle(choices)
    for second in choices:
        candidate = ipaddress.ip_network(f"10.{second}.{random.randrange(256)}.0/24")
        if not any(candidate.overlaps(network) for network in taken):
            return candidate
    raise NetworkUnavailable("no free private /24 under 10.200.0.0/13")


@dataclass
class Network:
    """The bridge, the hosts on it, and the faults between them."""

    run: str = field(default_factory=lambda: secrets.token_hex(2))
    subnet: ipaddress.IPv4Network = field(default_factory=_free_subnet)
    hosts: dict[str, Host] = field(default_factory=dict)
    slowed: dict[str, str] = field(default_factory=dict)
    """Host name: how its link was slowed (netem or tbf)."""
    _made: list[list[str]] = field(default_factory=list)
    """What to delete on the way out, newest last."""

    @property
    def prefix(self) -> str:
        return f"rcd{self.run}"

    @property
    def bridge(self) -> str:
        return f"{self.prefix}br"

    @property
    def gateway(self) -> str:
        """The machine's own address on the bridge: where the drills and the webhook endpoint listen."""
        return str(self.subnet.network_address + 1)

    def start(self) -> None:
        _run(IP, "link", "add", self.bridge, "type", "bridge")
        self._made.append([IP, "link", "del", self.bridge])
        _run(IP, "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _run(IP, "link", "set", self.bridge, "up")

    def add_host(self, name: str) -> Host:
        number = len(self.hosts) + 2
        host = Host(name, f"{self.prefix}-{name}", str(self.subnet.network_address + number),
                    link=f"{self.prefix}{number}h", port=f"{self.prefix}{number}b")
        _run(IP, "netns", "add", host.namespace)
        self._made.append([IP, "netns", "del", host.namespace])
        _run(IP, "link", "add", host.port, "type", "veth", "peer", "name", host.link)
        self._made.append([IP, "link", "del", host.port])
        _run(IP, "link", "set", host.link, "netns", host.namespace)
        _run(IP, "link", "set", host.port, "master", self.bridge, "up")
        host.run(IP, "addr", "add", f"{host.address}/24", "dev", host.link)
        host.run(IP, "link", "set", host.link, "up")
        host.run(IP, "link", "set", "lo", "up")
        self.hosts[name] = host
        return host

    # --- Faults ----------------------------------------------------------------------------------

    def partition(self, one: Host, other: Host) -> None:
        """Cut `one` and `other` off from each other (both ways); the rest of the network carries on."""
        for here, there in ((one, other), (other, one)):
            here.run(IP, "neigh", "replace", there.address, "lladdr", NOWHERE, "dev", here.link, "nud", "permanent")

    def heal(self, one: Host, other: Host) -> None:
        for here, there in ((one, other), (other, one)):
            here.run(IP, "neigh", "del", there.address, "dev", here.link, check=False)

    def slow(self, host: Host, *, delay_ms: int, rate_kbit: int) -> str:
        """Slow `host`'s link both ways: `delay_ms` more latency (netem), or, where the kernel lacks netem, a
        link narrowed to `rate_kbit` (tbf); says which."""
        netem = ["netem", "delay", f"{delay_ms}ms"]
        # A deep bucket queue: packets wait rather than drop, so nothing fails, it only takes longer.
        tbf = ["tbf", "rate", f"{rate_kbit}kbit", "burst", "4kb", "latency", "10s"]
        for kind, qdisc in (("netem", netem), ("tbf", tbf)):
            inside = _run(*host.command([TC, "qdisc", "replace", "dev", host.link, "root", *qdisc]), check=False)
            if inside.returncode == 0:
                _run(TC, "qdisc", "replace", "dev", host.port, "root", *qdisc)
                self.slowed[host.name] = kind
                if kind == "netem":
                    return f"tc netem: {delay_ms} ms more each way"
                return f"tc tbf: the link narrowed to {rate_kbit} kbit/s each way (this kernel has no netem)"
        raise RuntimeError(f"tc: neither netem nor tbf on {host.link}: {inside.stderr.strip()}")

    def unslow(self, host: Host) -> None:
        if self.slowed.pop(host.name, None) is not None:
            host.run(TC, "qdisc", "del", "dev", host.link, "root", check=False)
            _run(TC, "qdisc", "del", "dev", host.port, "root", check=False)

    # --- All of it -------------------------------------------------------------------------------

    def kill_everything_inside(self) -> None:
        """SIGKILL whatever still runs in the hosts (a namespace goes only once nothing runs in it)."""
        for host in self.hosts.values():
            for pid in host.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        self.kill_everything_inside()
        while self._made:
            _run(*self._made.pop(), check=False)
        self.hosts.clear()

    def leftovers(self) -> list[str]:
        """Namespaces and links of this run still on the machine (none after `close`)."""
        namespaces = [line.split()[0] for line in _run(IP, "netns", "list").stdout.splitlines() if line.strip()]
        links = [line.split(":")[1].strip().split("@")[0] for line in _run(IP, "-o", "link").stdout.splitlines()]
        return [name for name in [*namespaces, *links] if name.startswith(self.prefix)]
