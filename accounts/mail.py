"""Outgoing mail: an outbox in the database, sent after the commit, off the request's path.

A message is queued (`queue`) in the transaction that decides it (a sign-up, a reset
request), as an OutgoingMail row, so it exists exactly when that transaction commits. After
the commit a sender thread of the process (`_Sender`, one per process, started on first use)
is woken and sends every due row through Django's configured backend (settings: EMAIL_*, the
console backend under `make run`); the request never waits for the SMTP server, however slow
it is or if it is down. A row is deleted once sent: its links are credentials. A failure
(refused, timed out) leaves the row with its error and a next attempt later (`RETRY_DELAYS`);
`manage.py send_mail` (the scheduler's) delivers whatever a process left behind, after a
crash or a long SMTP outage. Rows are claimed with `SELECT ... FOR UPDATE SKIP LOCKED` on
PostgreSQL and leased for LEASE before the SMTP server is spoken to (no lock is held while
it answers), so two senders never send one message twice.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.core.mail.message import EmailMessage
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from accounts.models import OutgoingMail

log = logging.getLogger(__name__)

# Seconds before the 1st, 2nd, ... retry of a message that could not be sent; then every hour.
RETRY_DELAYS = (30, 120, 600, 1800)
MAX_ATTEMPTS = 24  # about a day: then the row is dropped with a WARNING
BATCH = 50
LEASE = timedelta(minutes=5)  # a claimed message is not taken again before this


def queue(*, to: str, subject: str, body: str) -> None:
    """Send this message once the current transaction commits (at once outside one)."""
    OutgoingMail.objects.create(to=to, subject=subject, body=body)
    transaction.on_commit(_sender.wake)


def _retry_delay(attempts: int) -> timedelta:
    index = min(attempts - 1, len(RETRY_DELAYS))
    return timedelta(seconds=RETRY_DELAYS[index] if index < len(RETRY_DELAYS) else 3600)


def _claim() -> list[OutgoingMail]:
    """Take up to BATCH due messages: their next attempt moves LEASE ahead in one short
    transaction, so no other sender takes them meanwhile and no lock is held while the SMTP
    server is talked to (SQLite's whole-database write lock included)."""
    with transaction.atomic():
        rows = OutgoingMail.objects.filter(next_attempt_at__lte=timezone.now()).order_by("id")
        if connection.vendor == "postgresql":
            rows = rows.select_for_update(skip_locked=True)
        batch = list(rows[:BATCH])
        OutgoingMail.objects.filter(pk__in=[m.pk for m in batch]).update(
            next_attempt_at=timezone.now() + LEASE
        )
    return batch


def _send(mail: OutgoingMail) -> None:
    """Through the configured backend: Django 6.1's default mailer (MAILERS), else
    EMAIL_BACKEND; a fresh connection each time (the volume is a few messages a minute)."""
    EmailMessage(
        subject=mail.subject, body=mail.body, from_email=settings.DEFAULT_FROM_EMAIL, to=[mail.to]
    ).send()


def deliver_due() -> int:
    """Send every message due now; the number sent. Safe to run from several processes."""
    sent = 0
    while True:
        batch = _claim()
        for mail in batch:
            try:
                _send(mail)
            except Exception as exc:  # refused, timed out, unreachable: try later
                attempts = mail.attempts + 1
                if attempts >= MAX_ATTEMPTS:
                    log.warning("mail to a recipient dropped after %d attempts", attempts)
                    OutgoingMail.objects.filter(pk=mail.pk).delete()
                    continue
                OutgoingMail.objects.filter(pk=mail.pk).update(
                    attempts=attempts,
                    last_error=repr(exc)[:300],
                    next_attempt_at=timezone.now() + _retry_delay(attempts),
                )
                log.warning("sending mail failed (attempt %d): %r", attempts, exc)
            else:
                OutgoingMail.objects.filter(pk=mail.pk).delete()
                sent += 1
        if len(batch) < BATCH:
            return sent


class _Sender:
    """One daemon thread per process that runs deliver_due() each time it is woken."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()

    def wake(self) -> None:
        with self._lock:
            self._idle.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="mail-sender", daemon=True)
                self._thread.start()
        self._event.set()

    def wait_idle(self, timeout: float) -> bool:
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while True:
            self._event.wait()
            self._event.clear()
            self._work()
            with self._lock:
                if not self._event.is_set():
                    self._idle.set()

    def _work(self) -> None:
        for attempt in range(5):
            try:
                deliver_due()
                break
            except Exception:  # the database busy or away: again soon, then the scheduler
                if attempt == 4:
                    log.exception("the mail sender failed; manage.py send_mail will retry")
                time.sleep(0.2 * 2**attempt)
            finally:
                close_old_connections()
                connection.close()


_sender = _Sender()


def flush(timeout: float = 10.0) -> bool:
    """Wait until this process's sender has nothing left to do (tests, a graceful stop)."""
    return _sender.wait_idle(timeout)
