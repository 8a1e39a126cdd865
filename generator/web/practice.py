"""The web app's open pages: practice sheets drawn on the spot and the projector."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from generator.app.store import NotFound, Store
from generator.core.answers import parse_answers_json
from generator.core.errors import AttnsheetError
from generator.core.formats import problem_from_json
from generator.core.grades import grade_to_json
from generator.core.kinds import grade, solve
from generator.core.student import Student
from generator.core.kinds import DEFAULT_KIND, KINDS
from generator.draw.choose import kind_options
from generator.draw.options import PRESET_NAMES
from generator.draw.rebuild import rebuild
from generator.draw.search import draw, fresh_seed
from generator.sheet.entry import form
from generator.sheet.explain import explanations
from generator.sheet.i18n import translations
from generator.sheet.present import frames, frames_json
from generator.web.pages import Pages


def shapes_of(sheet_form) -> str:
    """The entry form's grid shapes by head ("final" for the sheet's own), as the page's script reads them."""
    return json.dumps({("final" if h is None else str(h)): {step: list(shape) for step, shape in steps.items()}
                       for h, steps in sheet_form.shapes.items()})


class Practice(Pages):
    """Practice and the projector: pages anyone with a public code may open."""

    store: Store

    async def practice(self, request: Request) -> Response:
        """A fresh sheet to practise on: drawn now, opened by its code (so it can be shared)."""
        preset, kind = request.query_params.get("preset", "medium"), request.query_params.get("kind", DEFAULT_KIND)
        if preset not in PRESET_NAMES or kind not in KINDS:
            raise AttnsheetError(f"--preset: one of {', '.join(PRESET_NAMES)}; --kind: one of {', '.join(KINDS)}")
        options = kind_options(kind, preset=preset)
        code = draw(options, fresh_seed())[0].code
        return RedirectResponse(f"/practice/{code}", status_code=303)

    async def practice_sheet(self, request: Request) -> Response:
        problem = await self._practice_problem(request)
        lang = self.language(request)
        sheet_form = await self.off_loop(lambda: form(problem, solve(problem), lang))  # a big shape takes seconds
        return self.page(request, "entry.html", lang=lang, batch=None,
                         sheet={"index": "", "code": problem.code, "student": {}}, form=sheet_form,
                         shapes_json=shapes_of(sheet_form), saved="null",
                         grade_url=f"/api/practice/{problem.code}/grade", save_url="")

    async def present(self, request: Request) -> Response:
        """The projector: one sheet worked a cell at a time, a batch's or any public code's."""
        batch = None
        if "code" in request.path_params:
            problem, lang = await self._practice_problem(request), self.language(request)
        else:
            batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
            problem, lang = problem_from_json(sheet["problem"]), self.language(request, batch)
        solution, script, sheet_form = await self.off_loop(self._walk, problem, lang)
        start = translations(lang).gettext("%(count)s steps: press → to begin") % {"count": len(script)}
        return self.page(request, "present.html", lang=lang, batch=batch, code=problem.code or "",
                         form=sheet_form, frames=json.dumps(script), start=start)

    async def practice_grade(self, request: Request) -> Response:
        """The verdicts of what is typed on a practice sheet, and how each cell is computed."""
        self._check_csrf(request)
        problem = await self._practice_problem(request)
        value = {**await self._json(request), "format": "attnsheet/answers@1", "code": problem.code}
        (pending,) = parse_answers_json(json.dumps(value), "answers")
        result = grade(problem, pending.answers(problem, Student(), problem.code))
        return JSONResponse({**grade_to_json(result),
                             "explain": explanations(problem, result, self.language(request))})

    @staticmethod
    def _walk(problem, lang: str) -> tuple:
        """The solution, the projector's frames and the form of `problem` (long for a big shape)."""
        solution = solve(problem)
        return solution, frames_json(frames(problem, solution, lang)), form(problem, solution, lang)

    async def _practice_problem(self, request: Request):
        """The problem of the path's public code, drawn again off the event loop (a big shape's draw takes seconds)."""
        try:
            return await self.off_loop(rebuild, request.path_params["code"])
        except AttnsheetError:
            raise NotFound("not a sheet code this app can draw") from None
