"""What the web app shows, as the app layer offers it: a sheet as a form, its explanations and projector frames, its HTML, pages' words."""

from __future__ import annotations

from generator.core.formats import problem_from_json
from generator.core.grade import step_label
from generator.core.grades import grade_to_json
from generator.core.registry import grade, solve
from generator.output.html import document_html, environment, report_html, stylesheet_text
from generator.sheet.assets import templates_dir
from generator.sheet.entry import form
from generator.sheet.explain import explanations
from generator.sheet.i18n import languages, translations
from generator.sheet.model import Settings
from generator.sheet.present import frames, frames_json
from generator.sheet.sheets import sheet_view
from generator.sheet.style import TONES


def sheet_form(sheet: dict, lang: str):
    """A stored sheet's entry form: its grids, in the sheet's layout, in `lang`."""
    problem = problem_from_json(sheet["problem"])
    return form(problem, solve(problem), lang)


def document_pdf(views, settings: Settings) -> bytes:
    """Sheets as one PDF (pikepdf, and maybe WeasyPrint, load only when a PDF is asked for)."""
    from generator.output.documents import document

    data, _ = document(views, settings)
    return data


__all__ = [
    "Settings",
    "TONES",
    "document_html",
    "document_pdf",
    "environment",
    "explanations",
    "form",
    "frames",
    "frames_json",
    "grade",
    "grade_to_json",
    "languages",
    "problem_from_json",
    "report_html",
    "sheet_form",
    "sheet_view",
    "solve",
    "step_label",
    "stylesheet_text",
    "templates_dir",
    "translations",
]
