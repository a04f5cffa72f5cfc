"""A real SMTP server for the suite (aiosmtpd, on a free loopback port), and the settings that
send the site's mail to it (Django 6.1's MAILERS, or EMAIL_* on Django 5.2)."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any
from urllib.parse import parse_qs, urlsplit

import django
from aiosmtpd.controller import Controller


@dataclass
class Inbox:
    """What the server received, and a gate a test may close to hold the server mid-message
    (a slow SMTP server)."""

    messages: list[Message] = field(default_factory=list)
    gate: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Condition = field(default_factory=threading.Condition)
    port: int = 0

    def __post_init__(self) -> None:
        self.gate.set()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        while not self.gate.is_set():  # held: the client waits for our answer
            await _sleep(0.02)
        with self.arrived:
            self.messages.append(message_from_bytes(envelope.content))
            self.arrived.notify_all()
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Message]:
        """The first `count` messages, once they arrived (the sender works after the commit)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.messages)} message(s) arrived, not {count}"
                self.arrived.wait(left)
        return self.messages[:count]

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def body_of(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode(message.get_content_charset() or "utf-8")


def link_token(message: Message) -> tuple[str, str]:
    """(path, token) of the link a message carries (API.md: `?token=`)."""
    found = re.search(r"https?://\S+", body_of(message))
    assert found, body_of(message)
    url = urlsplit(found.group(0))
    return url.path, parse_qs(url.query)["token"][0]


@contextmanager
def smtp_server(settings: Any) -> Iterator[Inbox]:
    """Start an SMTP server and point the site's mail at it (pytest-django's `settings`);
    a test module makes it its fixture."""
    inbox = Inbox()
    with socket.socket() as probe:  # a free port (aiosmtpd checks its own start by connecting)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    inbox.port = port
    options = {"host": "127.0.0.1", "port": port, "use_tls": False, "use_ssl": False, "timeout": 5}
    if django.VERSION >= (6, 1):
        settings.MAILERS = {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": options,
            }
        }
    else:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    try:
        yield inbox
    finally:
        inbox.gate.set()
        controller.stop()
