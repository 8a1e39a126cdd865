"""The web app's data folder, as both front ends find it: the one given, or the user's; its store, with what it says once."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from generator.core.errors import InputError


def folder_of(path: Optional[Path]) -> Path:
    """The data folder: the one given, or the platform's user data folder for attnsheet."""
    if path is not None:
        return path
    from platformdirs import user_data_path

    return user_data_path("attnsheet", appauthor=False)


def open_store(root: Path, database: Optional[str]):
    """The classroom store of a data folder (made if missing), and its warnings to say once."""
    from generator.app.store import Store

    store = Store(root, database)
    return store, list(store.warnings)


def existing_store(data: Optional[Path], database: Optional[str]):
    """The store of an existing data folder (the user's by default), and its warnings; one line when it is none."""
    root = folder_of(data)
    if not (root / "batches").is_dir():
        raise InputError(f"{root} is not an attnsheet data folder (no batches/ in it)")
    return open_store(root, database)


def export_batch(store, name: str, out: Path, force: bool) -> int:
    """A batch's manifest and its saved answers and grades written into `out` as files for the
    CLI (manifest.json, answers/NNN.json, grades/NNN.json): all of them or none. How many saves."""
    from generator.core.formats import dumps
    from generator.output.staging import Staging

    stored = store.batch(name)
    saves = store.saves(stored)
    with Staging(out, force) as stage:
        stage.write(out / "manifest.json", (dumps(stored.manifest) + "\n").encode("utf-8"))
        for index, answers, grade in saves:
            stage.write(out / "answers" / f"{index:03d}.json", (dumps(answers) + "\n").encode("utf-8"))
            stage.write(out / "grades" / f"{index:03d}.json", (dumps(grade) + "\n").encode("utf-8"))
        stage.commit()
    return len(saves)
