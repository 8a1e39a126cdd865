"""The web app's scans: upload a pile to a batch, review the boxes the reader left, spot-check a sheet.

The review page goes step by step through the crops that need a look, each beside its
expected value (true, or carried from the student's own cells as confirmed so far); Enter
takes the expected value, typing says what is written, `b` says blank. Every answer saves the
sheet again, so the class page is current throughout.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from generator.app.assigning import assign_page, sheet_named, unidentified_pages
from generator.app.classroom import grade_sheet
from generator.app.errors import AttnsheetError
from generator.app.scans import (
    box_value,
    check_pile,
    confirm,
    new_run,
    page_pictures,
    review_items,
    run_file,
    run_summary,
    scan_answers,
    scanned_sheets,
    sheet_geometry,
)
from generator.app.store import NotFound
from generator.web.pages import Pages

MAX_SCAN_FILES = 100
"""Files in one upload (a copier's PDF is one; a teacher's phone photos, a few dozen)."""
SCAN_SUFFIXES = (".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
COPY_CHUNK = 1 << 20
"""Bytes of an upload held at once while it is kept."""


class Review(Pages):
    """Routes for a batch's scans (the app's store and render lock are set by its subclass)."""

    async def upload_scans(self, request: Request) -> Response:
        """Read an upload of scans into the batch: its sheets saved, its review waiting."""
        data = await request.form(max_files=MAX_SCAN_FILES, max_fields=6)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        batch = self.store.batch(request.path_params["batch_id"])
        uploads = [f for f in data.getlist("scans") if hasattr(f, "read")]
        if not uploads:
            raise AttnsheetError("choose the scans to upload: PDF, PNG, JPEG or TIFF files")
        run = new_run(batch)
        try:
            (run / "uploads").mkdir()
            paths = []
            for n, upload in enumerate(uploads, start=1):
                suffix = Path(str(upload.filename or "")).suffix.lower()
                if suffix not in SCAN_SUFFIXES:
                    raise AttnsheetError(f"{str(upload.filename)[:60]!r} is not a PDF, PNG, JPEG or TIFF file")
                path = run / "uploads" / f"{n:03d}{suffix}"  # the name is ours: the upload's is only shown
                with path.open("wb") as kept:  # a slice at a time: an upload never sits in memory whole
                    while chunk := await upload.read(COPY_CHUNK):
                        kept.write(chunk)
                paths.append(path)
            # A pile beyond the server's limits is refused now, in one line, before a page is read.
            await self.off_loop(check_pile, paths, self.scan_pages)
            replace_typed = str(data.get("replace", "")) in ("on", "true", "1")
            teacher = getattr(request.state, "teacher", None)
            # Read as a job: the upload is answered at once, the page shows how far the reading has
            # got, and a server stopped meanwhile reads the pile again when it starts.
            await self.off_db(
                self.store.submit,
                "scan",
                {
                    "batch": batch.id,
                    "run": run.name,
                    "uploads": [p.name for p in paths],
                    "replace": replace_typed,
                    "max_pages": self.scan_pages,
                },
                teacher.id if teacher else None,
                batch.id,
            )
        except BaseException:
            shutil.rmtree(run, ignore_errors=True)  # a failed upload leaves no run behind
            raise
        return RedirectResponse(f"/batches/{batch.id}/review?run={run.name}", status_code=303)

    async def review(self, request: Request) -> Response:
        batch = self.store.batch(request.path_params["batch_id"])
        job = await self.off_db(self._reading, batch, request.query_params.get("run", ""))
        if job is not None:  # the pile is still being read: how far it has got
            access = await self.off_db(self.store.access, batch, self.teacher(request))
            return self.page(
                request,
                "job.html",
                500 if job.state == "failed" else 200,
                lang=self.language(request, batch),
                job=job,
                title=batch.id,
                back=f"/batches/{batch.id}",
                may_cancel=access in ("own", "write"),
            )
        items = await self.off_loop(review_items, self.store, batch)
        unidentified = await self.off_loop(unidentified_pages, batch, self.store)
        summary = run_summary(batch, request.query_params.get("run", ""))
        steps: list[tuple[str, list]] = []
        for item in items:
            if not steps or steps[-1][0] != item.label:
                steps.append((item.label, []))
            steps[-1][1].append(item)
        return self.page(
            request,
            "review.html",
            lang=self.language(request, batch),
            batch=batch,
            steps=steps,
            count=len(items),
            summary=summary,
            scanned=bool(scanned_sheets(batch) or unidentified),
            unidentified=unidentified,
        )

    async def assign(self, request: Request) -> Response:
        """A page the scan could not identify said to be a student's: the pile read again with it."""
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        batch = self.store.batch(request.path_params["batch_id"])
        try:
            page, sheet_page = int(str(data.get("page", ""))), int(str(data.get("sheet_page", "1")) or 1)
        except ValueError:
            raise AttnsheetError("the page is a whole number (1 for the sheet's first page)") from None
        index = sheet_named(batch, str(data.get("sheet", "")))
        teacher = getattr(request.state, "teacher", None)
        run = await self.off_db(
            assign_page,
            self.store,
            batch,
            request.path_params["run"],
            str(data.get("file", "")),
            page,
            index,
            sheet_page,
            teacher.id if teacher else None,
        )
        return RedirectResponse(f"/batches/{batch.id}/review?run={run}", status_code=303)

    def _reading(self, batch, run: str):
        """The job reading the pile of `run`, while it is not done (or when it failed)."""
        for job in reversed(self.store.jobs_of(batch.id, "scan")):
            if job.run == run:
                return None if job.state == "done" else job
        return None

    async def review_api(self, request: Request) -> Response:
        """One box confirmed: the sheet's expected values now, for the boxes after it."""
        self._check_csrf(request)
        batch = self.store.batch(request.path_params["batch_id"])
        try:
            value = json.loads(await request.body())
            key, text = str(value["key"]), str(value["value"])
            was = None if value.get("was") is None else str(value["was"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise AttnsheetError('expected {"key": …, "value": …}') from None
        graded, expected = await self.off_db(confirm, self.store, batch, key, text, was)
        return JSONResponse(
            {
                "index": key.split(":")[0],
                "expected": expected,
                "points": graded.grade["points"],
                "total": graded.grade["total"],
            }
        )

    async def scan_file(self, request: Request) -> Response:
        batch = self.store.batch(request.path_params["batch_id"])
        p = request.path_params
        path = run_file(batch, p["run"], p["kind"], p["name"])
        return FileResponse(path, media_type="image/png" if path.suffix == ".png" else "image/jpeg")

    async def scanned_sheet(self, request: Request) -> Response:
        """A sheet's scan with each box's verdict on it, for a spot check."""
        batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
        kept = scan_answers(self.store, batch, sheet)
        pictures = page_pictures(batch, sheet["code"])
        if kept is None or not pictures:
            raise NotFound("this sheet has no scan")
        answers = kept[1]
        graded = grade_sheet(sheet, answers, batch.trivial)
        pages = await self.off_loop(sheet_geometry, batch, sheet)
        marks = []
        for page, (run, name) in zip(pages, pictures):
            boxes = []
            for b in page.boxes:
                # A box still in review is null in the saved answers (a blank one is ""): not "blank".
                pending = box_value(answers, b.head, b.step, b.row, b.col) is None
                verdict = "review" if pending else box_value(graded.grade["cells"], b.head, b.step, b.row, b.col)
                boxes.append(
                    {
                        "x": 100 * b.x / page.width,
                        "y": 100 * b.y / page.height,
                        "w": 100 * b.w / page.width,
                        "h": 100 * b.h / page.height,
                        "verdict": verdict,
                    }
                )
            marks.append(
                {
                    "src": f"/batches/{batch.id}/scans/{run}/pages/{name}",
                    "boxes": boxes,
                    "ratio": 100 * page.height / page.width,
                }
            )
        return self.page(
            request,
            "scanned.html",
            lang=self.language(request, batch),
            batch=batch,
            sheet=sheet,
            pages=marks,
            grade=graded.grade,
        )
