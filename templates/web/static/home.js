// The batch form's live preview: one sheet of the options as typed (and of the files chosen),
// redrawn as they change; what cannot be previewed is said beside its field.
(function () {
  "use strict";
  const form = document.getElementById("options");
  const frame = document.getElementById("preview");
  const which = () => document.querySelector('input[name="which"]:checked').value;
  let timer = null;
  // A setting only some kinds take shows with those kinds alone (and is not sent for the others).
  const kind = document.getElementById("f-kind");
  function showKind() {
    form.querySelectorAll(".field[data-kinds]").forEach((box) => {
      const mine = !kind || box.dataset.kinds.split(" ").includes(kind.value);
      box.hidden = !mine;
      box.querySelectorAll("input, select").forEach((element) => { element.disabled = !mine; });
    });
  }
  if (kind) { kind.addEventListener("change", showKind); showKind(); }
  function update() {
    const query = new URLSearchParams();
    for (const element of form.elements) {
      if (!element.name || element.name === "csrf" || element.type === "file" || element.disabled) continue;
      if (element.type === "checkbox") { if (element.checked) query.set(element.name, "on"); }
      else if (element.value) query.set(element.name, element.value);
    }
    if (!query.has("seed")) query.set("seed", "1");
    query.set("key", which());
    frame.src = "/preview?" + query.toString();
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(update, 250); }

  // Errors found by the preview go beside their fields (the framed page carries them as data).
  function showErrors(errors) {
    form.querySelectorAll(".error.live").forEach((e) => e.remove());
    form.querySelectorAll(".field.live-invalid").forEach((f) => f.classList.remove("live-invalid", "invalid"));
    for (const [name, message] of Object.entries(errors)) {
      const field = document.getElementById("f-" + name);
      const box = field ? field.closest(".field") : null;
      const note = document.createElement(box ? "span" : "p");
      note.className = "error live";
      note.id = "live-error-" + name;
      note.textContent = message;
      if (box) {
        box.classList.add("invalid", "live-invalid");
        box.appendChild(note);
        const group = box.closest("details");
        if (group) group.open = true;
      } else {
        form.prepend(note);
      }
    }
  }
  frame.addEventListener("load", () => {
    let errors = {};
    try { errors = JSON.parse(frame.contentDocument.body.dataset.errors || "{}"); } catch (error) { errors = {}; }
    showErrors(errors);
  });

  // A chosen file goes to the server at once: it is held there under an id, so the preview shows
  // it and a form sent back with an error still has it.
  form.querySelectorAll('input[type="file"]').forEach((input) => {
    input.addEventListener("change", async () => {
      const held = document.getElementById(input.dataset.held);
      const note = document.getElementById(input.dataset.held + "-note");
      if (!input.files.length) return;
      try {
        const response = await fetch("/api/uploads/" + input.name, {
          method: "POST", headers: { "X-CSRF-Token": frame.dataset.csrf, "Content-Type": "application/octet-stream" },
          body: input.files[0],
        });
        const body = await response.json();
        if (response.ok) {
          held.value = body.id;
          note.textContent = form.dataset.kept.replace("@", body.summary);
          showErrors({});
        } else {
          held.value = "";
          note.textContent = "";
          showErrors({ [input.name]: body.error || "this file cannot be used" });
          return;
        }
      } catch (error) {
        note.textContent = form.dataset.gone;
      }
      schedule();
    });
  });
  form.addEventListener("input", (event) => { if (event.target.type !== "file") schedule(); });
  form.addEventListener("change", (event) => { if (event.target.type !== "file") schedule(); });
  document.querySelectorAll('input[name="which"]').forEach((r) => r.addEventListener("change", update));
})();
