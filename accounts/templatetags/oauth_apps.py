"""`{% authorised_apps %}`: the account page's section of the apps a player let act for them
("Sign in with Démineur", accounts.oauth), drawn on the server with its revoke buttons."""

from __future__ import annotations

from typing import Any

from django import template

from accounts import oauth

register = template.Library()


@register.inclusion_tag("accounts/_authorised_apps.html", takes_context=True)
def authorised_apps(context: Any) -> dict[str, Any]:
    request = context["request"]
    return {
        "authorised": oauth.authorised_apps(request.user),
        "csrf_token": context.get("csrf_token"),
    }
