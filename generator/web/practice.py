"""The web app's open pages: practice sheets drawn on the spot and the projector."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from generator.app.store import NotFound, Store
from generator.app.errors import AttnsheetError
from generator.app.practice import practice_code, practised, public_problem, sheet_form, walk
from generator.app.screens import problem_from_json, translations
from generator.web.pages import Pages


def shapes_of(sheet_form) -> str:
    """The entry form's grid shapes by head ("final" for the sheet's own), as the page's script reads them."""
    return json.dumps(
        {
            ("final" if h is None else str(h)): {step: list(shape) for step, shape in steps.items()}
            for h, steps in sheet_form.shapes.items()
        }
    )


class Practice(Pages):
    """Practice and the projector: pages anyone with a public code may open."""

    store: Store

    async def practice(self, request: Request) -> Response:
        """A fresh sheet to practise on: drawn now, opened by its code (so it can be shared)."""
        kind = request.query_params.get("kind")
        code = practice_code(**({"kind": kind} if kind else {}), preset=request.query_params.get("preset", "medium"))
        return RedirectResponse(f"/practice/{code}", status_code=303)

    async def practice_sheet(self, request: Request) -> Response:
        problem = await self._practice_problem(request)
        lang = self.language(request)
        shown = await self.off_loop(sheet_form, problem, lang)  # a big shape takes seconds
        return self.page(
            request,
            "entry.html",
            lang=lang,
            batch=None,
            sheet={"index": "", "code": problem.code, "student": {}},
            form=shown,
            shapes_json=shapes_of(shown),
            saved="null",
            grade_url=f"/api/practice/{problem.code}/grade",
            save_url="",
        )

    async def present(self, request: Request) -> Response:
        """The projector: one sheet worked a cell at a time, a batch's or any public code's."""
        batch = None
        if "code" in request.path_params:
            problem, lang = await self._practice_problem(request), self.language(request)
        else:
            batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
            problem, lang = problem_from_json(sheet["problem"]), self.language(request, batch)
        script, shown = await self.off_loop(walk, problem, lang)
        start = translations(lang).gettext("%(count)s steps: press → to begin") % {"count": len(script)}
        return self.page(
            request,
            "present.html",
            lang=lang,
            batch=batch,
            code=problem.code or "",
            form=shown,
            frames=json.dumps(script),
            start=start,
        )

    async def practice_grade(self, request: Request) -> Response:
        """The verdicts of what is typed on a practice sheet, and how each cell is computed."""
        self._check_csrf(request)
        problem = await self._practice_problem(request)
        return JSONResponse(practised(problem, await self._json(request), self.language(request)))

    async def _practice_problem(self, request: Request):
        """The problem of the path's public code, drawn again off the event loop (a big shape's draw takes seconds)."""
        try:
            return await self.off_loop(public_problem, request.path_params["code"])
        except AttnsheetError:
            raise NotFound("not a sheet code this app can draw") from None
