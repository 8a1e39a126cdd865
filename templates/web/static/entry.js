// The entry page: what is typed goes to the grader as answers@1; each box shows its verdict.
// Plain JavaScript, no build step, nothing from elsewhere (the page's CSP allows only this file).
(function () {
  "use strict";
  const root = document.getElementById("entry");
  let csrf = root.dataset.csrf;
  // Drafts stay in this browser until they are saved: a closed tab, a crash or a server that
  // went away loses nothing typed.
  const draftKey = "attnsheet-draft:" + location.pathname;
  let dirty = false;
  const shapes = JSON.parse(root.dataset.shapes);
  const inputs = Array.from(root.querySelectorAll("input.cell"));
  const score = document.getElementById("score");
  const words = JSON.parse(root.dataset.words);  // the page's language, from the server's catalog

  const answers = () => window.attnsheetSheet.answers(inputs, shapes);
  const fit = window.attnsheetSheet.fit;
  // A box's entry in grade@1's cells (its verdict, its explanation, its expected value); "blank" where none.
  const verdictOf = (cells, input) => { const v = window.attnsheetSheet.at(cells, input); return v === null ? "blank" : v; };

  async function send(url) {
    const response = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      // A save says which version the page showed: one that arrived since is kept, never lost unseen.
      body: JSON.stringify(url === root.dataset.save && "base" in root.dataset ? { ...answers(), base: root.dataset.base } : answers()),
    });
    return { status: response.status, body: await response.json() };
  }

  // A restarted server has a new CSRF token: fetch it and try once more, without a reload.
  async function post(url) {
    let result;
    try { result = await send(url); }
    catch (error) { return { error: words.gone }; }
    if (result.status === 403 && /CSRF/.test(result.body.error || "")) {
      try {
        const fresh = await fetch("/api/csrf", { headers: { "Accept": "application/json" } });
        csrf = (await fresh.json()).csrf;
        result = await send(url);
      } catch (error) { return { error: words.gone }; }
    }
    return result.body;
  }

  // A draft is the page as it stands: every box's text and which boxes still follow the key, so
  // that a reload shows exactly this page again (a box following the key keeps following it).
  const boxKey = (input) => [input.dataset.head, input.dataset.step, input.dataset.i, input.dataset.j].join("|");
  function storeDraft() {
    const draft = { version: 2, answers: answers(),
                    following: inputs.filter((input) => input.dataset.suggested === "1").map(boxKey) };
    try { localStorage.setItem(draftKey, JSON.stringify(draft)); } catch (error) { /* private mode: no draft */ }
  }
  function keepDraft() { dirty = true; storeDraft(); }
  // A draft puts back every box: a box it has empty is emptied (one cleared since the save stays clear).
  function restore(draft) {
    const doc = draft.version === 2 ? draft.answers : draft;  // an older draft: its values alone
    const following = new Set(draft.version === 2 ? draft.following : []);
    let changed = 0;
    for (const input of inputs) {
      const value = window.attnsheetSheet.at(doc, input);
      const text = value === null || value === undefined ? "" : String(value);
      if (input.value !== text) changed++;
      input.value = text;
      if (following.has(boxKey(input))) input.dataset.suggested = "1"; else delete input.dataset.suggested;
      fit(input);
    }
    return changed;
  }

  let timer = null, last = null;
  const explain = document.getElementById("explain");
  function explainFor(input) {
    if (!last || !last.explain || !explain) return;
    explain.textContent = input.getAttribute("aria-label") + ": " + verdictOf(last.explain, input);
  }
  // "Start from the key": every empty box holds what is expected there — the true value, or the
  // one the student's own entered cells carry — and follows as earlier boxes change, until typed in.
  function suggest(result) {
    let changed = false;
    if (!result.expected) return false;
    for (const input of inputs) {
      if (input.dataset.suggested !== "1") continue;
      const value = verdictOf(result.expected, input) || "";
      if (input.value !== value) { input.value = value; fit(input); changed = true; }
    }
    return changed;
  }
  // Only the newest refresh may write: an older one whose answer arrives late (typing went on
  // meanwhile) would put stale suggestions and a stale score on the page.
  let generation = 0;
  async function refresh() {
    const mine = ++generation;
    let result = null;
    for (let round = 0; round < 16; round++) {  // suggestions follow the chain, step by step
      result = await post(root.dataset.grade);
      if (mine !== generation) return;
      if (!result || result.error || !suggest(result)) break;
    }
    if (!result) return;
    if (dirty) storeDraft();  // the boxes following the key have moved since the keystroke's draft
    if (result.error) { score.textContent = result.error; return; }
    last = result;
    for (const input of inputs) {
      input.dataset.verdict = verdictOf(result.cells, input);
      // Its verdict in words, in its accessible description: said, not only shown by colour and mark.
      const said = words.verdicts && words.verdicts[input.dataset.verdict];
      if (said) input.setAttribute("aria-description", said); else input.removeAttribute("aria-description");
    }
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
    input.addEventListener("input", () => { delete input.dataset.suggested; fit(input); keepDraft(); schedule(); });
    // A box opened again has its value selected: typing replaces it rather than adding to it.
    input.addEventListener("focus", () => { explainFor(input); input.select(); });
    input.addEventListener("mouseup", (event) => { if (input.selectionStart !== input.selectionEnd) event.preventDefault(); });
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

  const fill = (doc) => window.attnsheetSheet.fill(doc, inputs, fit);
  // The boxes where the student's hand-in is not what their photo shows, and those a scan would have
  // asked the teacher to look at: marked for the teacher.
  for (const mark of ["differs", "asked"]) {
    for (const [head, step, i, j] of JSON.parse(root.dataset[mark] || "[]")) {
      const input = inputs.find((o) => o.dataset.step === step && Number(o.dataset.i) === i && Number(o.dataset.j) === j &&
        o.dataset.head === (head === null ? "" : String(head)));
      if (input) input.classList.add(mark);
    }
  }
  const saved = JSON.parse(root.dataset.saved || "null");
  if (saved) fill(saved);
  const status = document.getElementById("saved");
  let draft = null;
  try { draft = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (error) { draft = null; }
  if (draft && typeof draft === "object") {
    const changed = restore(draft);
    dirty = true;
    // Shown, never saved unseen: the teacher saves it or goes back to what was saved.
    if (status) {
      status.textContent = words.restored.replace("@", changed) + " ";
      if (root.dataset.save) {
        const discard = document.createElement("button");
        discard.type = "button";
        discard.id = "discard";
        discard.textContent = words.discard;
        discard.addEventListener("click", () => {
          try { localStorage.removeItem(draftKey); } catch (error) { /* nothing kept */ }
          dirty = false;
          restore({ version: 2, answers: saved || {}, following: [] });
          status.textContent = words.discarded;
          refresh();
        });
        status.appendChild(discard);
      }
    }
  }
  window.addEventListener("beforeunload", (event) => {
    if (dirty && root.dataset.save) { event.preventDefault(); event.returnValue = ""; }
  });
  const fromKey = document.getElementById("fromkey");
  if (fromKey) fromKey.addEventListener("click", async () => {
    for (const input of inputs) if (!input.value.trim()) input.dataset.suggested = "1";
    await refresh();
    keepDraft();
  });
  // ✓ beside a step's name: every box of that step as expected (the values follow the boxes before).
  root.querySelectorAll("button.expected").forEach((button) => button.addEventListener("click", async () => {
    for (const input of inputs) {
      if (input.dataset.head === button.dataset.head && input.dataset.step === button.dataset.step) {
        input.value = "";
        input.dataset.suggested = "1";
      }
    }
    await refresh();
    keepDraft();
  }));
  const saveButton = document.getElementById("save");
  if (saveButton) saveButton.addEventListener("click", async () => {
    const result = await post(root.dataset.save);
    if (result.saved) {
      dirty = false;
      try { localStorage.removeItem(draftKey); } catch (error) { /* nothing kept */ }
      status.textContent = result.kept_newer ? words.newer : words.saved.replace("@", result.points + " / " + result.total);
      root.dataset.base = result.rev;
    } else {
      status.textContent = words.unsaved.replace("@", result.error || words.refused);
    }
  });
  document.querySelectorAll("time[data-epoch]").forEach((t) => {
    t.textContent = new Date(Number(t.dataset.epoch) * 1000).toLocaleString(document.documentElement.lang || undefined);
  });
  window.attnsheetSheet.untangle(root);
  refresh();
  if (inputs.length) inputs[0].focus();
})();
