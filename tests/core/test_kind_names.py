"""A kind is one folder: outside generator/kinds/ nothing names a kind or branches on one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

from generator.core.registry import kinds

PACKAGE = ROOT / "generator"
KINDS_FOLDER = PACKAGE / "kinds"
# Words that are only ever kind names (attention is also the product's word: its name as a
# string or an identifier is what gives a branch away, so that is what is checked for it).
NAMES_ONLY = tuple(k for k in kinds() if k != "attention")


def outside_kinds(pattern: str, root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob(pattern)) if KINDS_FOLDER not in p.parents]


def kind_names_in(source: str) -> list[str]:
    """Where Python source names a kind: a string that is a kind's name, an identifier with one in it."""
    found = []
    word = re.compile(rf"(^|_)({'|'.join(kinds())})($|_)", re.IGNORECASE)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in kinds():
            found.append(f"line {node.lineno}: the string {node.value!r}")
        name = (
            node.id
            if isinstance(node, ast.Name)
            else node.attr
            if isinstance(node, ast.Attribute)
            else node.arg
            if isinstance(node, ast.arg)
            else node.name
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            else None
        )
        if name and word.search(name):
            found.append(f"line {node.lineno}: the name {name}")
    return found


def test_the_checker_finds_a_branch_on_a_kind():
    # It must fail on what it is there to stop (else it would pass by never looking).
    assert kind_names_in('if problem.kind == "ffn":\n    pass\n')
    assert kind_names_in("def ffn_view(x):\n    return x\n")
    assert kind_names_in('KIND = "attention"\n')
    assert not kind_names_in('if setting.kind == "switch":\n    pass\n')


def test_no_module_outside_the_kinds_folder_names_a_kind():
    found = [
        f"{path.relative_to(ROOT)} {where}"
        for path in outside_kinds("*.py", PACKAGE)
        for where in kind_names_in(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_no_comment_template_or_script_names_a_kind():
    # The words themselves, prose included: a comment naming a kind is a branch waiting to be written.
    word = re.compile(rf"\b({'|'.join(NAMES_ONLY)})\b", re.IGNORECASE)
    quoted = re.compile(r"""["']attention["']""")
    files = outside_kinds("*.py", PACKAGE) + [
        p for p in sorted((ROOT / "templates").rglob("*")) if p.suffix in (".html", ".js", ".css", ".txt")
    ]
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if word.search(line) or (path.suffix != ".py" and quoted.search(line)):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
