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
      // A minus as the sheet and the key write it (−), however the document spells it (-).
      if (value !== null && value !== undefined) { input.value = String(value).replace(/-/g, "−"); if (then) then(input); }
      else if (whole) input.value = "";
    }
  }
  // A value longer than its box ("1/14 0.07" in an A box, "3/8 0.38" as it is typed) is set
  // smaller, so all of it shows and the box keeps its place: it never widens over its neighbour.
  function fit(input) {
    input.style.fontSize = "";
    input.title = input.value;
    if (input.scrollWidth <= input.clientWidth) return;
    const start = parseFloat(getComputedStyle(input).fontSize) * 0.75;  // px to pt
    for (let size = start - 0.5; input.scrollWidth > input.clientWidth && size > 5; size -= 0.5) input.style.fontSize = size + "pt";
  }
  // Captions on one line end before the next one starts: a caption with a ✓ beside it (or a
  // longer translation) is set smaller where it would run into its neighbour's words.
  function untangle(form) {
    const captions = Array.from(form.querySelectorAll(".caption"));
    const boxes = captions.map((c) => c.getBoundingClientRect());
    captions.forEach((caption, k) => {
      const mine = boxes[k];
      const next = boxes.filter((o, m) => m !== k && o.left > mine.left && Math.abs(o.top - mine.top) < mine.height / 2)
        .reduce((least, o) => Math.min(least, o.left), Infinity);
      if (next === Infinity) return;
      const room = next - mine.left - 4;
      let size = parseFloat(getComputedStyle(caption).fontSize) * 0.75;
      while (caption.getBoundingClientRect().width > room && size > 5) {
        size -= 0.25;
        caption.style.fontSize = size + "pt";
      }
    });
  }
  window.attnsheetSheet = { answers, at, fill, fit, untangle };
})();
