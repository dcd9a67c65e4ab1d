// Interactivity of the page ``harness-conformance show --html`` writes; inlined, nothing fetched.
(function () {
  "use strict";
  var root = document.documentElement;
  var all = function (selector) { return Array.prototype.slice.call(document.querySelectorAll(selector)); };
  var violations = all(".violation");
  violations.forEach(function (node) {
    for (var up = node.parentElement; up; up = up.parentElement) {
      if (up.matches(".session, .turn, .step, .entry, details.chunks")) { up.classList.add("has-violation"); }
    }
  });
  var setOpen = function (open) { all("details.chunks").forEach(function (d) { d.open = open; }); };
  all("button[data-action]").forEach(function (button) {
    button.addEventListener("click", function () {
      setOpen(button.getAttribute("data-action") === "expand");
    });
  });
  var only = document.getElementById("violations-only");
  if (only) {
    only.addEventListener("change", function () { document.body.classList.toggle("violations-only", only.checked); });
  }
  var counts = {
    sessions: all(".session").length,
    turns: all(".turn").length,
    steps: all(".step").length,
    chunks: all(".chunk").length,
    toolCalls: all(".tool-call").length,
    errors: all(".error").length,
    violations: violations.length,
    invalidCalls: all(".invalid-call").length,
    uncheckedCalls: all(".unchecked-call").length
  };
  Object.keys(counts).forEach(function (key) { root.dataset[key] = String(counts[key]); });
  var shown = document.getElementById("script-status");
  if (shown) { shown.textContent = "interactive"; }
  root.dataset.ready = "1";
}());
