"""Make a one-time enrolment code for a staff account (docs/ACCOUNTS.md, Staff).

Under STAFF_REQUIRE_TOTP the admin opens only to staff signed in with a second factor, and a
staff account turns two-factor sign-in on only with a code made here: somebody who has
learnt a staff password, and nothing else, cannot put their own authenticator on the account.
Run on the server, by someone who may hand out staff rights; give the code to the account's
owner in person or over a channel you trust. It is printed once and stored only as a hash;
it expires (`--hours`, 24 by default) and works once. A new code replaces the previous one.

`--replace` is for an account whose two-factor sign-in is already on but must be set up
again (a lost phone, or an authenticator that is not its owner's): it turns it off, which
closes the admin to that account until it enrols again, and makes a code."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import services, two_factor
from demineur_site.errors import DomainError


class Command(BaseCommand):
    help = "Print a one-time code with which a staff account turns two-factor sign-in on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--hours",
            type=int,
            default=two_factor.ENROLMENT_HOURS,
            help=f"how long the code works (default {two_factor.ENROLMENT_HOURS})",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="turn the account's two-factor sign-in off first (lost or foreign device)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = services.user_by_name(options["username"])
        if user is None:
            raise CommandError(f"No account is named {options['username']!r}.")
        if not (user.is_staff or user.is_superuser):
            raise CommandError(
                f"{user.username} is not staff: the code is for staff accounts (others turn "
                "two-factor sign-in on from their account page)."
            )
        if not 1 <= options["hours"] <= 24 * 7:
            raise CommandError("--hours is from 1 to 168.")
        try:
            code, expires = two_factor.issue_enrolment_code(
                user=user, hours=options["hours"], replace=options["replace"]
            )
        except DomainError as refused:
            if refused.code == "totp_active":
                raise CommandError(
                    f"{user.username} has two-factor sign-in on already. To set it up again "
                    "(a lost or foreign authenticator), run this with --replace."
                ) from refused
            raise CommandError(refused.message) from refused
        self.stdout.write(f"Enrolment code for {user.username}: {code}")
        self.stdout.write(
            f"It works once, until {expires:%Y-%m-%d %H:%M} UTC. The account's owner signs "
            "in on the site, turns two-factor sign-in on at /account and types this code "
            "when asked (over the API: POST /api/me/totp, then POST /api/me/totp/confirm "
            "{code, enrolment_code}); the admin's sign-in then asks for the app's codes."
        )
