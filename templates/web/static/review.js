// The review page: each card's box said by the keyboard alone. Enter takes the expected value,
// typing says what is written (then Enter), b says blank; each answer saves the sheet, and the
// sheet's later cards take their new expected values (carried from the cells confirmed so far):
// a card whose value moved says so and takes it on a second Enter. u or Backspace undoes.
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  let csrf = root.dataset.csrf;
  const cards = Array.from(root.querySelectorAll(".card"));
  const left = document.getElementById("left");

  function pending() { return cards.filter((c) => !c.classList.contains("done")); }

  function focusNext(from, scroll = true) {  // the first box left after `from` (null: from the top)
    const rest = pending();
    const after = rest.find((c) => cards.indexOf(c) > cards.indexOf(from)) || rest[0];
    if (left) left.textContent = root.dataset.left.replace("{n}", rest.length);
    if (after) {
      after.querySelector("input").focus({ preventScroll: !scroll });
      if (scroll) after.scrollIntoView({ block: "nearest" });
    } else {
      const done = document.getElementById("done");
      done.hidden = false;
      document.getElementById("done-link").focus();
    }
  }

  function expectedOf(expected, card) {
    const head = Number(card.dataset.head);
    const grids = head ? (expected.heads || [])[head - 1] || {} : expected;
    const grid = grids[card.dataset.step];
    if (!grid) return "";
    const col = Number(card.dataset.col) - 1;
    return card.dataset.step === "sums" ? grid[col] || "" : (grid[Number(card.dataset.row) - 1] || [])[col] || "";
  }

  async function send(card, value) {
    const input = card.querySelector("input");
    input.disabled = true;
    // An undone box says what it was said to hold: the server takes the change only from that.
    const body = JSON.stringify("said" in card.dataset ? { key: card.dataset.key, value: value, was: card.dataset.said }
                                                       : { key: card.dataset.key, value: value });
    let response = await fetch(root.dataset.api, { method: "POST", body: body,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
    if (response.status === 403) {  // a restarted server: its new token, then once more
      csrf = (await (await fetch("/api/csrf")).json()).csrf;
      response = await fetch(root.dataset.api, { method: "POST", body: body,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
    }
    const answer = await response.json().catch(() => ({ error: String(response.status) }));
    input.disabled = false;
    if (!response.ok) {
      card.querySelector(".said-value").textContent = answer.error || String(response.status);
      input.focus();
      return;
    }
    card.dataset.said = value;
    card.classList.add("done");
    card.classList.remove("changed");
    card.querySelector(".changed-note").textContent = "";
    delete card.dataset.was;
    card.querySelector(".said-value").textContent = value === "" ? "␣" : value;
    input.value = value;
    input.readOnly = true;
    answered.push(card);
    for (const other of pending()) {
      if (other.dataset.index === answer.index) {
        const shown = other.querySelector(".expected .value"), now = expectedOf(answer.expected, other);
        // An expectation that moved is said, and Enter takes it only when asked twice.
        if (shown.textContent !== now) {
          if (!("was" in other.dataset)) other.dataset.was = shown.textContent;
          other.classList.toggle("changed", other.dataset.was !== now);
          other.querySelector(".changed-note").textContent =
            other.dataset.was !== now ? root.dataset.changed.replace("{was}", other.dataset.was || "–") : "";
          shown.textContent = now;
          delete other.dataset.armed;
        }
      }
    }
    focusNext(card);
  }

  // Undo: the last box answered (or the one in focus, if answered) is open to answer again.
  const answered = [];
  function reopen(card) {
    const input = card.querySelector("input");
    card.classList.remove("done");
    input.readOnly = false;
    input.value = "";
    card.querySelector(".said-value").textContent = root.dataset.reopened;
    const i = answered.lastIndexOf(card);
    if (i >= 0) answered.splice(i, 1);
    if (left) left.textContent = root.dataset.left.replace("{n}", pending().length);
    document.getElementById("done").hidden = true;
    input.focus();
    card.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", (event) => {
    const input = event.target;
    // The page's other fields (a page to assign to a student) take their keys as they are.
    if (input.matches && input.matches("input, select, textarea") && !input.classList.contains("said")) return;
    const undo = event.key === "u" || event.key === "U" || event.key === "Backspace";
    if (undo && input.classList && input.classList.contains("said") && input.readOnly) {
      event.preventDefault();  // a box answered already, in focus: open it again
      reopen(input.closest(".card"));
      return;
    }
    if (undo && (!input.classList || !input.classList.contains("said") || input.value === "") && answered.length) {
      event.preventDefault();
      reopen(answered[answered.length - 1]);
      return;
    }
    if (!input.classList || !input.classList.contains("said") || input.readOnly) return;
    const card = input.closest(".card");
    if (event.key === "Enter") {
      event.preventDefault();
      const typed = input.value.trim();
      const expected = card.querySelector(".expected .value").textContent;
      if (typed === "" && expected === "") {
        card.querySelector(".said-value").textContent = root.dataset.none;
        return;
      }
      if (typed === "" && card.classList.contains("changed") && card.dataset.armed !== "1") {
        card.dataset.armed = "1";  // the value moved since the crop was first shown: Enter once more to take it
        card.querySelector(".said-value").textContent = root.dataset.again.replace("{value}", expected);
        return;
      }
      send(card, typed === "" ? expected.replace(/\u2212/g, "-") : typed);
    } else if ((event.key === "b" || event.key === "B") && input.value === "") {
      event.preventDefault();
      send(card, "");
    }
  });
  // Pages not identified are listed above the boxes: the page opens at the top, where they are.
  if (cards.length) focusNext(null, !document.getElementById("unidentified"));
})();
