// A sheet's boxes as answers@1 and back: shared by the teacher's entry page and the student's page.
(function () {
  "use strict";
  function blankGrid(step, shape) {
    if (step === "sums") return new Array(shape[1] * shape[0]).fill(null);
    return Array.from({ length: shape[0] }, () => new Array(shape[1]).fill(null));
  }
  // What the boxes hold, as answers@1 (every grid in its shape, an empty box null).
  function answers(inputs, shapes) {
    const doc = { heads: [] };
    for (const [head, steps] of Object.entries(shapes)) {
      const grids = {};
      for (const [step, shape] of Object.entries(steps)) grids[step] = blankGrid(step, shape);
      if (head === "final") Object.assign(doc, grids); else doc.heads[Number(head) - 1] = grids;
    }
    for (const input of inputs) {
      const value = input.value.trim().replace(/−/g, "-");
      if (!value) continue;
      const grids = input.dataset.head === "" ? doc : doc.heads[Number(input.dataset.head) - 1];
      const i = Number(input.dataset.i), j = Number(input.dataset.j);
      if (input.dataset.step === "sums") grids.sums[i + j] = value; else grids[input.dataset.step][i][j] = value;
    }
    return doc;
  }
  // A box's entry in a document shaped as answers@1 or grade@1's cells (null where there is none).
  function at(doc, input) {
    const grids = input.dataset.head === "" ? doc : ((doc && doc.heads) || [])[Number(input.dataset.head) - 1];
    const grid = grids && grids[input.dataset.step];
    if (!grid) return null;
    const i = Number(input.dataset.i), j = Number(input.dataset.j);
    return input.dataset.step === "sums" ? grid[i + j] : (grid[i] || [])[j];
  }
  // Put a document's values into the boxes (`then` runs on each box filled); `whole`: a box the
  // document has empty is emptied too (a draft: a box cleared since the save stays clear).
  function fill(doc, inputs, then, whole) {
    for (const input of inputs) {
      const value = at(doc, input);
      if (value !== null && value !== undefined) { input.value = String(value); if (then) then(input); }
      else if (whole) input.value = "";
    }
  }
  window.attnsheetSheet = { answers, at, fill };
})();
