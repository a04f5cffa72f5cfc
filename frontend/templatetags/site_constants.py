"""`{% site_constants %}`: the server's constants for the page's scripts, as one data attribute
of the page's <html> element (`data-site-constants`, JSON, HTML-escaped). An attribute and not
a `<script type="application/json">` block: the pages carry no script element without `src`
(the CSP allows only this site's files, tests/security/test_http_headers.py), and <html> is
parsed before the first script in <head> (theme.js) runs. A tag rather than a view's context
so that every page built on base.html has it, the site's own 404 page included
(docs/FRONTEND.md, Constants)."""

from __future__ import annotations

import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString

from frontend.views import site_constants as constants

register = template.Library()


@register.simple_tag
def site_constants() -> SafeString:
    return format_html('data-site-constants="{}"', json.dumps(constants(), cls=DjangoJSONEncoder))
