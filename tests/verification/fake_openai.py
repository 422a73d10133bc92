"""A local stand-in for an OpenAI-compatible chat server, for driving the real `openai` client.

It listens on 127.0.0.1 only, answers POST /v1/chat/completions from a scripted responder, and
records every request body with its arrival and departure times so tests can assert what was sent
and whether calls overlapped.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_NAME = "fake-llm-7b"


@dataclass
class Received:
    """One request the fake server handled."""

    body: dict[str, Any]
    started: float
    headers_authorization: str = ""
    finished: float = 0.0

    @property
    def text(self) -> str:
        """Every message content of the request, joined."""
        return "\n".join(str(message["content"]) for message in self.body["messages"])

    @property
    def system(self) -> str:
        return str(self.body["messages"][0]["content"])


@dataclass
class Reply:
    """What the responder wants sent back: a chat completion with `content`, or an error status."""

    content: str = ""
    status: int = 200
    delay: float = 0.0


Responder = Callable[[Received], Reply]


@dataclass
class FakeOpenAIServer:
    """A threaded HTTP server speaking just enough of the chat completions API."""

    responder: Responder = field(default=lambda received: Reply(content="{}"))
    received: list[Received] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAIServer:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                received = Received(
                    body=body, started=time.monotonic(), headers_authorization=self.headers.get("Authorization", "")
                )
                with fake._lock:
                    fake.received.append(received)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    found = self.path == "/v1/chat/completions"
                    reply = fake.responder(received) if found else Reply(status=404)
                    if reply.delay:
                        time.sleep(reply.delay)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1
                    received.finished = time.monotonic()
                self._send(reply, body)

            def _send(self, reply: Reply, body: dict[str, Any]) -> None:
                if reply.status == 200:
                    payload = {
                        "id": f"chatcmpl-{len(fake.received)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": MODEL_NAME,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                else:
                    payload = {"error": {"message": f"scripted {reply.status}", "type": "test", "code": None}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
