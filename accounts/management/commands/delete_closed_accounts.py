"""Delete the accounts whose deletion was asked for ACCOUNT_DELETE_GRACE_DAYS ago and not
called off by a sign-in (docs/ACCOUNTS.md, Deleting): each one's personal data goes, its name
is retired, and its games stay under an anonymous name (accounts.services.account_erase).
The scheduler runs it with the other periodic commands."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts import services


class Command(BaseCommand):
    help = "Delete the closed accounts whose grace period is over (their games stay, anonymous)."

    def handle(self, *args: Any, **options: Any) -> None:
        due = services.deletions_due()
        self.stdout.write(f"{len(due)} account(s) due for deletion")
        erased = 0
        for n, user_id in enumerate(due, 1):
            erased += services.account_erase(user_id=user_id)
            if n % 100 == 0 or n == len(due):
                self.stdout.write(f"deleted {erased}/{len(due)}")
        self.stdout.write(f"deleted {erased} account(s)")
