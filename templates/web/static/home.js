// The batch form's live preview: one sheet of the options as typed, redrawn as they change.
(function () {
  "use strict";
  const form = document.getElementById("options");
  const frame = document.getElementById("preview");
  const which = () => document.querySelector('input[name="which"]:checked').value;
  let timer = null;
  function update() {
    const query = new URLSearchParams();
    for (const element of form.elements) {
      if (!element.name || element.name === "csrf" || element.type === "file") continue;
      if (element.type === "checkbox") { if (element.checked) query.set(element.name, "on"); }
      else if (element.value) query.set(element.name, element.value);
    }
    if (!query.has("seed")) query.set("seed", "1");
    query.set("key", which());
    frame.src = "/preview?" + query.toString();
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(update, 250); }
  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  document.querySelectorAll('input[name="which"]').forEach((r) => r.addEventListener("change", update));
})();
