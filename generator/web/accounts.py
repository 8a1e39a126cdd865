"""Teachers' accounts in the web app: sign in and out, the first admin, the teachers' page, sharing a class.

Which teacher a request is from is found once, by the guard (web/guard), from the session cookie;
the routes here only parse, call the store's accounts (app/accounts) and report. Every route of
a batch states what it needs (read, write or own) and is refused before it runs: a class that is
neither the teacher's nor shared with them is "no such batch", as if it did not exist.
"""

from __future__ import annotations

from typing import Optional

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from generator.app.accounts import DEVICE_FOR, SESSION_FOR, SIGN_IN_RATE, AccountError, Teacher
from generator.app.store import NotFound, Store
from generator.web.guard import local_request, safe_next
from generator.web.pages import SESSION_COOKIE, Pages

DEVICE_COOKIE = "attnsheet_device"
"""A browser a teacher has signed in from (its tries are counted apart from strangers')."""


class Signing(Pages):
    """Sign-in, sign-out, the first-run page, the teachers' page and a class's shares."""

    store: Store

    def teacher(self, request: Request) -> Optional[Teacher]:
        """The signed-in teacher (None with accounts off: the server's one teacher)."""
        return getattr(request.state, "teacher", None)

    async def allow(self, request: Request, need: str) -> str:
        """What the request's teacher may do with its batch, if at least `need` (read, write, own):
        a class not theirs nor shared is not found; one shared to read is not theirs to change."""
        teacher = self.teacher(request)
        try:
            batch = await self.off_db(self.store.batch, request.path_params["batch_id"])
        except NotFound:  # a batch still being made is its maker's alone
            job = await self.off_db(self.store.batch_job, request.path_params["batch_id"])
            if job is None or job.kind != "batch" or (teacher is not None and job.owner != teacher.id):
                raise
            return "own"
        access = await self.off_db(self.store.access, batch, teacher)
        if access is None:
            raise NotFound("no such batch")
        if need == "write" and access == "read":
            raise PermissionError("this class is shared with you to read only: its owner can let you change it")
        if need == "own" and access != "own":
            raise PermissionError("only the class's owner shares it")
        return access

    # --- sign in and out -------------------------------------------------------------------------

    async def sign_in(self, request: Request) -> Response:
        _ = self.words_for(request)
        target = safe_next(request.query_params.get("next", "/"))
        if request.method == "GET":
            return await self._sign_in_page(request, target, "")
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            return await self._sign_in_page(request, target, _("The form was stale: sign in again."), 403)
        name, password = str(data.get("name", ""))[:80].strip(), str(data.get("password", ""))
        target = safe_next(str(data.get("next", "/")))
        address = request.client.host if request.client else "?"
        # A browser the teacher signed in from before (its device cookie, signed for this name) has
        # tries of its own: others failing on the name lock out only browsers never seen (OWASP).
        device = self.store.device_of(request.cookies.get(DEVICE_COOKIE, ""), name)
        who = f"signin-device:{device}" if device else f"signin-name:{name.lower()}"
        within = await self.off_db(
            lambda: (
                self.store.hit(who, SIGN_IN_RATE[0]) and self.store.hit(f"signin-address:{address}", SIGN_IN_RATE[1])
            )
        )
        if not within:
            return await self._sign_in_page(
                request, target, _("Too many tries: wait a minute, then sign in again."), 429
            )
        cookie = await self.off_loop(self.store.sign_in, name, password)
        if cookie is None:
            return await self._sign_in_page(
                request, target, _("That name and password open no account (or the account is disabled)."), 400
            )
        response = self._signed_in(request, target, cookie)
        if device is None:
            response.set_cookie(
                DEVICE_COOKIE,
                self.store.device_cookie(name),
                max_age=DEVICE_FOR,
                path="/signin",
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    async def _sign_in_page(self, request: Request, target: str, error: str, status: int = 200) -> Response:
        first = not await self.off_db(self.store.accounts_on)
        return self.page(
            request, "signin.html", status, next=target, error=error, first=first, local=local_request(request)
        )

    def _signed_in(self, request: Request, target: str, cookie: str) -> Response:
        """Go on to `target` with the new session's cookie (HttpOnly, SameSite, Secure over HTTPS, expiring)."""
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            cookie,
            max_age=SESSION_FOR,
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    async def sign_out(self, request: Request) -> Response:
        data = await request.form(max_files=0, max_fields=4)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale: reload the page")
        await self.off_db(self.store.sign_out, request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/signin", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    async def setup(self, request: Request) -> Response:
        """The first run: the first teacher (an admin) made from a browser on the server's own machine."""
        if await self.off_db(self.store.accounts_on):
            raise NotFound("accounts are set up: sign in")
        if not local_request(request):
            raise PermissionError(
                "the first account is made on the server's own machine (http://127.0.0.1:PORT/setup) "
                "or with `attnsheet user add NAME --admin`"
            )
        _ = self.words_for(request)
        if request.method == "GET":
            return self.page(request, "setup.html", error="", given="")
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale: reload the page")
        name, password = str(data.get("name", ""))[:80].strip(), str(data.get("password", ""))
        if password != str(data.get("again", "")):
            return self.page(request, "setup.html", 400, error=_("The two passwords differ."), given=name)
        try:
            await self.off_loop(self.store.add_teacher, name, password, True, True)
        except AccountError as error:
            return self.page(request, "setup.html", 400, error=str(error), given=name)
        cookie = await self.off_loop(self.store.sign_in, name, password)
        return self._signed_in(request, "/", cookie)

    # --- the teachers' page ----------------------------------------------------------------------

    async def account(self, request: Request) -> Response:
        """The teacher's own account (a new password), and for an admin every teacher: add, disable, enable."""
        teacher = self._signed(request)
        said, error, status = "", "", 200
        _ = self.words_for(request)
        if request.method == "POST":
            data = await request.form(max_files=0, max_fields=16)
            if not self._csrf_ok(str(data.get("csrf", "")), request):
                raise PermissionError("the form is stale: reload the page")
            try:
                said = await self._account_change(teacher, {k: str(v) for k, v in data.items()}, _)
            except AccountError as error_:
                error, status = str(error_), 400
            if said == "signed out":  # their own password changed: every session of theirs ended
                return RedirectResponse("/signin", status_code=303)
        teachers = await self.off_db(self.store.teachers) if teacher.admin else []
        return self.page(request, "account.html", status, me=teacher, teachers=teachers, said=said, error=error)

    async def _account_change(self, teacher: Teacher, data: dict, _) -> str:
        """One change the account page asked for; what to say of it."""
        action = data.get("action", "")
        if action == "password":
            if await self.off_loop(self.store.sign_in, teacher.name, data.get("current", "")) is None:
                raise AccountError(_("The current password is not right."))
            if data.get("password", "") != data.get("again", ""):
                raise AccountError(_("The two passwords differ."))
            await self.off_loop(self.store.set_password, teacher.name, data.get("password", ""))
            return "signed out"
        if not teacher.admin:
            raise PermissionError("only an admin adds, disables and enables teachers")
        if action == "add":
            added = await self.off_loop(
                self.store.add_teacher,
                data.get("name", "").strip(),
                data.get("password", ""),
                data.get("admin", "") in ("on", "1", "true"),
            )
            return _("Added %(name)s: they sign in with the password you gave them.") % {"name": added.name}
        if action in ("disable", "enable"):
            changed = await self.off_db(self.store.set_disabled, data.get("name", ""), action == "disable")
            return (
                _("%(name)s is disabled: signed out everywhere.")
                if changed.disabled
                else _("%(name)s may sign in again.")
            ) % {"name": changed.name}
        raise AccountError("no such change")

    def _signed(self, request: Request) -> Teacher:
        teacher = self.teacher(request)
        if teacher is None:
            raise NotFound(
                "this server has no accounts: make the first at /setup on its own machine, "
                "or with `attnsheet user add NAME --admin`"
            )
        return teacher

    # --- a class's shares ------------------------------------------------------------------------

    async def share(self, request: Request) -> Response:
        """Share the batch with a colleague, to read or write, or no longer (its owner only)."""
        self._signed(request)
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale: reload the page")
        batch = await self.off_db(self.store.batch, request.path_params["batch_id"])
        await self.off_db(self.store.share, batch, str(data.get("name", ""))[:80].strip(), str(data.get("mode", "")))
        return RedirectResponse(f"/batches/{batch.id}#shares", status_code=303)

    def words_for(self, request: Request):
        from generator.app.screens import translations

        return translations(self.language(request)).gettext


__all__ = ["Signing"]
