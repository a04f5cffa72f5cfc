"""Sign in with Démineur: a program on a player's machine signs the player in and shows their
profile, without ever seeing their password (the server's docs/API-CLIENTS.md).

Register the app once on the site (Account, "Register an app of your own") with the redirect
URI `http://127.0.0.1/callback` (any port matches it), then run:

    python clients/python/examples/oauth_app.py --site http://127.0.0.1:8000 --client-id <id>

The browser opens the site's consent page; once the player allows it, the site sends the
browser back to this program's one-request server on 127.0.0.1, which checks `state`, trades
the code and its PKCE verifier for tokens, and calls `GET /api/me` with the access token.
Only the standard library and httpx (the client's own dependency)."""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx


class _Callback(BaseHTTPRequestHandler):
    """Takes the one redirect the site sends back, at /callback."""

    server: _CallbackServer

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != "/callback":
            self.send_error(404)
            return
        self.server.answer = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"Done: you may close this window.")
        self.server.arrived.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _CallbackServer(HTTPServer):
    answer: dict[str, str]
    arrived: threading.Event


class SignIn:
    """One sign-in: the URL to open, then `tokens(wait_for_code())`."""

    def __init__(self, site: str, client_id: str, scope: str = "account:read") -> None:
        self.site = site.rstrip("/")
        self.client_id = client_id
        self.server = _CallbackServer(("127.0.0.1", 0), _Callback)
        self.server.arrived = threading.Event()
        self.redirect_uri = f"http://127.0.0.1:{self.server.server_port}/callback"
        self.state = secrets.token_urlsafe(16)
        self.verifier = secrets.token_urlsafe(64)  # PKCE (RFC 7636): only its hash goes out
        challenge = hashlib.sha256(self.verifier.encode()).digest()
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": self.redirect_uri,
            "scope": scope,
            "state": self.state,
            "code_challenge": base64.urlsafe_b64encode(challenge).rstrip(b"=").decode(),
            "code_challenge_method": "S256",
        }
        self.url = f"{self.site}/oauth/authorize/?{urlencode(query)}"

    def wait_for_code(self, timeout: float = 300) -> str:
        """The code the site sent back, once the player answered (or ValueError)."""
        serving = threading.Thread(target=self.server.serve_forever, daemon=True)
        serving.start()
        try:
            if not self.server.arrived.wait(timeout):
                raise TimeoutError("no answer from the browser")
        finally:
            self.server.shutdown()
            self.server.server_close()
        answer = self.server.answer
        if answer.get("state") != self.state:  # not the answer to our request
            raise ValueError("the answer's state is not ours")
        if "error" in answer:
            raise ValueError(f"not allowed: {answer['error']}")
        return answer["code"]

    def tokens(self, code: str) -> dict[str, Any]:
        """`access_token`, `refresh_token`, `expires_in`, `scope` for the code."""
        answer = httpx.post(
            f"{self.site}/oauth/token/",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": self.redirect_uri,
                "client_id": self.client_id,
                "code_verifier": self.verifier,
            },
        )
        answer.raise_for_status()
        tokens: dict[str, Any] = answer.json()
        return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="http://127.0.0.1:8000")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--scope", default="account:read")
    args = parser.parse_args()
    flow = SignIn(args.site, args.client_id, args.scope)
    print(f"Opening {flow.url}")
    webbrowser.open(flow.url)
    tokens = flow.tokens(flow.wait_for_code())
    me = httpx.get(
        f"{flow.site}/api/me", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    me.raise_for_status()
    print(json.dumps(me.json(), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
