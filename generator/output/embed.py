"""Font subsets embedded in a PDF through pikepdf: the panel font and the prose font, as Type 0
fonts with Identity-H encoding (content streams write two-byte glyph ids)."""

from __future__ import annotations

import pikepdf

from generator.output.monofont import EmbeddedFont
from generator.output.prose import EmbeddedProse

Name = pikepdf.Name


def embed_mono(pdf: pikepdf.Pdf, font: EmbeddedFont) -> pikepdf.Object:
    """A panel font subset (TrueType outlines, every glyph as wide)."""
    program = pikepdf.Stream(pdf, font.program, Filter=Name.FlateDecode, Length1=font.length)
    descriptor = pikepdf.Dictionary(
        Type=Name.FontDescriptor,
        FontName=Name(f"/{font.name}"),
        Flags=5,  # fixed pitch, symbolic
        FontBBox=pikepdf.Array(font.bbox),
        ItalicAngle=0,
        Ascent=font.ascent,
        Descent=font.descent,
        CapHeight=font.cap_height,
        StemV=80,
        FontFile2=program,
    )
    return _type0(pdf, font.name, font.to_unicode, Name.CIDFontType2, descriptor, DW=font.advance)


def embed_prose(pdf: pikepdf.Pdf, font: EmbeddedProse, postscript: str) -> pikepdf.Object:
    """A prose font subset (CFF outlines in OpenType, glyph ids kept), with its glyphs' widths."""
    name = f"{font.tag}+{postscript}"
    program = pikepdf.Stream(pdf, font.program, Filter=Name.FlateDecode, Subtype=Name.OpenType)
    descriptor = pikepdf.Dictionary(
        Type=Name.FontDescriptor,
        FontName=Name(f"/{name}"),
        Flags=4,  # symbolic
        FontBBox=pikepdf.Array([0, font.descent, 1000, font.ascent]),
        ItalicAngle=0,
        Ascent=font.ascent,
        Descent=font.descent,
        CapHeight=font.ascent,
        StemV=80,
        FontFile3=program,
    )
    widths = pikepdf.Array()
    for gid, width in font.widths:
        widths.extend([gid, pikepdf.Array([width])])
    return _type0(pdf, name, font.to_unicode, Name.CIDFontType0, descriptor, W=widths)


def _type0(
    pdf: pikepdf.Pdf, name: str, to_unicode: bytes, subtype: pikepdf.Name, descriptor: pikepdf.Dictionary, **metrics
) -> pikepdf.Object:
    """The Type 0 font over one CID font (`metrics`: its DW or W)."""
    cid_font = pikepdf.Dictionary(
        Type=Name.Font,
        Subtype=subtype,
        BaseFont=Name(f"/{name}"),
        CIDSystemInfo=pikepdf.Dictionary(
            Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"), Supplement=0
        ),
        FontDescriptor=pdf.make_indirect(descriptor),
        CIDToGIDMap=Name.Identity,
        **metrics,
    )
    type0 = pikepdf.Dictionary(
        Type=Name.Font,
        Subtype=Name.Type0,
        BaseFont=Name(f"/{name}"),
        Encoding=Name("/Identity-H"),
        DescendantFonts=pikepdf.Array([pdf.make_indirect(cid_font)]),
        ToUnicode=pikepdf.Stream(pdf, to_unicode, Filter=Name.FlateDecode),
    )
    return pdf.make_indirect(type0)
