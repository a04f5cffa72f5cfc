"""What the sync and async clients share: a call (method, path, body, how to read the answer),
the retry policy, and the decision taken on each answer. The two clients differ only in how
they wait (time.sleep or asyncio.sleep) and how they send (httpx.Client or AsyncClient)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Generic, TypeVar

import httpx

from .errors import ApiError, RequestTimeout, Throttled, TransportError, error_for

T = TypeVar("T")

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
RETRY_STATUSES = frozenset({429, 502, 503, 504})


def _json(response: httpx.Response) -> Any:
    return response.json()


def _nothing(response: httpx.Response) -> None:
    return None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request of the API and how its answer is read. `idempotent` calls (reads, and
    moves, which always carry a client_move_id) may be sent again after a network error; any
    call may be sent again after a 429 or 503, which change nothing on the server."""

    method: str
    path: str
    body: Mapping[str, Any] | None = None
    params: Mapping[str, Any] | None = None
    read: Callable[[httpx.Response], T] = _json
    idempotent: bool = False

    @classmethod
    def empty(cls, method: str, path: str, **kwargs: Any) -> Call[None]:
        return Call(method, path, read=_nothing, **kwargs)

    def query(self) -> dict[str, Any] | None:
        if not self.params:
            return None
        return {k: v for k, v in self.params.items() if v is not None}


@dataclass
class RetryPolicy:
    """Retries with exponential back-off and jitter, honouring Retry-After (seconds or an
    HTTP date), never sleeping longer than `max_sleep`."""

    retries: int = 3
    backoff: float = 0.5
    max_sleep: float = 30.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, retry_after: str | None) -> float:
        server = parse_retry_after(retry_after)
        if server is not None:
            return min(server, self.max_sleep)
        wait: float = self.backoff * (2**attempt)
        return min(wait * (0.5 + self.rng.random()), self.max_sleep)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    import datetime as dt

    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


@dataclass(frozen=True)
class Retry:
    """The decision to send a call again after `seconds`."""

    seconds: float


def decide(call: Call[T], response: httpx.Response, attempt: int, policy: RetryPolicy) -> T | Retry:
    """What to do with an answer: its value, a Retry, or (raised) the ApiError it carries."""
    if response.is_success:
        return call.read(response)
    if response.status_code in RETRY_STATUSES and attempt < policy.retries:
        return Retry(policy.delay(attempt, response.headers.get("Retry-After")))
    raise refusal(response)


def refusal(response: httpx.Response) -> ApiError:
    """The ApiError an unsuccessful (and read) answer carries; a Throttled one with the
    server's Retry-After, in seconds."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = error_for(response.status_code, body, response.headers)
    if isinstance(error, Throttled):
        error.retry_after = parse_retry_after(response.headers.get("Retry-After"))
    return error


def network_error(what: str, exc: httpx.HTTPError) -> TransportError:
    """The client's own exception for an httpx one (a timeout, a refused connection, an answer
    cut short or undecodable), the httpx error kept as its `__cause__`: a caller catches
    DemineurError and never needs to know httpx's."""
    kind = RequestTimeout if isinstance(exc, httpx.TimeoutException) else TransportError
    error = kind(f"{what}: {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


def on_network_error(
    call: Call[Any], exc: httpx.HTTPError, attempt: int, policy: RetryPolicy
) -> Retry:
    """A request that did not get an answer: sent again only when sending it twice is safe."""
    if call.idempotent and attempt < policy.retries:
        return Retry(policy.delay(attempt, None))
    raise network_error(f"{call.method} {call.path}", exc)


def settle(
    call: Call[T], answer: httpx.Response | httpx.HTTPError, attempt: int, policy: RetryPolicy
) -> T | Retry:
    """What the `attempt`-th send of `call` came to: its answer decided (`decide`), or the
    network error that took the answer's place (`on_network_error`)."""
    if isinstance(answer, httpx.HTTPError):
        return on_network_error(call, answer, attempt, policy)
    return decide(call, answer, attempt, policy)


def headers(token: str | None, user_agent: str) -> dict[str, str]:
    out = {"Accept": "application/json", "User-Agent": user_agent}
    if token:
        out["Authorization"] = f"Token {token}"
    return out
