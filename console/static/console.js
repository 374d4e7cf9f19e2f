// Live updates of the pending approvals: the server sends an event when the
// set of pending tickets changes; the list is refetched and merged, so a
// ticket an operator is working on is never redrawn under them.
"use strict";
(function () {
  if (document.body.dataset.page !== "approvals") return;
  var list = document.getElementById("tickets");
  var live = document.getElementById("live");
  if (!list || !window.EventSource) return;
  var busy = false, again = false;

  function merge(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("tickets");
    if (!fresh) return;
    var want = {}, order = [];
    fresh.querySelectorAll("[data-ticket]").forEach(function (el) {
      want[el.dataset.ticket] = el;
      order.push(el.dataset.ticket);
    });
    list.querySelectorAll("[data-ticket]").forEach(function (el) {
      if (want[el.dataset.ticket] || el.classList.contains("gone")) return;
      // An operator working in this card (typing a reason) keeps it, marked,
      // rather than losing their place; a decision posted from it is then
      // answered with who decided first.
      if (el.contains(document.activeElement) && document.activeElement !== document.body) {
        el.classList.add("gone");
        var note = document.createElement("p");
        note.className = "notice";
        note.setAttribute("role", "status");
        note.textContent = "This call was decided elsewhere or expired.";
        el.prepend(note);
        return;
      }
      el.remove();
    });
    var added = 0, prev = null;
    order.forEach(function (id) {
      var cur = document.getElementById("t-" + id);
      if (!cur) {
        cur = document.importNode(want[id], true);
        cur.classList.add("new");
        if (prev) prev.after(cur); else list.prepend(cur);
        added++;
      }
      prev = cur;
    });
    var empty = document.getElementById("empty");
    if (order.length === 0 && !empty) {
      var p = document.createElement("p");
      p.className = "empty"; p.id = "empty";
      p.textContent = "No call is waiting for approval.";
      list.append(p);
    } else if (order.length > 0 && empty) {
      empty.remove();
    }
    if (added > 0) live.textContent = added + " new call" + (added > 1 ? "s" : "") + " waiting.";
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch("pending", { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(merge)
      .catch(function () { live.textContent = "could not refresh; reload the page."; })
      .finally(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  var es = new EventSource("events");
  es.addEventListener("open", function () { live.textContent = "live."; refresh(); });
  es.addEventListener("pending", refresh);
  es.addEventListener("error", function () { live.textContent = "reconnecting…"; });
})();
