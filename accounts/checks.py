"""`manage.py check --deploy`: a production site needs SITE_URL (docs/ACCOUNTS.md, Mailed links).

Without it and with DEBUG off, accounts.email_links.site_origin mails a link only to a request
whose origin is an entry of CSRF_TRUSTED_ORIGINS, and nothing to any other: the site still
starts and answers (the check runs only with --deploy, never in `migrate`), but a deployment
learns before its players do that their verification and reset mails would not all go."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security, deploy=True)
def site_url_check(**_: Any) -> list[checks.CheckMessage]:
    if settings.DEBUG or settings.SITE_URL:
        return []
    return [
        checks.Error(
            "SITE_URL is unset with DEBUG off: mails with a link (address verification, "
            "password reset) go only to requests whose origin is in CSRF_TRUSTED_ORIGINS",
            hint="set SITE_URL to the site's address, e.g. https://demineur.example",
            id="accounts.E001",
        )
    ]
