"""What every request to the web app passes first: the access token, a capped body, strict security headers."""

from __future__ import annotations

import hmac
from typing import Optional

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

MAX_BODY = 1024 * 1024
"""Largest request body: a roster, a problem file or a sheet's answers is far smaller."""
STATIC = {"entry.js": "text/javascript", "home.js": "text/javascript", "present.js": "text/javascript",
          "web.css": "text/css", "favicon.svg": "image/svg+xml"}  # the only files under /static (templates/web/static)
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; "
       "connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
"""Scripts only from the app itself (no inline script); inline styles place the form's boxes;
frames only of the app's own preview."""
PREVIEW_CSP = ("default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src 'self'; "
               "frame-ancestors 'self'; base-uri 'none'; form-action 'none'")
"""The preview is the sheet's own HTML: its styles inline, its fonts from the app, no script."""


class Guard:
    """Every request: the access token (public hosts), a capped body, security headers."""

    def __init__(self, asgi, app) -> None:  # app: web.app.App, whose token it checks
        self.asgi, self.app = asgi, app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.asgi(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        if refusal is not None:
            await self._headers(refusal)(scope, receive, send)
            return

        # A token given once in the address (as the server prints it) is kept in a cookie.
        keep = self.app.token is not None and request.query_params.get("token") == self.app.token

        async def send_secured(message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"content-security-policy", b"x-frame")]
                framed = any(k.lower() == b"x-frame" for k, _ in message.get("headers", []))
                policy = PREVIEW_CSP if framed else CSP
                headers += [(b"content-security-policy", policy.encode()), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"),
                            (b"x-frame-options", b"SAMEORIGIN" if framed else b"DENY")]
                if keep:
                    headers.append((b"set-cookie", f"attnsheet_token={self.app.token}; HttpOnly; SameSite=Strict; "
                                                   "Path=/".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.asgi(scope, receive, send_secured)

    def _refusal(self, request: Request) -> Optional[Response]:
        if self.app.token is not None:
            supplied = (request.query_params.get("token") or request.cookies.get("attnsheet_token")
                        or request.headers.get("x-attnsheet-token") or "")
            if not hmac.compare_digest(supplied.encode(), self.app.token.encode()):
                return JSONResponse({"error": "this server needs its access token (printed when it started)"},
                                    status_code=401)
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            length = request.headers.get("content-length")
            if length is None or not length.isdigit():
                return JSONResponse({"error": "a request body needs its length"}, status_code=411)
            if int(length) > MAX_BODY:
                return JSONResponse({"error": f"too large: at most {MAX_BODY // 1024} KB"}, status_code=413)
        return None

    @staticmethod
    def _headers(response: Response) -> Response:
        response.headers["content-security-policy"] = CSP
        response.headers["x-content-type-options"] = "nosniff"
        return response
