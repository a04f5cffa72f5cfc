"""Send the mail outbox's due messages (accounts.mail): what a process left behind after a
crash, and the retries of messages the SMTP server refused. The scheduler runs it every
minute; the web processes send at once after each commit anyway."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts import mail


class Command(BaseCommand):
    help = "Send the due messages of the mail outbox."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"sent {mail.deliver_due()} message(s)")
