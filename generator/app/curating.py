"""A teacher's batches kept in order: renamed, put away, deleted for good (the Store's part of it)."""

from __future__ import annotations

import shutil

from generator.core.errors import AttnsheetError


class Curating:
    """Naming, archiving and deleting batches (`db`, `root`, `batch` and the manifests are the Store's)."""

    def rename(self, batch, label: str):
        """Call a batch `label` in every list ("" for its title again); its files and codes stay."""
        from generator.core.usertext import MAX_TITLE, clean_text

        label = clean_text(str(label), 10 * MAX_TITLE)
        if len(label) > MAX_TITLE:
            raise AttnsheetError(f"a batch's name: at most {MAX_TITLE} characters, got {len(label)}")
        with self.db.transaction() as cur:
            cur.run("UPDATE batches SET label = ? WHERE id = ?", (label, batch.number))
        return self.batch(batch.id)

    def archive(self, batch, archived: bool = True):
        """Put a batch away (listed apart), or back among the others; nothing of it changes."""
        with self.db.transaction() as cur:
            cur.run("UPDATE batches SET archived = ? WHERE id = ?", (int(archived), batch.number))
        return self.batch(batch.id)

    def delete(self, batch) -> None:
        """Remove a batch for good: its rows (sheets, saves, revisions, shares, jobs) in one
        transaction, then its folder; no other batch's row or file is touched."""
        trash = self.root / "batches" / f".deleted-{batch.id}"
        with self.db.transaction() as cur:
            for table in ("revisions", "saves", "sheets", "shares"):
                cur.run(f"DELETE FROM {table} WHERE batch_id = ?", (batch.number,))
            cur.run("DELETE FROM jobs WHERE batch = ?", (batch.id,))
            cur.run("DELETE FROM batches WHERE id = ?", (batch.number,))
            if batch.folder.is_dir():  # moved aside inside the transaction: a failed move keeps the rows
                batch.folder.rename(trash)
        with self._manifests_lock:
            self._manifests.pop(batch.number, None)
        shutil.rmtree(trash, ignore_errors=True)
