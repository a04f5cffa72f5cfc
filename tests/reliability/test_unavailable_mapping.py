"""The three places an unreachable database becomes 503 `service_unavailable` (docs/
RELIABILITY.md, "PostgreSQL outage"), each given the exception types the real drivers raise.
test_postgres_outage.py proves the whole path against a stopped PostgreSQL; these cover the
branches a stopped server does not reach in that test (an error raised by a middleware, the
pool's own exceptions)."""

from __future__ import annotations

import json

import pytest
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.test import RequestFactory
from psycopg_pool import PoolTimeout, TooManyRequests
from rest_framework.exceptions import ValidationError

from demineur_site.api_errors import exception_handler, handler500, is_database_unavailable
from demineur_site.middleware import ApiServerErrorMiddleware

UNAVAILABLE = [OperationalError("server closed the connection"), InterfaceError("closed")]
UNAVAILABLE += [PoolTimeout("no connection in 3 s"), TooManyRequests("queue full")]


def _body(response: HttpResponse) -> dict[str, object]:
    return dict(json.loads(response.content))


@pytest.mark.parametrize("exc", UNAVAILABLE, ids=lambda e: type(e).__name__)
def test_the_drf_handler_answers_503_with_retry_after(exc: Exception) -> None:
    request = RequestFactory().get("/api/games")
    response = exception_handler(exc, {"request": request})
    assert response is not None
    assert response.status_code == 503
    assert response.data["error"]["code"] == "service_unavailable"
    assert response["Retry-After"] == "5"


@pytest.mark.parametrize("exc", UNAVAILABLE, ids=lambda e: type(e).__name__)
def test_a_plain_view_error_is_503_under_api(exc: Exception) -> None:
    middleware = ApiServerErrorMiddleware(lambda request: HttpResponse())
    response = middleware.process_exception(RequestFactory().get("/api/games"), exc)
    assert response is not None and response.status_code == 503
    assert _body(response)["error"]["code"] == "service_unavailable"  # type: ignore[index]


def test_a_middleware_error_is_503_under_api_and_on_pages() -> None:
    try:
        raise OperationalError("connection refused")
    except OperationalError:
        api = handler500(RequestFactory().get("/api/me"))
        page = handler500(RequestFactory().get("/"))
    assert api.status_code == 503
    assert _body(api)["error"]["code"] == "service_unavailable"  # type: ignore[index]
    assert page.status_code == 503 and page["Retry-After"] == "5"


def test_other_errors_stay_what_they_were() -> None:
    assert not is_database_unavailable(ValueError("a bug"))
    assert not is_database_unavailable(None)
    try:
        raise ValueError("a bug")
    except ValueError:
        answer = handler500(RequestFactory().get("/api/me"))
    assert answer.status_code == 500
    assert _body(answer)["error"]["code"] == "server_error"  # type: ignore[index]
    response = exception_handler(ValidationError({"x": ["bad"]}), {})
    assert response is not None and response.status_code == 400


@pytest.mark.parametrize(("outage", "status"), [(True, 503), (False, 500)])
def test_the_error_page_is_a_phone_page_in_the_visitors_language(outage: bool, status: int) -> None:
    # Rendered while the database may be down: it reads nothing but the template, fits a phone
    # (a page without a viewport is drawn 980 px wide there) and offers to try again.
    from django.utils import translation

    error: Exception = OperationalError("connection refused") if outage else ValueError("a bug")
    with translation.override("fr"):
        try:
            raise error
        except Exception:
            page = handler500(RequestFactory().get("/how-to-play"))
    html = page.content.decode()
    assert page.status_code == status
    assert page["Content-Type"].startswith("text/html")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert '<html lang="fr">' in html and "Réessayer" in html
    heading = "Démineur est indisponible" if outage else "Une erreur s'est produite"
    assert heading in html
    assert ("Retry-After" in page) is outage
