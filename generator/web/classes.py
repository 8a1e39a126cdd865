"""The class page's routes: the gradebook, the policy (feedback, attempts, close), files, decisions on conflicts."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from generator.app.errors import AttnsheetError
from generator.app.grading import (
    SCALES,
    SCHOOL_SYSTEMS,
    GradebookError,
    student_of,
    class_gradebook,
    graded_pdf,
    report_pdf,
    step_titles,
    titled_report,
)
from generator.app.screens import Settings, report_html, step_label, translations
from generator.app.store import ATTEMPTS, TRIVIAL, NotFound, Store
from generator.web.pages import Pages


class Classes(Pages):
    """A batch's class: what was saved and handed in, graded (the store and render lock are set by the app)."""

    store: Store

    async def class_page(self, request: Request) -> Response:
        """The gradebook of the sheets saved so far, the item analysis, and the class's files."""
        batch = self.store.batch(request.path_params["batch_id"])
        graded = await self.off_loop(self.store.graded, batch)
        handins = await self.off_db(self.store.handins, batch)
        conflicts = await self.off_db(self.store.conflicts, batch)
        names = {int(s["index"]): str(s["student"].get("name", "")) for s in batch.sheets}
        regrading = [j for j in await self.off_db(self.store.jobs_of, batch.id, "regrade") if not j.finished]
        titles = await self.off_loop(step_titles, graded, self.language(request, batch))
        return self.page(
            request,
            "class.html",
            lang=self.language(request, batch),
            batch=batch,
            graded=graded,
            read_only=not self.may_change(request, batch),
            regrading=regrading[-1] if regrading else None,
            handins=handins,
            conflicts=conflicts,
            names=names,
            attempts=ATTEMPTS,
            trivial=TRIVIAL,
            systems=("attnsheet",) + SCHOOL_SYSTEMS,
            scales=SCALES,
            emails=all("@" in str(s["student"].get("id", "")) for s in batch.sheets),
            labels=[titles.get(label, label) for label, _, _ in _labels(graded)],
        )

    async def policy(self, request: Request) -> Response:
        """What students see after handing in, and when; release the feedback; close or open hand-ins."""
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        batch = self.store.batch(request.path_params["batch_id"])
        action = str(data.get("action", ""))
        attempts = str(data.get("attempts") or batch.attempts)
        if not attempts.isdigit() or len(attempts) > 3:
            raise AttnsheetError(f"hand-ins with feedback: a whole number from {ATTEMPTS[0]} to {ATTEMPTS[1]}")
        changes = {
            "feedback": str(data.get("feedback") or batch.feedback),
            "release": str(data.get("release") or batch.release),
            "attempts": int(attempts),
            "trivial": str(data.get("trivial") or batch.trivial),
        }
        if action in ("release", "hold"):
            changes["released"] = action == "release"
        if action in ("close", "open"):
            changes["closed"] = action == "close"
        await self.off_db(lambda: self.store.set_policy(batch, **changes))
        if changes["trivial"] != batch.trivial:  # the saved grades follow the new rule, as a job
            teacher = getattr(request.state, "teacher", None)
            await self.off_db(
                self.store.submit, "regrade", {"batch": batch.id}, teacher.id if teacher else None, batch.id
            )
        return RedirectResponse(f"/batches/{batch.id}/class", status_code=303)

    async def status(self, request: Request) -> Response:
        """How many sheets are saved and handed in, and when last: the class page reloads when it changes."""
        batch = self.store.batch(request.path_params["batch_id"])
        saved, handins, conflicts = await self.off_db(
            lambda: (self.store.saved(batch), self.store.handins(batch), self.store.conflicts(batch))
        )
        return JSONResponse(
            {
                "saved": len(saved),
                "handins": sum(handins.values()),
                "conflicts": len(conflicts),
                "points": sum(g["points"] for g in saved.values()),
            }
        )

    async def class_file(self, request: Request) -> Response:
        """gradebook.csv, the report (PDF or HTML) or a graded sheet, made from the saved answers."""
        batch = self.store.batch(request.path_params["batch_id"])
        graded = await self.off_loop(self.store.graded, batch)
        name = request.path_params["name"]
        settings = Settings(paper=batch.manifest["settings"]["paper"], lang=batch.manifest["settings"]["lang"])
        if name == "gradebook.csv" or (name.startswith("gradebook-") and name.endswith(".csv")):
            # Every sheet of the class, saved or missing, as the school system asked for imports it.
            system = (
                request.query_params.get("system", "attnsheet")
                if name == "gradebook.csv"
                else name[len("gradebook-") : -len(".csv")]
            )
            by_code = {g.grade.code: g.grade for g in graded}
            rows = [
                (
                    student_of(sheet["student"]),
                    sheet["code"],
                    by_code.get(sheet["code"]),
                )
                for sheet in batch.sheets
            ]
            title = batch.manifest["settings"].get("title") or batch.id
            try:
                text = class_gradebook(
                    rows,
                    system,
                    request.query_params.get("scale", "points"),
                    settings.lang,
                    title,
                    step_titles(graded, settings.lang),
                )
            except GradebookError as error:  # said on a page in the class's language, back to the class
                _ = translations(settings.lang).gettext
                message = _(error.words) % error.values if error.words else str(error)
                return self.page(
                    request,
                    "error.html",
                    400,
                    lang=settings.lang,
                    message=message,
                    back=(f"/batches/{batch.id}/class", _("Back to the class")),
                )
            shown = batch.file_name("gradebook.csv" if system == "attnsheet" else f"gradebook-{system}.csv")
            return Response(
                text, media_type="text/csv", headers={"content-disposition": f'attachment; filename="{shown}"'}
            )
        if not graded:
            raise NotFound("no sheet of this batch is saved yet")
        if name == "report.pdf":
            return Response(
                await self.off_loop(self._locked, report_pdf, graded, settings), media_type="application/pdf"
            )
        if name == "report.html":
            response = HTMLResponse(report_html(titled_report(graded, settings.lang), settings, "/preview/"))
            response.headers["x-frame"] = "report"  # framed by the class page, like the preview
            return response
        codes = {f"{int(sheet['index']):03d}.pdf": sheet["code"] for sheet in batch.sheets}
        chosen = [g for g in graded if codes.get(name) == g.grade.code]
        if not chosen:
            raise NotFound("no such file")
        return Response(
            await self.off_loop(self._locked, graded_pdf, chosen[0], settings), media_type="application/pdf"
        )

    def _conflicted(self, batch, sheet) -> int:
        """How many revisions of a sheet wait for the teacher's decision."""
        return sum(1 for r in self.store.history(batch, sheet) if r.state == "conflict")

    async def decide(self, request: Request) -> Response:
        """The teacher's decision on a revision kept beside a sheet's current one: take it, or leave it."""
        data = await request.form(max_files=0, max_fields=4)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        batch = self.store.batch(request.path_params["batch_id"])
        rev = str(request.path_params["rev"])
        if not rev.isdigit() or len(rev) > 18:
            raise NotFound("no such revision")
        await self.off_db(self.store.decide, batch, int(rev), str(data.get("action", "")) == "take")
        return RedirectResponse(f"/batches/{batch.id}/class", status_code=303)


def _labels(graded: list) -> list[tuple[str, int, int]]:
    """The gradebook's step columns, as the CSV has them."""
    if not graded:
        return []
    heads = max((s.head or 0 for s in graded[0].grade.steps), default=0)
    return [(step_label(s.head, s.step, heads), s.points, s.total) for s in graded[0].grade.steps]
