// The review page: each card's box said by the keyboard alone. Enter takes the expected value,
// typing says what is written (then Enter), b says blank; each answer saves the sheet, and the
// sheet's later cards take their new expected values (carried from the cells confirmed so far).
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  let csrf = root.dataset.csrf;
  const cards = Array.from(root.querySelectorAll(".card"));
  const left = document.getElementById("left");

  function pending() { return cards.filter((c) => !c.classList.contains("done")); }

  function focusNext(from) {  // the first box left after `from` (null: from the top)
    const rest = pending();
    const after = rest.find((c) => cards.indexOf(c) > cards.indexOf(from)) || rest[0];
    if (left) left.textContent = root.dataset.left.replace("{n}", rest.length);
    if (after) {
      after.querySelector("input").focus();
      after.scrollIntoView({ block: "nearest" });
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
    const body = JSON.stringify({ key: card.dataset.key, value: value });
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
    card.classList.add("done");
    card.querySelector(".said-value").textContent = value === "" ? "␣" : value;
    input.value = value;
    input.readOnly = true;
    for (const other of pending()) {
      if (other.dataset.index === answer.index) {
        other.querySelector(".expected .value").textContent = expectedOf(answer.expected, other);
      }
    }
    focusNext(card);
  }

  root.addEventListener("keydown", (event) => {
    const input = event.target;
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
      send(card, typed === "" ? expected.replace(/\u2212/g, "-") : typed);
    } else if ((event.key === "b" || event.key === "B") && input.value === "") {
      event.preventDefault();
      send(card, "");
    }
  });
  if (cards.length) focusNext(null);
})();
