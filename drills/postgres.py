"""The drills' own PostgreSQL cluster: `initdb` in a temporary folder, a free port, passwords for every role.

PostgreSQL refuses to run as root, so the server binaries run as the `postgres` OS user (`runuser`) in a
folder that user owns. Three roles, as in production: the superuser (the drills' own reads, pins and database
copies), and the two that `deploy/postgres-init.sql` makes, the tables' owner and the console's runtime role.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

REPO = Path(__file__).resolve().parents[1]
DATABASE = "reviewconsole"
OWNER_ROLE = "reviewconsole_owner"
APP_ROLE = "reviewconsole_app"
SUPERUSER = "postgres"


def _server_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("no PostgreSQL server found under /usr/lib/postgresql/*/bin (initdb, pg_ctl)")
    return Path(found[-1]).parent


@dataclass
class Postgres:
    root: Path
    """A folder of its own: the data, the socket and the server's log go here."""
    port: int
    address: str = "127.0.0.1"
    """Where it listens (and the drills connect)."""
    passwords: dict[str, str] = field(
        default_factory=lambda: {role: secrets.token_urlsafe(24) for role in (SUPERUSER, OWNER_ROLE, APP_ROLE)}
    )
    _running: bool = False
    _cpu_before: float = 0.0
    """CPU seconds of servers since restarted (each restart starts a new postmaster)."""

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, role: str = APP_ROLE, database: str = DATABASE) -> str:
        return f"postgres://{role}:{self.passwords[role]}@{self.address}:{self.port}/{database}"

    def connect(self, role: str = SUPERUSER, database: str = DATABASE, **options: Any) -> psycopg.Connection:
        options.setdefault("autocommit", True)
        return psycopg.connect(self.url(role, database), connect_timeout=5, **options)

    def _command(self, command: list[str]) -> list[str]:
        """How a server binary is run: as the postgres OS user when the drills run as root."""
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command

    def _as_postgres(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        command = self._command([str(_server_bin() / args[0]), *args[1:]])
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({result.returncode}): {result.stderr.strip() or result.stdout}")
        return result

    def _pg_ctl(self, action: str, *options: str) -> None:
        self._as_postgres("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w", "-t", "60",
                          *options, action)

    def start(self) -> None:
        """A new cluster, the console's database in it, and the two roles made by deploy/postgres-init.sql."""
        self.root.mkdir()
        password_file = self.root / "superuser-password"
        password_file.write_text(self.passwords[SUPERUSER] + "\n")
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            os.chown(password_file, user.pw_uid, user.pw_gid)
        password_file.chmod(0o600)
        # Passwords over TCP for every role, as in production: the runtime role cannot act as another.
        self._as_postgres("initdb", "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={password_file}",
                          "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--no-sync")
        password_file.unlink()
        self.resume()
        with self.connect(database="postgres") as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")
        # The roles exactly as docker compose makes them (psql 15+ reads the passwords from the environment).
        subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(REPO / "deploy" / "postgres-init.sql"),
             self.url(SUPERUSER)],
            env={**os.environ, "POSTGRES_OWNER_PASSWORD": self.passwords[OWNER_ROLE],
                 "POSTGRES_APP_PASSWORD": self.passwords[APP_ROLE]},
            check=True, capture_output=True, timeout=60,
        )

    def restart(self, mode: str = "fast") -> None:
        """`pg_ctl restart -m fast|immediate`: every connection is cut; the server is back when this returns."""
        self._cpu_before = self.cpu_seconds()
        self._pg_ctl("restart", "-m", mode)

    def pause(self, mode: str = "fast") -> None:
        """The first half of a restart: down until `resume()`, so a drill can ask while nothing answers."""
        self._cpu_before = self.cpu_seconds()
        self._pg_ctl("stop", "-m", mode)

    def resume(self) -> None:
        self._pg_ctl("start", "-o", f"-p {self.port} -c listen_addresses={self.address} "
                                    f"-c unix_socket_directories={self.root} -c max_connections=100")
        self._running = True

    def stop(self) -> None:
        if not self._running:
            return
        try:
            self._pg_ctl("stop", "-m", "immediate")
        except (RuntimeError, subprocess.TimeoutExpired):
            pid_file = self.data / "postmaster.pid"
            if pid_file.exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        self._running = False

    def cpu_seconds(self) -> float:
        """CPU time of the server so far: the postmaster, the backends it reaped, those alive, earlier servers."""
        pid_file = self.data / "postmaster.pid"
        if not pid_file.exists():
            return self._cpu_before
        postmaster = int(pid_file.read_text().split()[0])
        ticks = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # After the command name (proc(5)): ppid is fields[1]; utime, stime, cutime, cstime fields[11:15].
            if int(entry.name) == postmaster:
                ticks += sum(int(value) for value in fields[11:15])
            elif int(fields[1]) == postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return self._cpu_before + ticks / os.sysconf("SC_CLK_TCK")
