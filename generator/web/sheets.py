"""A sheet of a class for its teacher: its entry page (what the paper shows, typed and graded as it is typed), and the photo its student handed in."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from generator.app.classroom import grade_sheet
from generator.app.photos import handed_photos, photo_path
from generator.app.screens import sheet_form
from generator.app.store import Store
from generator.web.pages import Pages
from generator.web.practice import shapes_of


class Sheets(Pages):
    """A sheet's entry page, its grading as it is typed, and its student's photo (the store is set by the app)."""

    store: Store

    async def entry(self, request: Request) -> Response:
        batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
        lang = self.language(request, batch)
        entry_form = sheet_form(sheet, lang)
        base = f"/api/batches/{batch.id}/sheets/{sheet['index']}"
        rev, answers = await self.off_db(self.store.current, batch, sheet)
        history = await self.off_db(self.store.history, batch, sheet)
        writes = self.may_change(request, batch)
        shown, from_photo = handed_photos(batch, sheet)
        return self.page(
            request,
            "entry.html",
            lang=lang,
            batch=batch,
            sheet=sheet,
            form=entry_form,
            shapes_json=shapes_of(entry_form),
            saved=json.dumps(answers),
            revision=rev or "",
            history=history,
            grade_url=f"{base}/grade",
            save_url=f"{base}/save" if writes else "",
            read_only=not writes,
            photos=shown,
            from_photo=from_photo,
            differs_json=json.dumps(
                [[d["head"], d["step"], d["i"], d["j"]] for entry in shown for d in entry["differs"]]
            ),
            asked_json=json.dumps([[d["head"], d["step"], d["i"], d["j"]] for entry in shown for d in entry["asked"]]),
        )

    async def batch_photo(self, request: Request) -> Response:
        """A photo a student handed in, as they took it (re-encoded: no camera metadata)."""
        batch = self.store.batch(request.path_params["batch_id"])
        path = photo_path(batch, request.path_params["name"])
        return FileResponse(path, media_type="image/jpeg", content_disposition_type="inline")

    async def grade_api(self, request: Request) -> Response:
        """Grade what is typed so far: the verdict of every cell, the points, and (the teacher
        holds the key) each cell's expected value given the cells entered so far."""
        self._check_csrf(request)
        batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
        graded = grade_sheet(sheet, await self._json(request), batch.trivial)
        return JSONResponse({**graded.grade, "expected": graded.expected})
