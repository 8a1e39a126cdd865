"""Every kind keeps the protocol (generator/core/protocol.py): a conformance test over every
registered kind, built-in or not; a kind that breaks it, fails as it loads, or claims another's
code number is refused in one line, and the others go on."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from generator.core import registry
from generator.core.errors import ProblemError
from generator.core.protocol import OPTIONAL, PROTOCOLS, every_part_lacks

GROUP = registry.GROUP


def point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=GROUP)


BUILT_IN = [point(n, f"generator.kinds.{n}.kind:KIND") for n in ("attention", "ffn", "transformer", "rnn", "moe")]


@pytest.mark.parametrize("name", registry.kinds())
def test_every_registered_kind_keeps_the_protocol(name):
    kind = registry.kind(name)
    assert every_part_lacks(kind) == [], name
    draw = kind.draw
    assert getattr(draw, "CODE_NUMBER", kind.code) == kind.code  # the number its codes carry is its own


def test_the_protocol_names_members_the_tool_uses():
    # Optional members are named part.member of a part the protocol has, and none is also required.
    for member in OPTIONAL:
        part, _, attribute = member.partition(".")
        assert part in PROTOCOLS and attribute not in dir(PROTOCOLS[part]), member


def test_the_registry_is_every_kind_once_with_one_default():
    kinds = [registry.kind(name) for name in registry.kinds()]
    assert len({k.code for k in kinds}) == len(kinds) and len({k.name for k in kinds}) == len(kinds)
    assert [k.name for k in kinds if k.default] == [registry.default_kind()]
    assert registry.refused() == []


def test_a_kind_that_breaks_the_protocol_is_refused_in_one_line_and_the_others_go_on():
    found, refused = registry.registered(
        BUILT_IN
        + [
            point("nosolve", "kindfixtures:LACKS_SOLVE"),
            point("clash", "kindfixtures:CLASHES"),
            point("junk", "kindfixtures:NOT_A_KIND"),
            point("broken", "kindfailing:KIND"),
            point("rnncopy", "kindfixtures:WELL"),
        ]
    )
    assert list(found) == ["attention", "ffn", "transformer", "rnn", "moe", "rnncopy"]
    assert all("\n" not in line for line in refused) and len(refused) == 4, refused
    said = "\n".join(refused)
    assert "kind 'nosolve' (kindfixtures:LACKS_SOLVE) refused: it lacks steps.solve" in said
    assert "kind 'clash' refused: it claims code number 3, which is 'rnn''s" in said
    assert "kind 'junk' (kindfixtures:NOT_A_KIND) refused: it lacks a Kind" in said
    assert "kind 'broken' (kindfailing:KIND) refused: it fails to load: RuntimeError: this plug-in is broken" in said


def test_a_part_that_breaks_the_protocol_is_refused_when_first_asked_for():
    found, refused = registry.registered([point("noview", "kindfixtures:LATE_LACK")])
    kind = found["noview"]
    assert kind.steps and kind.draw
    with pytest.raises(ProblemError, match=r"^kind 'noview': its sheet lacks view$"):
        kind.sheet


def test_refusals_are_logged_once_each(caplog, monkeypatch):
    monkeypatch.setattr(registry, "_kinds", None)
    monkeypatch.setattr(registry, "_points", lambda: BUILT_IN + [point("broken", "kindfailing:KIND")])
    with caplog.at_level(logging.WARNING, logger="attnsheet.kinds"):
        assert registry.kinds() == ("attention", "ffn", "transformer", "rnn", "moe")
        registry.kinds()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "kind 'broken'" in lines[0] and "fails to load" in lines[0]
    monkeypatch.setattr(registry, "_kinds", None)  # the real registry again for the tests after


def test_no_kind_installed_says_how_to_mend_it(monkeypatch):
    monkeypatch.setattr(registry, "_kinds", {})
    with pytest.raises(ProblemError, match="no exercise kind is installed"):
        registry.kind("attention")
    monkeypatch.setattr(registry, "_kinds", None)


def test_every_choice_a_kind_brings_is_a_number_or_has_a_teachers_words():
    # The form shows a choice in the teacher's language: a word must be in CHOICE_WORDS (a number is
    # a number in every language); a Spanish form once offered "none".
    for name in registry.kinds():
        settings = registry.kind(name).settings
        words = getattr(settings, "CHOICE_WORDS", {})
        for setting in settings.DECLARED:
            for value in setting.choices:
                numeric = all(part.isdigit() for part in value.split("/"))
                assert numeric or value in words.get(setting.name, {}), (name, setting.name, value)
