// A job's progress bar: asks the server how far the job has got, until it is done (then the
// page is loaded again, and shows what the job made) or failed (then it says why).
(function () {
  "use strict";
  const box = document.getElementById("job");
  if (!box) return;
  const words = document.getElementById("job-words");
  const bar = document.getElementById("job-bar");
  let quiet = 0;

  function said(template, values) {
    let text = template;
    for (const [name, value] of Object.entries(values)) text = text.split("@" + name).join(String(value));
    return text;
  }

  async function look() {
    let job;
    try {
      const answer = await fetch("/api/jobs/" + box.dataset.job, { headers: { accept: "application/json" } });
      if (!answer.ok) throw new Error(String(answer.status));
      job = await answer.json();
      quiet = 0;
    } catch (error) {
      quiet += 1;  // the server restarting: the job is kept, the bar waits for it
      setTimeout(look, Math.min(5000, 700 * (quiet + 1)));
      return;
    }
    if (job.state === "done") {
      bar.max = Math.max(job.total, 1);
      bar.value = bar.max;
      location.reload();
      return;
    }
    if (job.state === "cancelled") {
      location.reload();  // the page says so, with the way back
      return;
    }
    if (job.state === "failed") {
      words.textContent = said(box.dataset.failed, { why: job.error });
      words.className = "error";
      bar.hidden = true;
      const cancel = document.getElementById("job-cancel");
      if (cancel) cancel.hidden = true;
      return;
    }
    if (job.state === "queued") {
      words.textContent = box.dataset.queued;
    } else {
      words.textContent = said(box.dataset.running, { done: job.done, total: job.total || "…" });
      bar.max = Math.max(job.total, 1);
      bar.value = job.done;
    }
    setTimeout(look, 700);
  }

  setTimeout(look, 300);
})();
