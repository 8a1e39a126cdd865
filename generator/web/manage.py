"""A batch kept by its teacher (renamed, archived, deleted, its handout printed) and the progress of its jobs, for the routes."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from generator.app.classroom import handout
from generator.app.errors import AttnsheetError
from generator.app.runner import cancel_job
from generator.app.store import NotFound, Store
from generator.web.pages import Pages


class Managing(Pages):
    """A batch's rename, archive and delete, its handout; a job's state for its progress bar."""

    store: Store
    public_url: str

    async def handout(self, request: Request) -> Response:
        """Every student's link, QR code and PIN on cards to cut out, as a PDF in the batch's paper and language."""
        batch = await self.off_db(self.store.batch, request.path_params["batch_id"])
        base = self.public_url or str(request.base_url)
        data = await self.off_loop(self._locked, handout, self.store, batch, base)
        return Response(
            data,
            media_type="application/pdf",
            headers={"content-disposition": f'inline; filename="{batch.file_name("handout.pdf")}"'},
        )

    async def manage(self, request: Request) -> Response:
        """Rename, archive (or bring back) or delete a batch; a delete needs the batch's id typed again."""
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        batch = await self.off_db(self.store.batch, request.path_params["batch_id"])
        action = str(data.get("action", ""))
        if action == "rename":
            await self.off_db(self.store.rename, batch, str(data.get("label", "")))
        elif action in ("archive", "unarchive"):
            await self.off_db(self.store.archive, batch, action == "archive")
        elif action == "delete":
            if str(data.get("confirm", "")).strip() != batch.id:
                raise AttnsheetError(f"to delete it, type its id ({batch.id}) in the box: nothing was deleted")
            await self.off_db(self.store.delete, batch)
            return RedirectResponse("/", status_code=303)
        else:
            raise AttnsheetError("no such change")
        return RedirectResponse(f"/batches/{batch.id}#manage", status_code=303)

    async def cancel_job(self, request: Request) -> Response:
        """Stop a batch's job at the teacher's word (a class they may change: the route's guard)."""
        data = await request.form(max_files=0, max_fields=4)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale or was not sent by this app: reload the page")
        number = str(request.path_params["job_id"])
        if not number.isdigit() or len(number) > 18:
            raise NotFound("no such job")
        job = await self.off_db(self.store.job, int(number))
        if job.batch != request.path_params["batch_id"]:
            raise NotFound("no such job")
        await self.off_db(cancel_job, self.store, job.id)
        back = f"/batches/{job.batch}/review?run={job.run}" if job.kind == "scan" else f"/batches/{job.batch}"
        return RedirectResponse(back, status_code=303)

    async def job_api(self, request: Request) -> Response:
        """A job's state and progress, for its page's bar (the teacher's own jobs, and those of classes they see)."""
        number = str(request.path_params["job_id"])
        if not number.isdigit() or len(number) > 18:
            raise NotFound("no such job")
        job = await self.off_db(self.store.job, int(number))
        await self.off_db(self._may_see, request, job)
        return JSONResponse(
            {
                "state": job.state,
                "done": job.done,
                "total": job.total,
                "error": job.error,
                "batch": job.batch,
                "result": job.result,
            }
        )

    def _may_see(self, request: Request, job) -> None:
        teacher = self.teacher(request)
        if teacher is None or job.owner == teacher.id:
            return
        try:
            if self.store.access(self.store.batch(job.batch), teacher) is not None:
                return
        except NotFound:
            pass
        raise NotFound("no such job")
