// A student's sheet: type what is on the paper, hand it in, see what the teacher allows.
// Plain JavaScript, no build step, nothing from elsewhere (the page's CSP allows only this file).
(function () {
  "use strict";
  const root = document.getElementById("entry");
  let csrf = root.dataset.csrf;
  const words = JSON.parse(root.dataset.words);
  const shapes = JSON.parse(root.dataset.shapes);
  const inputs = Array.from(root.querySelectorAll("input.cell"));
  // What a hand-in says is said beside both Hand in buttons (the top one is off screen at the end).
  const statuses = [document.getElementById("status"), document.getElementById("status-end")].filter(Boolean);
  const status = {
    get textContent() { return statuses[0].textContent; },
    set textContent(text) { statuses.forEach((line) => { line.textContent = text; }); },
  };
  const draftKey = "attnsheet-student:" + location.pathname;

  const { at } = window.attnsheetSheet;
  const answers = () => window.attnsheetSheet.answers(inputs, shapes);
  const fill = (doc) => window.attnsheetSheet.fill(doc, inputs, window.attnsheetSheet.fit);

  // What the teacher allows: "received", or each box's verdict (and, if allowed, its expected value).
  // The focused box's verdict in words, and under "full" feedback what was expected there: shown
  // in a line at the foot of the screen (a phone has no hover; colour alone is not enough).
  const note = document.getElementById("note");
  function tell(input) {
    const verdict = input.dataset.verdict;
    if (!verdict || !words.verdicts[verdict]) { note.hidden = true; return; }
    let text = input.getAttribute("aria-label") + ": " + words.verdicts[verdict];
    if (input.dataset.expected) text += " — " + words.expected.replace("@", input.dataset.expected);
    note.textContent = text;
    note.hidden = false;
    // Just above the key bar, whatever its height (a larger text size wraps its keys).
    note.style.bottom = keys.hidden ? "0px" : keys.getBoundingClientRect().height + "px";
  }
  function show(result) {
    for (const input of inputs) { delete input.dataset.verdict; delete input.dataset.expected; input.title = ""; }
    if (result.status === "received") { status.textContent = words.received; return; }
    if (result.status !== "graded") return;
    status.textContent = words.graded.replace("{points}", result.points).replace("{total}", result.total);
    if (root.dataset.closed) {  // what is left of the attempts no longer matters: nothing more is taken
      status.textContent += " " + words.closed;
    } else if (result.attempts !== undefined) {
      const left = result.left === 1 ? words.left_one : words.left.replace("{left}", result.left);
      status.textContent += " " + (result.left > 0 ? left.replace("{attempts}", result.attempts) : words.none_left);
      if (result.left <= 0) buttons.forEach((button) => { button.disabled = true; });
    }
    for (const input of inputs) {
      const verdict = at(result.cells, input);
      if (verdict) input.dataset.verdict = verdict;
      // Its verdict in words, in its accessible description: said, not only shown by colour.
      if (words.verdicts[verdict]) input.setAttribute("aria-description", words.verdicts[verdict]);
      else input.removeAttribute("aria-description");
      const expected = result.expected && verdict === "wrong" ? at(result.expected, input) : null;
      if (expected !== null && expected !== undefined) {
        input.dataset.expected = expected;
        input.title = words.expected.replace("@", expected);
      }
    }
    const wrong = inputs.filter((input) => input.dataset.verdict === "wrong").length;
    if (wrong) status.textContent += " " + (result.expected ? words.wrong_full : words.wrong).replace("{wrong}", wrong);
    if (inputs.includes(document.activeElement)) tell(document.activeElement);
  }

  const saved = JSON.parse(root.dataset.saved || "{}");
  fill(saved);
  window.attnsheetSheet.untangle(root);
  let draft = null;
  try { draft = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (error) { draft = null; }
  if (draft) { window.attnsheetSheet.fill(draft, inputs, window.attnsheetSheet.fit, true); status.textContent = words.restored; }
  const keep = () => { try { localStorage.setItem(draftKey, JSON.stringify(answers())); } catch (error) { /* private mode */ } };
  inputs.forEach((input, k) => {
    input.addEventListener("input", () => { window.attnsheetSheet.fit(input); keep(); });
    input.addEventListener("focus", () => { input.select(); keys.hidden = false; tell(input); offer(input); clear(input); });
    // Out of the boxes (the hand-in button, the text): the key bar and the note go, nothing stays over the page.
    input.addEventListener("blur", () => setTimeout(() => {
      if (!inputs.includes(document.activeElement)) { keys.hidden = true; note.hidden = true; others.hidden = true; }
    }, 0));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && inputs[k + 1]) { event.preventDefault(); inputs[k + 1].focus(); }
    });
  });

  // The box in focus is never under the phone's key bar (or the line above it): the page moves up.
  function clear(input) {
    requestAnimationFrame(() => {
      // Whatever is shown at the foot (a phone's keys, the note, the photo's other reads; a wide
      // screen shows no keys, but the other reads all the same), the box stays above it.
      const note = document.getElementById("note");
      let top = Infinity;
      for (const bar of [keys, note, others]) {
        if (bar && !bar.hidden && bar.getBoundingClientRect().height) top = Math.min(top, bar.getBoundingClientRect().top);
      }
      if (top === Infinity) return;
      const box = input.getBoundingClientRect();
      if (box.bottom > top - 8) window.scrollBy(0, box.bottom - top + 16);
    });
  }

  // The keys a phone's number pad lacks; pressing one keeps the box in focus.
  const keys = document.getElementById("keys");
  keys.addEventListener("mousedown", (event) => event.preventDefault());
  keys.addEventListener("click", (event) => {
    const key = event.target.dataset.key, input = document.activeElement;
    if (!key || !input || !input.classList.contains("cell")) return;
    if (key === "next") { const next = inputs[inputs.indexOf(input) + 1]; if (next) next.focus(); return; }
    const at_ = input.selectionStart ?? input.value.length, end = input.selectionEnd ?? at_;
    input.value = input.value.slice(0, at_) + key + input.value.slice(end);
    input.setSelectionRange(at_ + 1, at_ + 1);
    keep();
  });

  // An unsure box's other reads from its photo, offered above the keys: a tap fills the box with one.
  const others = document.getElementById("others");
  others.addEventListener("mousedown", (event) => event.preventDefault());  // the box keeps the focus
  function offer(input) {
    const picks = JSON.parse(input.dataset.others || "[]");
    others.querySelectorAll("button").forEach((button) => button.remove());
    for (const pick of picks) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = pick.replace(/-/g, "−");
      button.addEventListener("click", () => {
        input.value = button.textContent;
        window.attnsheetSheet.fit(input);
        delete input.dataset.others;
        others.hidden = true;
        keep();
      });
      others.append(button);
    }
    others.hidden = !picks.length;
    const below = keys.hidden ? 0 : keys.getBoundingClientRect().height;
    others.style.bottom = below + (note.hidden ? 0 : note.getBoundingClientRect().height) + "px";
  }

  // A photo of the paper: each box filled as read; the unsure ones wait for a tap (confirmed) or a correction.
  const photoIn = document.getElementById("photo-in");
  const photos = [];
  const photoWords = photoIn ? JSON.parse(photoIn.dataset.words) : {};
  const photoStatus = document.getElementById("photo-status");
  const unsure = () => inputs.filter((input) => input.classList.contains("unsure"));
  function settle(input) {
    if (!input.classList.contains("unsure")) return;
    input.classList.remove("unsure");
    input.setAttribute("aria-description", photoWords.confirmed);
    const left = unsure().length;
    photoStatus.textContent = left ? photoWords.left.replace("{unsure}", left) : photoWords.checked;
  }
  inputs.forEach((input) => {
    input.addEventListener("focus", () => settle(input));  // one tap confirms the guess; the keys correct it
  });
  async function sendPhoto(file) {
    const body = new FormData();
    body.append("photo", file);
    const page = document.getElementById("photo-page");
    body.append("page", page ? page.value : "1");
    photoStatus.textContent = photoWords.reading;
    let response, result;
    try {
      response = await fetch(photoIn.dataset.photo, { method: "POST", headers: { "X-CSRF-Token": csrf }, body });
      result = await response.json();
      // Read on the server's queue: asked again until it is (a class's photos at once wait their turn);
      // the server holds each ask until it is read or a few seconds pass.
      const until = Date.now() + 180000;
      while (response.status === 202 && result.poll && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        response = await fetch(result.poll, { headers: { Accept: "application/json" } });
        const answer = await response.json();
        result = response.status === 202 ? { ...answer, poll: result.poll } : answer;
      }
    } catch (error) { photoStatus.textContent = words.gone; return; }
    if (response.status === 202) { photoStatus.textContent = words.gone; return; }
    if (!response.ok) { photoStatus.textContent = result.error || photoWords.refused; return; }
    photos.push(result.photo);
    let sure = 0;
    for (const box of result.boxes) {
      const input = inputs.find((o) => o.dataset.step === box.step && Number(o.dataset.i) === box.i &&
        Number(o.dataset.j) === box.j && o.dataset.head === (box.head === null ? "" : String(box.head)));
      if (!input) continue;
      input.value = box.value.replace(/-/g, "−");
      window.attnsheetSheet.fit(input);
      input.classList.toggle("unsure", !box.sure);
      if (!box.sure && box.others && box.others.length) input.dataset.others = JSON.stringify(box.others);
      else delete input.dataset.others;
      if (box.sure) { sure += 1; input.removeAttribute("aria-description"); }
      else input.setAttribute("aria-description", photoWords.unsure);
    }
    keep();
    const left = unsure().length;
    photoStatus.textContent = photoWords.read.replace("{sure}", sure).replace("{unsure}", left);
  }
  if (photoIn) {
    photoIn.querySelectorAll(".photo-file").forEach((field) => field.addEventListener("change", () => {
      if (field.files.length) sendPhoto(field.files[0]);
      field.value = "";
    }));
  }

  async function send() {
    const response = await fetch(root.dataset.handin, {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(photos.length ? { ...answers(), photos } : answers()),
    });
    return { status: response.status, body: await response.json() };
  }
  // Hand in at the top or at the end of the sheet; a sheet mostly blank is handed in only when asked twice.
  const buttons = [document.getElementById("handin"), document.getElementById("handin-end")].filter(Boolean);
  let askedAt = null;
  function label(text) { buttons.forEach((button) => { button.textContent = text; }); }
  inputs.forEach((input) => input.addEventListener("input", () => { if (askedAt !== null) { askedAt = null; label(words.handin); } }));
  buttons.forEach((button) => button.addEventListener("click", handIn));
  async function handIn() {
    if (unsure().length) {  // what the photo left unsure is checked by the student before it counts
      status.textContent = photoWords.left.replace("{unsure}", unsure().length);
      unsure()[0].scrollIntoView({ block: "center" });
      return;
    }
    const open = inputs.filter((input) => !input.disabled);
    const filled = open.filter((input) => input.value.trim() !== "").length;
    if (filled * 2 < open.length && askedAt !== filled) {
      askedAt = filled;
      status.textContent = words.few.replace("{filled}", filled).replace("{total}", open.length);
      label(words.anyway);
      return;
    }
    askedAt = null;
    label(words.handin);
    let result;
    try {
      result = await send();
      if (result.status === 403 && /CSRF/.test(result.body.error || "")) {  // a restarted server: a new token
        csrf = (await (await fetch("/api/csrf")).json()).csrf;
        result = await send();
      }
    } catch (error) { status.textContent = words.gone; return; }
    if (!result.body.handed_in) {
      status.textContent = words["refused_" + result.body.reason] || result.body.error || words.refused;
      return;
    }
    try { localStorage.removeItem(draftKey); } catch (error) { /* nothing kept */ }
    status.textContent = words.handed;
    show(result.body);
  }
  if (saved && saved.heads) {
    fetch(root.dataset.feedback).then((r) => r.json()).then(show).catch(() => {});
  }
})();
