/* The live site's poller (arena serve): keeps an open page up to date without reloading it.

   Every second it asks live.json (beside the page) for the store's state: the
   progress line and the status bar are redrawn from it at once; when the
   version a page would now be built from differs from this page's, the page
   is fetched again and its body swapped in (the same HTML `arena report`
   writes), the charts asked for anew once a minute at most. Nothing here reads text from the
   answers as HTML except the page the server built, whose every bot-supplied
   text is escaped. */
(function () {
  "use strict";
  var built = __VERSION__;  // the store's version this page was built from (filled in by the server)
  var busy = false;
  var bar = document.createElement("div");
  bar.id = "live-status";
  bar.setAttribute("role", "status");

  function mount() {
    if (!document.getElementById("live-status")) document.body.insertBefore(bar, document.body.firstChild);
  }

  function show(state) {
    var now = new Date().toLocaleTimeString();
    bar.className = state.status === "ok" ? "live" : "live problem";
    bar.textContent = state.status === "ok"
      ? "Live: updated " + now + (state.finished ? " (the run has played every game)" : "")
      : "Live, but " + state.message + " (checked " + now + "; the page shows what was read before)";
    var line = document.getElementById("progress-line");
    if (line && state.progress) line.textContent = state.progress;
  }

  function swap() {
    busy = true;
    var y = window.scrollY;
    fetch(window.location.pathname, {cache: "no-store"}).then(function (answer) {
      var version = answer.headers.get("X-Arena-Version");
      return answer.text().then(function (text) {
        if (!answer.ok) return;
        var fresh = new DOMParser().parseFromString(text, "text/html");
        fresh.querySelectorAll("script").forEach(function (node) { node.remove(); });
        document.body.replaceChildren.apply(document.body, Array.from(fresh.body.childNodes));
        var minute = Math.floor(Date.now() / 60000);  // the server redraws a chart at most once a minute
        document.querySelectorAll("img").forEach(function (image) {
          image.src = image.getAttribute("src").split("?")[0] + "?v=" + minute;
        });
        mount();
        window.scrollTo(0, y);
        if (version) built = version;
      });
    }).catch(function () { /* the next poll tries again */ }).finally(function () { busy = false; });
  }

  function poll() {
    if (busy) return;
    fetch("live.json", {cache: "no-store"}).then(function (answer) { return answer.json(); }).then(function (state) {
      show(state);
      if (state.status === "ok" && state.page !== built) swap();
    }).catch(function () {
      bar.className = "live problem";
      bar.textContent = "Live, but the server does not answer (stopped?); the page shows what was read before";
    });
  }

  mount();
  poll();
  window.setInterval(poll, 1000);
})();
