// Keyboard first: the reviewer's hands stay on the keys. Served from static/, no CDN.
(() => {
  "use strict";

  // A ticked checkbox or a pressed button takes no text: the keys go on working from it.
  const isTyping = (element) =>
    element instanceof HTMLElement &&
    (element.isContentEditable || ["TEXTAREA", "SELECT"].includes(element.tagName) ||
      (element.tagName === "INPUT" && !["checkbox", "radio", "button", "submit"].includes(element.type)));

  const queueRows = () => Array.from(document.querySelectorAll("[data-queue-row]"));

  function moveInQueue(step) {
    const rows = queueRows();
    if (rows.length === 0) return;
    const selected = rows.findIndex((row) => row.classList.contains("is-selected"));
    const next = selected < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, selected + step));
    rows.forEach((row) => row.classList.remove("is-selected"));
    rows[next].classList.add("is-selected");
    // Focusing the row's link makes Enter open it natively and shows the focus ring.
    rows[next].querySelector("a.open-case")?.focus();
  }

  // On a case page, j/k move between the claims to label instead; the focused row takes the label keys.
  const claimRows = () => Array.from(document.querySelectorAll("[data-claim-row]"));

  function moveInClaims(step) {
    const rows = claimRows();
    const current = rows.indexOf(document.activeElement?.closest("[data-claim-row]"));
    const next = current < 0 ? (step > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, current + step));
    rows[next].focus();
    rows[next].scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    if (claimRows().length > 0) moveInClaims(step);
    else moveInQueue(step);
  }

  function labelFocusedClaim(key) {
    const row = document.activeElement?.closest("[data-claim-row]");
    row?.querySelector(`[data-label-form] button[data-label-key="${key}"]`)?.click();
  }

  function openSelected() {
    const link = document.querySelector("[data-queue-row].is-selected a.open-case");
    if (link) window.location.assign(link.href);
  }

  function openDecision(name) {
    const panel = document.getElementById(`decide-${name}`);
    if (!panel) return;
    panel.open = true;
    panel.scrollIntoView({ block: "nearest" });
    panel.querySelector("textarea, select, input:not([type=hidden])")?.focus();
  }

  // The queue's own keys: search, saved filters, and (for review leads) ticking cases to act on together.
  function focusElement(element) {
    if (!element) return;
    element.focus();
    if (element instanceof HTMLInputElement) element.select();
    element.scrollIntoView({ block: "nearest" });
  }

  function toggleSelectedRow() {
    if (!document.querySelector("[data-queue-row].is-selected")) moveInQueue(0);
    document.querySelector("[data-queue-row].is-selected input[data-bulk-select]")?.click();
  }

  function toggleHelp() {
    const dialog = document.getElementById("keys-help");
    if (!dialog) return;
    if (dialog.open) dialog.close();
    else dialog.showModal();
  }

  // c: the comment form of the focused claim (j/k focus a claim first).
  function commentOnFocusedClaim() {
    const form = document.activeElement?.closest("[data-claim-row]")?.querySelector("[data-comment-form]");
    if (!form) return;
    form.open = true;
    form.querySelector("textarea")?.focus();
  }

  // u: the focused claim's last label if it can still be undone, else the reviewer's last decision.
  function undoLast() {
    const labelUndo = document.activeElement?.closest("[data-claim-row]")?.querySelector("[data-label-undo] button");
    (labelUndo ?? document.querySelector("[data-undo-decision]"))?.click();
  }

  // t: the error-tag menu of the focused claim, or of the answer when no claim has the focus; in the open
  // menu the digits toggle its kinds (not the label keys) and Esc closes it.
  const openTagMenu = () => document.activeElement?.closest("[data-tag-menu][open]");

  function tagMenu() {
    const row = document.activeElement?.closest("[data-claim-row]");
    const menu = (row ?? document.getElementById("tags-answer"))?.querySelector("[data-tag-menu]");
    if (!menu) return;
    menu.open = true;
    menu.scrollIntoView({ block: "nearest" });
    menu.querySelector("summary")?.focus();
  }

  // g: the constitution's guidelines for reviewers, beside the case.
  function toggleGuidelines() {
    const panel = document.getElementById("guidelines-panel");
    if (!panel) return;
    panel.open = !panel.open;
    if (panel.open) {
      panel.scrollIntoView({ block: "nearest" });
      panel.querySelector("summary")?.focus();
    }
  }

  const keys = {
    j: () => move(1),
    k: () => move(-1),
    1: () => labelFocusedClaim("1"),
    2: () => labelFocusedClaim("2"),
    3: () => labelFocusedClaim("3"),
    Enter: openSelected,
    n: () => document.getElementById("next-case-form")?.requestSubmit(),
    s: () => document.getElementById("skip-form")?.requestSubmit(),
    "/": () => focusElement(document.querySelector("#queue-filters input[name=q]")),
    f: () => focusElement(document.querySelector("#saved-filters nav a")),
    x: toggleSelectedRow,
    b: () => focusElement(document.querySelector("#bulk-form select")),
    a: () => openDecision("approve"),
    e: () => openDecision("edit"),
    r: () => openDecision("reject"),
    c: commentOnFocusedClaim,
    u: undoLast,
    g: toggleGuidelines,
    t: tagMenu,
    "?": toggleHelp,
  };

  document.addEventListener("keydown", (event) => {
    // Ctrl/Cmd+Enter sends the decision form being typed in.
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && isTyping(event.target)) {
      const form = event.target.closest("details[id^=decide-] form, [data-comment-form] form");
      if (form) {
        event.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    // Esc leaves the search box, so that j/k move in the queue again.
    if (event.key === "Escape" && event.target instanceof HTMLInputElement && event.target.name === "q") {
      event.target.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    const menu = openTagMenu();
    if (menu && /^[1-9]$/.test(event.key)) {
      event.preventDefault();
      menu.querySelector(`button[data-tag-key="${event.key}"]`)?.click();
      return;
    }
    if (menu && event.key === "Escape") {
      menu.open = false;
      (menu.closest("[data-claim-row]") ?? menu.querySelector("summary"))?.focus();
      return;
    }
    // Enter on a focused link or button keeps its native meaning.
    if (event.key === "Enter" && event.target instanceof HTMLElement && event.target.closest("a, button, summary")) return;
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  // A refusal that comes back as HTML saying why (400: the field at fault; 409: what changed, e.g. a
  // refused label's cell) is shown as a 200 would be, where the page marks it so: data-swap-errors="400 409"
  // on the requesting element, its target, or one of their ancestors. (Not hx-on: the CSP forbids eval.)
  document.addEventListener("htmx:beforeSwap", (event) => {
    const status = String(event.detail.xhr.status);
    const marked = [event.target, event.detail.requestConfig?.elt]
      .map((element) => (element instanceof Element ? element.closest("[data-swap-errors]") : null))
      .find((element) => element && element.dataset.swapErrors.split(/\s+/).includes(status));
    if (marked) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // A label clicked with the mouse takes its button away when the cell is swapped: give the focus back to
  // the claim's row, so j/k go on from there.
  let labelledRow = null;
  let taggedBlock = null;
  document.addEventListener("htmx:beforeRequest", (event) => {
    const source = event.detail.elt;
    if (source instanceof Element && source.closest("[data-tag-menu]")) taggedBlock = source.closest("[data-error-tags]")?.id;
    if (source instanceof Element && source.closest("[data-label-form], [data-label-undo], [data-comment-form]")) {
      labelledRow = source.closest("[data-claim-row]");
    }
  });
  document.addEventListener("htmx:afterSettle", (event) => {
    // The swapped tags come back with their menu open: keep the focus in it, so the next digit tags again.
    // Only on their own swap: the approval rule they refresh may settle first.
    const tags = event.target instanceof Element ? event.target.closest("[data-error-tags]") : null;
    if (tags && tags.id === taggedBlock) {
      tags.querySelector("[data-tag-menu] summary")?.focus();
      taggedBlock = null;
      labelledRow = null;
      return;
    }
    if (labelledRow?.isConnected && (document.activeElement === document.body || !document.activeElement)) labelledRow.focus();
    labelledRow = null;
  });

  // An undo offer leaves the page when its window ends (data-expires-in, seconds from when the server sent
  // it): the server refuses the undo from then on. On load, and for each piece htmx swaps in.
  const expiring = new WeakSet();
  function expireOffers() {
    document.querySelectorAll("[data-expires-in]").forEach((element) => {
      if (expiring.has(element)) return;
      expiring.add(element);
      window.setTimeout(() => element.remove(), Number(element.dataset.expiresIn) * 1000);
    });
  }
  expireOffers();
  document.addEventListener("htmx:load", expireOffers);

  // "Select every case on this page" ticks (or clears) each row's box.
  document.addEventListener("change", (event) => {
    if (!(event.target instanceof HTMLInputElement) || !event.target.matches("[data-bulk-all]")) return;
    document.querySelectorAll("input[data-bulk-select]").forEach((box) => {
      box.checked = event.target.checked;
    });
  });

  document.addEventListener("click", (event) => {
    if (!(event.target instanceof Element)) return;
    if (event.target.closest("[data-keys-help]")) toggleHelp();
    // A link to a decision form opens it, as its key does (the link alone would land on it closed).
    const decision = event.target.closest("[data-decision]");
    if (decision) {
      event.preventDefault();
      openDecision(decision.dataset.decision);
    }
  });
})();
