"""Sign-ups per address: a rate per rolling hour under a ceiling per rolling day
(ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR, ACCOUNT_SIGNUPS_PER_ADDRESS_DAY; accounts/throttles.py;
docs/ACCOUNTS.md, Limits), in the style of test_account_caps.py.

The review: the old cap, 20 per address per rolling day, refused the 21st sign-up with
`Retry-After: 86378`, so one school class behind its school's one address could not sign up.
Now 30 an hour (a class in one lesson) and 60 a day (two classes); a refusal by the hour
waits an hour at most, Retry-After is computed for whichever window refuses (the longer when
both do), and a refused sign-up spends nothing of either. The clock is the throttles' own
(`SimpleRateThrottle.timer`), moved by the test: no sleeps."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import User
from deploy.processes import server_env
from tests.support.http import assert_error
from tests.support.personas import PASSWORD
from tests.support.services import settings_under

pytestmark = pytest.mark.django_db

SCHOOL = "198.51.100.20"
HOUR, DAY = 3600, 86400


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self, *_: Any) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moved = Clock()
    monkeypatch.setattr(SimpleRateThrottle, "timer", moved)
    return moved


class Pupils:
    def __init__(self) -> None:
        self.count = 0

    def sign_up(self, address: str = SCHOOL) -> Any:
        self.count += 1
        return APIClient(REMOTE_ADDR=address).post(
            "/api/auth/register",
            {"username": f"pupil{self.count}", "password": PASSWORD},
            format="json",
        )


def _made(answers: list[Any]) -> list[int]:
    return [a.status_code for a in answers]


def test_the_shipped_caps_are_thirty_an_hour_and_sixty_a_day() -> None:
    env = {k: v for k, v in server_env(debug=True).items() if not k.startswith("ACCOUNT_")}
    code = (
        "r = s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']\nprint(r['signup_hour'], r['signup_day'])"
    )
    assert settings_under(env, code).split() == ["30/hour", "60/day"]
    # Unset, the hour is half the day's ceiling: turning the ceiling off turns both off.
    assert settings_under({**env, "ACCOUNT_SIGNUPS_PER_ADDRESS_DAY": "0"}, code).split() == [
        "None",
        "None",
    ]
    assert settings_under({**env, "ACCOUNT_SIGNUPS_PER_ADDRESS_DAY": "1000"}, code).split() == [
        "500/hour",
        "1000/day",
    ]


def test_a_class_signs_up_in_one_lesson_and_waits_at_most_an_hour(rates: Any, clock: Clock) -> None:
    rates(signup_hour="30/hour", signup_day="60/day")
    pupils = Pupils()
    assert _made([pupils.sign_up() for _ in range(30)]) == [201] * 30
    late = pupils.sign_up()
    assert_error(late, 429, "throttled")
    assert HOUR - 5 <= int(late["Retry-After"]) <= HOUR + 1  # the hour refuses, not the day
    clock.now += 20 * 60
    for _ in range(5):  # retries while the hour is full spend nothing of the day
        later = pupils.sign_up()
        assert_error(later, 429, "throttled")
        assert int(later["Retry-After"]) <= 40 * 60 + 1
    clock.now += 40 * 60 + 1
    assert _made([pupils.sign_up() for _ in range(30)]) == [201] * 30  # a second class
    assert User.objects.count() == 60


def test_the_day_ceiling_refuses_with_its_own_wait(rates: Any, clock: Clock) -> None:
    rates(signup_hour="30/hour", signup_day="60/day")
    pupils = Pupils()
    for _ in range(2):
        assert _made([pupils.sign_up() for _ in range(30)]) == [201] * 30
        clock.now += HOUR + 1
    refused = pupils.sign_up()  # the hour has room: only the day refuses
    assert_error(refused, 429, "throttled")
    first_leaves = DAY - 2 * (HOUR + 1)  # when the day's first sign-up is a day old
    assert first_leaves - 5 <= int(refused["Retry-After"]) <= first_leaves + 1
    assert User.objects.count() == 60
    assert pupils.sign_up("198.51.100.21").status_code == 201  # another address


def test_when_both_windows_refuse_retry_after_is_the_longer(rates: Any, clock: Clock) -> None:
    rates(signup_hour="2/hour", signup_day="3/day")
    pupils = Pupils()
    assert pupils.sign_up().status_code == 201
    clock.now += HOUR + 1
    assert _made([pupils.sign_up() for _ in range(2)]) == [201, 201]
    # The hour is full (its two leave in an hour) and so is the day (its first leaves in
    # 23 hours): an answer after the hour would only be refused again.
    refused = pupils.sign_up()
    assert_error(refused, 429, "throttled")
    assert DAY - HOUR - 5 <= int(refused["Retry-After"]) <= DAY - HOUR + 1
