"""The shape of the package: arrows point inward to a pure core, no cycles, small modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "generator"

# What each layer may import from the package (besides itself and the package's __init__).
ALLOWED = {
    "core": set(),
    # The exercises: each kind a package above the core, the draw and the sheet (its steps pure, its
    # draw and sheet in their layers' terms); no layer imports a kind: the registry finds them.
    "kinds": {"core", "draw", "sheet"},
    "draw": {"core"},
    "sheet": {"core"},
    "output": {"core", "draw", "sheet"},
    # Reading scans: OpenCV's pictures, the layout's boxes, the grader's values.
    "scan": {"core", "draw", "sheet", "output"},
    # The use-cases both front ends call: a batch made, a class graded, scans read, a sheet shown.
    "app": {"core", "draw", "sheet", "output", "scan"},
    # The two front ends only parse, call the app layer and report: neither imports the other,
    # but `attnsheet serve` starts the web app.
    "web": {"app"},
    "cli": {"app", "web"},
}
# Libraries of the edges: the core, the draw and the sheet's layout never import them.
EDGE_LIBRARIES = {
    "click",
    "jinja2",
    "markupsafe",
    "weasyprint",
    "pydyf",
    "pikepdf",
    "fontTools",
    "cv2",
    "pypdfium2",
    "starlette",
}


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Modules `path` imports (module level only, or anywhere in it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # `from package import module` imports that module too (kept where it is one).
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


# A kind's steps are pure, as core is: they import no edge library either.
PURE_PARTS = ("steps", "problem")


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def pure(module: str) -> bool:
    """Whether a module may import no edge library: core, draw, sheet, and every kind's steps."""
    parts = module.split(".")
    return layer(module) in ("core", "draw", "sheet") or (
        parts[1:2] == ["kinds"] and len(parts) > 3 and parts[3] in PURE_PARTS
    )


def test_every_layer_imports_only_inward():
    wrong = []
    for name, path in modules().items():
        own = layer(name)
        if own is None:
            continue
        for target in imports(path):
            other = layer(target) if target.startswith("generator.") else None
            if other and other != own and other not in ALLOWED[own]:
                wrong.append(f"{name} imports {target}")
            if pure(name) and target.split(".")[0] in EDGE_LIBRARIES:
                wrong.append(f"{name} imports {target}")
            if own in ("output", "app") and target.split(".")[0] in ("cv2", "pypdfium2", "starlette"):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    # Imports inside functions count too: a cycle deferred to run time is still a cycle.
    mods = modules()
    graph = {name: {t for t in imports(path) if t in mods and t != name} for name, path in mods.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError(
                    "import cycle: " + " -> ".join(trail[trail.index(nxt) :] + [node, nxt])
                    if nxt in trail
                    else f"import cycle through {node} -> {nxt}"
                )
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_every_module_says_its_one_job_and_stays_small():
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text))
        assert doc, f"{name} has no docstring"
        first = text.splitlines()[0]
        # The file's first line is the docstring's summary: what the module is for, in one line.
        assert first.startswith('"""') and len(first) > 20 and doc.splitlines()[0] == first.strip('"'), (
            f"{name}: the first line should say, in one line, what the module does"
        )
        lines = text.count("\n")
        assert lines <= 400, f"{name} has {lines} lines; split it by concern (at most about 400)"


def test_the_stylesheet_takes_every_size_and_colour_from_the_layouts_numbers():
    # sheet.css is rendered from sheet/look.py and sheet/style.py, which sheet/layout.py reads
    # too: a literal length or colour in it would be a second source that can drift.
    import re

    from generator.output.html import stylesheet_text
    from generator.sheet import look

    source = (ROOT / "templates" / "sheet.css").read_text(encoding="utf-8")
    rules = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    assert not re.findall(r"(?<![\w.{])\d+(?:\.\d+)?(?:pt|mm)\b", rules)
    assert not re.findall(r"#[0-9a-fA-F]{3,6}\b", rules)
    css = stylesheet_text()
    assert f"font-size: {look.TITLE.size:g}pt" in css and f"min-height: {look.HEADER_MIN_PT:g}pt" in css
    assert 'url("../fonts/Inter-Regular.subset.otf")' in stylesheet_text("../")


def test_the_core_imports_nothing_above_it_and_nothing_loads_a_module_by_name():
    # Function-level imports count: a cycle or a layer crossed at run time is crossed all the same.
    above = ("sheet", "draw", "output", "scan", "app", "web", "kinds", "cli")
    wrong = [
        f"{name} imports {target}"
        for name, path in modules().items()
        if layer(name) == "core"
        for target in imports(path)
        if target.startswith("generator.") and layer(target) in above
    ]
    assert not wrong, "\n".join(wrong)
    by_name = [
        name
        for name, path in modules().items()
        if name != "generator.cli" and re.search(r"\bimport_module\(|__import__\(", path.read_text(encoding="utf-8"))
    ]
    assert not by_name, by_name


def _asks_which_operation(node: ast.AST, constants: set[str]) -> bool:
    """Whether an expression is an operation's name or one of the operations' constants."""
    if isinstance(node, ast.Attribute) and node.attr == "name":
        inner = node.value
        return (isinstance(inner, ast.Name) and inner.id == "op") or (
            isinstance(inner, ast.Attribute) and inner.attr in ("op", "operation")
        )
    return isinstance(node, ast.Name) and node.id in constants


def test_nothing_outside_an_operations_module_asks_which_operation_a_step_has():
    # The sheet, the metrics and the grader ask the operation itself (core/ops): a new operation is one file.
    import generator.core.ops as ops
    from generator.core.ops import OPERATIONS

    constants = {name for name in vars(ops) if name.isupper() and name != "OPERATIONS"}
    names = {op.name for op in OPERATIONS}
    wrong = []
    for name, path in modules().items():
        if name.startswith("generator.core.ops"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                sides += [e for s in sides if isinstance(s, (ast.Tuple, ast.Set, ast.List)) for e in s.elts]
                if (
                    any(_asks_which_operation(s, constants) for s in sides)
                    or any(isinstance(s, ast.Constant) and s.value in names for s in sides)
                    and any(isinstance(s, ast.Attribute) and s.attr == "name" for s in sides)
                ):
                    wrong.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Dict) and any(
                k is not None and _asks_which_operation(k, constants) for k in node.keys
            ):
                wrong.append(f"{name}:{node.lineno}")
    assert not wrong, wrong
    assert len(names) == len(OPERATIONS), "two operations share a name"
    modules_of = [type(op).__module__ for op in OPERATIONS]
    assert len(set(modules_of)) == len(modules_of), "one operation per module"
