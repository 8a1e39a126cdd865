"""A worksheet's blank print, as the scanner takes it out of each page read: what is print, not ink."""

from __future__ import annotations

import numpy as np

from generator.core.student import Student
from generator.scan.locate import PX_PT
from generator.sheet.model import Settings


def blank_pages(problem, solution, settings: Settings, student: Student = Student()) -> list[np.ndarray]:
    """The worksheet's pages as printed without a name, grey, at PX_PT (as laid out: a large-print
    page at its own size, not its paper's): what is print, not ink. `student`: whose print size."""
    import pypdfium2 as pdfium

    from generator.output.direct import document
    from generator.output.pdf import renderer
    from generator.sheet.sheets import sheet_view

    view = sheet_view(problem, solution, Student(print_size=student.print_size), settings, False)
    made = document([view], settings)
    data = made[0] if made is not None else renderer().pdf([renderer().sheet(view, settings)])
    pdf = pdfium.PdfDocument(data)
    try:
        out = []
        for i in range(len(pdf)):
            bitmap = pdf[i].render(scale=PX_PT, grayscale=True)
            out.append(np.array(bitmap.to_numpy(), copy=True))
        return out
    finally:
        pdf.close()
