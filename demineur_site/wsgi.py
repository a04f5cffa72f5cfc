"""WSGI entry point: production serves the REST API from gunicorn sync workers (docs/ARCHITECTURE.md)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")

application = get_wsgi_application()
