// The entry page: what is typed goes to the grader as answers@1; each box shows its verdict.
// Plain JavaScript, no build step, nothing from elsewhere (the page's CSP allows only this file).
(function () {
  "use strict";
  const root = document.getElementById("entry");
  const csrf = root.dataset.csrf;
  const shapes = JSON.parse(root.dataset.shapes);
  const inputs = Array.from(root.querySelectorAll("input.cell"));
  const score = document.getElementById("score");

  function blankGrid(step, shape) {
    if (step === "sums") return new Array(shape[1] * shape[0]).fill(null);
    return Array.from({ length: shape[0] }, () => new Array(shape[1]).fill(null));
  }

  function answers() {
    const doc = { heads: [] };
    for (const [head, steps] of Object.entries(shapes)) {
      const grids = {};
      for (const [step, shape] of Object.entries(steps)) grids[step] = blankGrid(step, shape);
      if (head === "final") Object.assign(doc, grids); else doc.heads[Number(head) - 1] = grids;
    }
    for (const input of inputs) {
      const value = input.value.trim();
      if (!value) continue;
      const head = input.dataset.head, step = input.dataset.step;
      const i = Number(input.dataset.i), j = Number(input.dataset.j);
      const grids = head === "" ? doc : doc.heads[Number(head) - 1];
      if (step === "sums") grids.sums[i + j] = value; else grids[step][i][j] = value;
    }
    return doc;
  }

  function verdictOf(cells, input) {
    const head = input.dataset.head, step = input.dataset.step;
    const grids = head === "" ? cells : cells.heads[Number(head) - 1];
    const grid = grids && grids[step];
    if (!grid) return "blank";
    const i = Number(input.dataset.i), j = Number(input.dataset.j);
    return step === "sums" ? grid[i + j] : grid[i][j];
  }

  async function post(url) {
    const response = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(answers()),
    });
    return response.json();
  }

  let timer = null, last = null;
  const explain = document.getElementById("explain");
  function explainFor(input) {
    if (!last || !last.explain || !explain) return;
    explain.textContent = input.getAttribute("aria-label") + ": " + verdictOf(last.explain, input);
  }
  async function refresh() {
    const result = await post(root.dataset.grade);
    if (result.error) { score.textContent = result.error; return; }
    last = result;
    for (const input of inputs) input.dataset.verdict = verdictOf(result.cells, input);
    score.textContent = result.points + " / " + result.total;
    if (document.activeElement && document.activeElement.classList.contains("cell")) explainFor(document.activeElement);
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(refresh, 120); }

  function neighbour(input, di, dj) {
    const i = Number(input.dataset.i) + di, j = Number(input.dataset.j) + dj;
    return inputs.find((o) => o.dataset.head === input.dataset.head && o.dataset.step === input.dataset.step &&
      Number(o.dataset.i) === i && Number(o.dataset.j) === j);
  }

  inputs.forEach((input, k) => {
    input.addEventListener("input", schedule);
    input.addEventListener("focus", () => explainFor(input));
    input.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
      let target = null;
      if (event.key === "Enter") target = inputs[k + 1];
      else if (moves[event.key] && (event.key.startsWith("ArrowU") || event.key.startsWith("ArrowD") ||
               input.selectionStart === (event.key === "ArrowRight" ? input.value.length : 0))) {
        target = neighbour(input, ...moves[event.key]);
      }
      if (target) { event.preventDefault(); target.focus(); target.select(); }
    });
  });

  const saved = JSON.parse(root.dataset.saved || "null");
  if (saved) {
    for (const input of inputs) {
      const head = input.dataset.head, step = input.dataset.step;
      const grids = head === "" ? saved : (saved.heads || [])[Number(head) - 1];
      const grid = grids && grids[step];
      if (!grid) continue;
      const i = Number(input.dataset.i), j = Number(input.dataset.j);
      const value = step === "sums" ? grid[i + j] : grid[i][j];
      if (value !== null && value !== undefined) input.value = String(value);
    }
  }
  const saveButton = document.getElementById("save");
  if (saveButton) saveButton.addEventListener("click", async () => {
    const result = await post(root.dataset.save);
    document.getElementById("saved").textContent = result.saved ? "saved (" + result.points + " / " + result.total + ")"
      : (result.error || "not saved");
  });
  refresh();
  if (inputs.length) inputs[0].focus();
})();
