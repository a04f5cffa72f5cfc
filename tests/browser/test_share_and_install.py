"""Links people share and the installed app in Chromium: the service worker
takes the whole site, shows the offline page when the network is gone, and never answers the
API from a cache; a game page carries its card, whose picture is served."""

from __future__ import annotations

from typing import Any

from tests.support.browser import screenshot, start_game


def test_offline_page_and_no_cached_api(desktop: Any) -> None:
    page = desktop.new_page()
    game_id = start_game(page, "beginner")
    image = page.locator('meta[property="og:image"]').get_attribute("content")
    assert image and image.endswith(f"/games/{game_id}/preview.png")
    assert page.locator('link[rel="manifest"]').count() == 1
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope.endswith("/")
    page.reload()  # the worker now controls the page
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    assert (
        page.evaluate("fetch('/api/games/' + location.pathname.split('/')[2]).then(r => r.status)")
        == 200
    )
    preview = page.request.get(image)
    assert preview.status == 200 and preview.headers["content-type"] == "image/png"
    desktop.set_offline(True)
    page.goto("/leaderboards")
    page.wait_for_selector("#offline")
    assert "offline" in page.locator("h1").inner_text().lower()
    screenshot(page, "offline-page")
    api = page.evaluate(f"fetch('/api/games/{game_id}').then(() => 'answered', () => 'failed')")
    assert api == "failed"  # not answered from any cache
    desktop.set_offline(False)
    page.goto(f"/games/{game_id}/preview.png")
    screenshot(page, "share-preview-running")
