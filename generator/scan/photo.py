"""A phone's photo of a paper sheet as the scanner reads a page: decoded (JPEG, PNG, HEIC), upright, within limits, and what is wrong with one the scanner cannot use."""

from __future__ import annotations

import io

import cv2
import numpy as np

from generator.core.errors import AttnsheetError

MAX_PHOTO_BYTES = 20 * 1024 * 1024
"""The largest photo taken (a 12-megapixel JPEG is 3–6 MB; an iPhone's HEIC less)."""
MAX_PHOTO_PIXELS = 50_000_000
"""The most pixels a photo may declare, checked in its header before it is decoded."""
MIN_SIDE = 700
"""Fewer pixels across than this and a page's boxes are too small to read."""
LONG_SIDE = 3000
"""A photo is read at most this many pixels long (a page at about 250 dpi): more is only slower."""
TOO_DARK, BLURRED = 80.0, 12.0
"""A photo darker than this (the grey its brightest tenth reaches: the paper) or less sharp (its
Laplacian's spread, at reading size)."""


NOT_A_PICTURE = "this file is not a picture the reader knows: take a photo (JPEG, PNG or HEIC)"
"""What a file that is no picture gets, whenever that is found."""


class PhotoError(AttnsheetError):
    """A photo that cannot be used, said in one line of what to do: nothing of it is kept."""


def checked(content: bytes) -> None:
    """A photo's size and header checked before anything is decoded: PhotoError for a file that is
    no picture, too large or too small (what a student is told at once, before it is queued)."""
    from PIL import Image, UnidentifiedImageError
    import pillow_heif

    pillow_heif.register_heif_opener()
    if len(content) > MAX_PHOTO_BYTES:
        raise PhotoError(
            f"this photo is larger than {MAX_PHOTO_BYTES // (1024 * 1024)} MB: take it again at a lower resolution"
        )
    try:
        with Image.open(io.BytesIO(content)) as image:
            width, height = image.width, image.height
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise PhotoError(NOT_A_PICTURE) from None
    if width * height > MAX_PHOTO_PIXELS:
        raise PhotoError(
            f"this photo has more than {MAX_PHOTO_PIXELS // 1_000_000} megapixels: take it again at a lower resolution"
        )
    if min(width, height) < MIN_SIDE:
        raise PhotoError(
            "this photo is too small to read the boxes: take it again closer, the whole page filling the picture"
        )


def decoded(content: bytes) -> tuple[np.ndarray, np.ndarray]:
    """A photo's pixels, upright as the phone held it (its EXIF orientation), grey and in colour at
    reading size; PhotoError for a file that is no picture, too large or too small."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    checked(content)
    try:
        with Image.open(io.BytesIO(content)) as image:
            shrink = min(1.0, LONG_SIDE / max(image.size))
            if shrink < 1.0:  # a JPEG decoded at a half or a quarter where that is still the reading size: faster
                image.draft("RGB", (round(image.width * shrink), round(image.height * shrink)))
            upright = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise PhotoError(NOT_A_PICTURE) from None
    shrink = min(1.0, LONG_SIDE / max(upright.shape[:2]))
    if shrink < 1.0:  # averaged down (as a scanner's sensor would), a tenth of a Lanczos filter's time
        size = (round(upright.shape[1] * shrink), round(upright.shape[0] * shrink))
        upright = cv2.resize(upright, size, interpolation=cv2.INTER_AREA)
    colour = cv2.cvtColor(upright, cv2.COLOR_RGB2BGR)
    return cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), colour


def why_unread(grey: np.ndarray) -> str:
    """What to do about a photo in which no page of the sheet was found."""
    from generator.scan.locate import is_blank

    if too_dark(grey):
        return "this photo is too dark: take it again in more light"
    if is_blank(grey):
        return "this photo shows no sheet: photograph your worksheet, the whole page in the picture"
    if float(cv2.Laplacian(grey, cv2.CV_64F).var()) < BLURRED:
        return "this photo is blurred: hold the phone still and take it again"
    return "the sheet's four corner squares are not all in this photo: take it again with the whole page in it"


def jpeg(colour: np.ndarray) -> bytes:
    """A photo as it is kept: re-encoded JPEG, no camera metadata (where and when it was taken)."""
    return cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()


def too_dark(grey: np.ndarray) -> bool:
    """Whether even a photo's brightest tenth (where its paper is) is too dark to tell ink from paper."""
    return (
        float(np.percentile(grey[::4, ::4], 90)) < TOO_DARK
    )  # every fourth pixel each way: the same tenth, 20 times faster


def evened(grey: np.ndarray) -> np.ndarray:
    """A photo with its light made even: each pixel over the paper's own light around it (the page with
    its ink taken out, blurred), so a shadow across a third of the page or light falling off toward
    a corner leaves the marks, the QR code and the boxes as a scanner's even light would."""
    small = cv2.resize(grey, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    # The ink out by a closing (the lightest around, then the darkest of those), wider than the corner
    # marks: a shadow's edge stays where it is. The lightest alone spread the lit paper over the edge,
    # and the page divided by it kept a band there 40 grey levels dark that the reader took for a
    # digit (bench/photo_marks.py: the worst sheet of one kind 62 taps, now 37; boxes sure but misread 15, now 11).
    paper = cv2.GaussianBlur(cv2.morphologyEx(small, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8)), (0, 0), 3)
    paper = cv2.resize(np.maximum(paper, 1), (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    return cv2.divide(grey, paper, scale=235.0)  # rounded and held within 0..255 by OpenCV, in one pass
