"""The drills across the wire: the deployment on hosts of their own (drills/hosts.py), broken between them.

`python -m drills` runs them after the one-host drills; where namespaces cannot be made (not root, no `ip
netns`) it says so in one line and runs the one-host drills alone. `python -m drills.multihost` starts the
hosts and keeps them up until Ctrl-C (to look around: addresses and logs are printed), then tears them down.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from types import ModuleType

from drills import (
    partition_web_postgres,
    partition_web_redis,
    partition_worker_postgres,
    partition_worker_redis,
    slow_link,
    two_beats,
)
from drills.deployment import Deployment, prepare
from drills.hosts import HostStack, running_hosts
from drills.netns import unavailable_reason
from drills.report import Row

DRILLS: dict[str, ModuleType] = {
    "hosts-worker-redis-partition": partition_worker_redis,
    "hosts-worker-postgres-partition": partition_worker_postgres,
    "hosts-web-postgres-partition": partition_web_postgres,
    "hosts-web-redis-partition": partition_web_redis,
    "hosts-two-beats": two_beats,
    "hosts-slow-link": slow_link,
}


def run_drills(chosen: set[str], run: Callable[[str, ModuleType, Deployment], Row], *,
               keep_logs: Callable[[], bool]) -> list[Row]:
    """The chosen multi-host drills' rows, each run by `run` (the one-host drills' runner); [] when none was
    chosen or namespaces cannot be made here (said in one line)."""
    wanted = [name for name in DRILLS if name in chosen]
    if not wanted:
        return []
    reason = unavailable_reason()
    if reason is not None:
        print(f"drills: multi-host drills skipped: network namespaces cannot be made here ({reason})", flush=True)
        return []
    started = time.monotonic()
    rows: list[Row] = []
    with running_hosts(keep_logs=lambda: keep_logs() or not all(row.passed for row in rows)) as stack:
        print(f"drills: hosts on {stack.network.subnet}: {_addresses(stack)}", flush=True)
        deployment = prepare(stack, listen=stack.network.gateway)
        try:
            print(f"drills: hosts ready in {time.monotonic() - started:.0f} s", flush=True)
            for name in wanted:
                rows.append(run(name, DRILLS[name], deployment))
        finally:
            deployment.close()
    print(f"drills: multi-host drills took {time.monotonic() - started:.0f} s, teardown included", flush=True)
    return rows


def _addresses(stack: HostStack) -> str:
    return ", ".join(f"{name} {host.address}" for name, host in stack.network.hosts.items())


def main() -> int:
    reason = unavailable_reason()
    if reason is not None:
        print(f"drills: network namespaces cannot be made here ({reason})")
        return 1
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    with running_hosts(keep_logs=lambda: True) as stack:
        deployment = prepare(stack, listen=stack.network.gateway)
        try:
            print(f"hosts on {stack.network.subnet}: {_addresses(stack)}")
            print(f"console: {stack.web_url} and {stack.url_of('web2')}; API token {deployment.token}")
            print(f"logs: {stack.logs}; Ctrl-C tears everything down", flush=True)
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0
        finally:
            deployment.close()


if __name__ == "__main__":
    sys.exit(main())
