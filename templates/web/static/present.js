// The projector: one sheet worked in front of a class, a cell at a time, its factors lit up.
// Plain JavaScript, no build step, nothing from elsewhere (the page's CSP allows only this file).
(function () {
  "use strict";
  const root = document.getElementById("present");
  const frames = JSON.parse(root.dataset.frames);
  const say = document.getElementById("say");
  const cells = Array.from(root.querySelectorAll(".pcell"));
  const byBox = {};
  for (const cell of cells) (byBox[cell.dataset.box] = byBox[cell.dataset.box] || []).push(cell);
  const at = (box, i, j) => (byBox[box] || []).find((c) => Number(c.dataset.i) === i && Number(c.dataset.j) === j);
  let k = -1;

  function reveal(frame) {
    if (frame.i >= 0) { const cell = at(frame.box, frame.i, frame.j); if (cell) cell.textContent = frame.value; return; }
    // A copy: the whole matrix written out again (Kᵀ transposed).
    const source = frame.lit[0].box, transposed = frame.transposed;
    for (const cell of byBox[frame.box] || []) {
      const i = Number(cell.dataset.i), j = Number(cell.dataset.j);
      const from = transposed ? at(source, j, i) : at(source, i, j);
      if (from) cell.textContent = from.textContent;
    }
  }

  function show(to) {
    k = Math.max(-1, Math.min(frames.length - 1, to));
    for (const cell of cells) {
      cell.classList.remove("lit", "current");
      if (!cell.classList.contains("given")) cell.textContent = "";
    }
    for (let n = 0; n <= k; n++) reveal(frames[n]);
    counter.textContent = (k + 1) + " / " + frames.length;
    if (k < 0) { say.textContent = root.dataset.start || ""; window.scrollTo(0, 0); return; }
    const frame = frames[k];
    for (const lit of frame.lit) {
      for (const cell of byBox[lit.box] || []) {
        const i = Number(cell.dataset.i), j = Number(cell.dataset.j);
        if ((lit.i === null || lit.i === i) && (lit.j === null || lit.j === j)) cell.classList.add("lit");
      }
    }
    if (frame.i >= 0) { const cell = at(frame.box, frame.i, frame.j); if (cell) cell.classList.add("current"); }
    else for (const cell of byBox[frame.box] || []) cell.classList.add("current");  // a copy: its whole matrix
    say.textContent = frame.text;
    // The cell being worked stays in view (a copy: its whole matrix), under the bar kept at the top.
    const mine = frame.i >= 0 ? [at(frame.box, frame.i, frame.j)] : (byBox[frame.box] || []);
    const last = mine[mine.length - 1], first = mine[0];
    if (last) keepInView(last);
    if (first && first !== last) keepInView(first);
  }

  // Scrolled to, then clear of the bar kept at the top (its height is the window's: a phone's is taller).
  function keepInView(cell) {
    cell.scrollIntoView({ block: "nearest", inline: "nearest" });
    const top = cell.getBoundingClientRect().top, clear = bar.getBoundingClientRect().bottom + 8;
    if (top < clear) window.scrollBy(0, top - clear);
  }

  // Fit to screen: the whole sheet scaled to the window below the bar (f again: its own size).
  const counter = document.getElementById("counter");
  const fitButton = document.getElementById("fit");
  const bar = document.querySelector(".present-bar");
  const natural = parseFloat(getComputedStyle(root).zoom) || 1;
  let fitted = false;
  function fit() {
    root.style.zoom = "";
    // Fitted, the page keeps only the bar above the sheet: the site's links and the keys' help go.
    document.body.classList.toggle("fitted", fitted);
    if (fitted) {
      window.scrollTo(0, 0);
      // The room from where the sheet starts (under the bar and whatever is above it) to the
      // window's right and bottom edges: a sheet fitted to less ran 32–39 px past the bottom.
      const start = root.getBoundingClientRect();
      const width = root.offsetWidth * natural, height = root.offsetHeight * natural;
      const room = [document.documentElement.clientWidth - start.left - 8, window.innerHeight - start.top - 8];
      root.style.zoom = String(natural * Math.min(room[0] / width, room[1] / height));
      window.scrollTo(0, 0);  // all of it is on screen now: none of it under the bar
    }
    fitButton.setAttribute("aria-pressed", String(fitted));
  }
  fitButton.addEventListener("click", () => { fitted = !fitted; fit(); });
  window.addEventListener("resize", () => { if (fitted) fit(); });
  document.getElementById("full").addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen().catch(() => {});
  });

  function stepFrom(n, direction) {
    const step = (f) => frames[f] && frames[f].box.split(":")[0] + frames[f].step;
    let m = n;
    if (direction > 0) { while (m < frames.length - 1 && step(m + 1) === step(n)) m++; return m + 1; }
    m = n - 1;
    while (m > 0 && step(m - 1) === step(m)) m--;
    return m;
  }

  document.addEventListener("keydown", (event) => {
    const keys = { ArrowRight: () => k + 1, " ": () => k + 1, ArrowLeft: () => k - 1,
      ArrowDown: () => stepFrom(k, 1), PageDown: () => stepFrom(k, 1),
      ArrowUp: () => stepFrom(k, -1), PageUp: () => stepFrom(k, -1),
      Home: () => -1, End: () => frames.length - 1 };
    if (event.key === "f" && !event.ctrlKey && !event.metaKey) { fitted = !fitted; fit(); return; }
    if (!keys[event.key]) return;
    event.preventDefault();
    show(keys[event.key]());
  });
  root.dataset.start = say.textContent;
  show(-1);
})();
