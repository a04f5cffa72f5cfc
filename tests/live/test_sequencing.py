"""games.live.sequencing: the seq rules of docs/LIVE.md, without a socket, a channel layer or a clock.

Each test feeds a Sequencer events and times and checks what it says to send, hold or re-read.
"""

from __future__ import annotations

import doctest
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.live import sequencing
from games.live.sequencing import Sequencer


def move(seq: int) -> dict[str, Any]:
    return {"type": "move", "seq": seq, "action": "flag", "changes": []}


def ended(seq: int) -> dict[str, Any]:
    return {"type": "ended", "seq": seq, "game": {}}


def sent(s: Sequencer, event: dict[str, Any], now: float = 0.0) -> list[tuple[str, int]]:
    return [(e["type"], e["seq"]) for e in s.receive(event, now=now).send]


def started(seq: int = 1, **kwargs: float) -> Sequencer:
    s = Sequencer(**kwargs)
    assert s.restart(seq=seq, ended=False) == []
    return s


def test_the_module_examples_hold() -> None:
    failed, attempted = doctest.testmod(sequencing)
    assert attempted >= 5 and failed == 0


def test_the_next_event_goes_out_at_once_and_nothing_waits() -> None:
    s = started(1)
    assert sent(s, move(2)) == [("move", 2)]
    assert sent(s, move(3)) == [("move", 3)]
    assert s.last_seq == 3 and s.held == {} and s.wake_at() is None


def test_an_event_already_in_the_snapshot_or_already_sent_is_dropped() -> None:
    s = started(5)
    assert sent(s, move(4)) == []
    assert sent(s, move(5)) == []
    assert sent(s, move(6)) == [("move", 6)]
    assert sent(s, move(6)) == []  # the same event delivered twice goes out once
    assert s.held == {} and s.wake_at() is None


def test_events_out_of_order_are_held_then_sent_in_order() -> None:
    s = started(1)
    assert sent(s, move(3), now=10.0) == []
    assert sent(s, move(4), now=10.05) == []
    assert s.wake_at() == pytest.approx(10.0 + sequencing.REORDER_WAIT_SECONDS)
    assert sent(s, move(2), now=10.1) == [("move", 2), ("move", 3), ("move", 4)]
    assert s.held == {} and s.wake_at() is None
    assert s.due(now=11.0) is None  # nothing to re-read


def test_a_gap_that_stays_open_asks_for_a_re_read_after_the_reorder_wait() -> None:
    s = started(1, reorder_wait=0.2)
    assert sent(s, move(5), now=3.0) == []
    assert s.due(now=3.1) is None  # still within the wait
    assert s.due(now=3.2) == "seq 5 after 1"
    assert s.due(now=3.3) is None  # asked once; the consumer re-reads now


def test_a_fresh_state_releases_what_it_makes_next_and_forgets_what_it_covers() -> None:
    s = started(1)
    for seq in (4, 6, 7):
        sent(s, move(seq))
    released = s.restart(seq=5, ended=False)  # the re-read game is at seq 5
    assert [e["seq"] for e in released] == [6, 7]
    assert s.held == {} and s.last_seq == 7


def test_a_fresh_state_that_does_not_close_the_gap_keeps_the_later_events() -> None:
    s = started(1)
    sent(s, move(5), now=0.0)
    assert s.restart(seq=3, ended=False) == []
    assert list(s.held) == [5]
    assert [e["seq"] for e in s.receive(move(4), now=0.5).send] == [4, 5]


def test_ended_comes_right_after_the_move_of_the_same_seq_and_then_nothing() -> None:
    s = started(1)
    assert sent(s, ended(2)) == []  # before its move: held
    assert sent(s, move(2)) == [("move", 2), ("ended", 2)]
    assert s.ended
    assert sent(s, move(3)) == [] and sent(s, ended(2)) == []
    assert s.wake_at() is None


def test_ended_right_after_a_state_at_the_final_move_goes_out() -> None:
    s = started(4)  # the snapshot holds the final move, read before its `ended` arrived
    assert sent(s, ended(4)) == [("ended", 4)]


def test_a_state_of_an_ended_game_sends_nothing_more() -> None:
    s = Sequencer()
    assert s.restart(seq=9, ended=True) == []
    assert sent(s, ended(9)) == [] and sent(s, move(10)) == []


def test_a_discarded_game_is_gone_and_silent() -> None:
    s = started(0)
    step = s.receive({"type": "discarded", "seq": 0}, now=0.0)
    assert step.gone and step.send == []
    assert sent(s, move(1)) == [] and s.ended


def test_the_players_own_move_whose_event_is_lost_asks_for_a_re_read() -> None:
    s = started(1, lost_after=2.0)
    s.expect(2, now=100.0)
    assert s.wake_at() == pytest.approx(102.0)
    assert s.due(now=101.0) is None
    assert s.due(now=102.0) == "the event of seq 2 never came"
    assert s.wake_at() is None


def test_the_players_own_move_whose_event_came_needs_nothing() -> None:
    s = started(1, lost_after=2.0)
    s.expect(2, now=100.0)
    assert sent(s, move(2), now=100.01) == [("move", 2)]
    assert s.due(now=102.0) is None


def test_a_newer_move_replaces_the_older_expectation() -> None:
    s = started(1, lost_after=2.0)
    s.expect(2, now=100.0)
    s.expect(3, now=101.0)
    assert s.wake_at() == pytest.approx(103.0)
    assert s.due(now=102.0) is None
    sent(s, move(2), now=102.5)
    assert s.due(now=103.0) == "the event of seq 3 never came"


def test_a_move_already_seen_sets_no_expectation() -> None:
    s = started(3)
    s.expect(3, now=0.0)  # e.g. its event overtook the service's answer
    assert s.wake_at() is None


def test_the_earliest_deadline_is_the_next_wake() -> None:
    s = started(1, reorder_wait=0.2, lost_after=2.0)
    s.expect(2, now=0.0)
    sent(s, move(3), now=1.0)
    assert s.wake_at() == pytest.approx(1.2)
    assert s.due(now=1.2) == "seq 3 after 1"
    assert s.wake_at() == pytest.approx(2.0)


@given(st.integers(min_value=1, max_value=30), st.randoms(use_true_random=False))
def test_any_arrival_order_without_loss_goes_out_in_seq_order_once(
    count: int, rng: random.Random
) -> None:
    """Every move and the final `ended`, delivered in any order (some twice), leave exactly
    once each, in seq order, with `ended` last, and no re-read is ever needed."""
    s = started(0)
    published = [move(seq) for seq in range(1, count + 1)] + [ended(count)]
    arrivals = published + rng.sample(published, k=min(3, len(published)))
    rng.shuffle(arrivals)
    out: list[tuple[str, int]] = []
    for event in arrivals:
        out += sent(s, event)
    assert out == [("move", seq) for seq in range(1, count + 1)] + [("ended", count)]
    assert s.due(now=1e9) is None


def test_a_race_ended_event_has_its_own_seq_and_closes_the_stream() -> None:
    s = Sequencer(ended_shares_seq=False)
    s.restart(seq=4, ended=False)
    assert sent(s, ended(4)) == []  # a duplicate of what the state already holds
    assert sent(s, ended(6)) == []  # held: 5 is missing
    assert sent(s, move(5)) == [("move", 5), ("ended", 6)]
    assert s.ended and sent(s, move(7)) == []


def test_a_game_ended_event_shares_the_seq_of_the_move_that_ended_it() -> None:
    s = started(3)
    assert sent(s, move(4)) == [("move", 4)]
    assert sent(s, ended(4)) == [("ended", 4)]
    assert s.ended
