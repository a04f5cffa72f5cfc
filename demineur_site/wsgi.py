"""WSGI entry point: production serves the REST API from gunicorn sync workers (docs/ARCHITECTURE.md)."""

import os

from django.core.wsgi import get_wsgi_application

from demineur_site.middleware import BodySizeLimitWSGI

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")

from demineur_site import collector
from demineur_site.logs import RequestIdWSGI  # after the settings module is named
from demineur_site.metrics import MetricsWSGI

# Bodies over MAX_REQUEST_BYTES are refused (413) before Django reads them; GET /metrics is
# answered in front of Django (demineur_site.metrics: never through the proxy); every line
# logged for a request carries its id (demineur_site.logs).
application = RequestIdWSGI(MetricsWSGI(BodySizeLimitWSGI(get_wsgi_application())))

# The loaded application out of every later full collection (demineur_site.collector).
collector.freeze_loaded_application()
