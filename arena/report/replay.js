/* The replay viewer: steps through the frames embedded in the page as JSON.
   Frames are prepared by arena (arena/report/replay_page.py); this script only
   draws one at a time: its label, what happened, and its panels (tables whose
   cells are text, a money figure, or a row of coloured cards, each card a key
   of the page's table of chips). */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var frames = data.frames;
  var palette = data.palette;
  var chips = data.chips;
  var slider = document.getElementById("slider");
  var position = document.getElementById("position");
  var view = document.getElementById("frame");
  var current = 0;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(key) {  // a key of data.chips: [label, palette name, tooltip (optional)]
    var spec = chips[key];
    var colours = palette[spec[1]] || ["#ddd", "#000"];
    var chip = element("span", "card", spec[0]);
    chip.style.background = colours[0];
    chip.style.color = colours[1];
    if (spec[2]) chip.title = spec[2];
    return chip;
  }

  function cell(tag, value) {
    var node = element(tag);
    if (value === null || value === undefined) return node;
    if (typeof value !== "object") {
      node.textContent = String(value);
      if (typeof value === "number") node.className = "num";
    } else if (value.cards) {
      if (!value.cards.length) node.appendChild(element("span", "none", "none"));
      value.cards.forEach(function (key) { node.appendChild(card(key)); });
      if (value.text) node.appendChild(element("span", "after", value.text));
    } else {
      node.textContent = String(value.text);
      if (value["class"]) node.className = value["class"];
    }
    return node;
  }

  function panel(spec) {
    var box = element("section", "panel");
    box.appendChild(element("h3", null, spec.title));
    var table = element("table");
    if (spec.head) {
      var headRow = element("tr");
      spec.head.forEach(function (text) { headRow.appendChild(cell("th", text)); });
      table.appendChild(element("thead")).appendChild(headRow);
    }
    var body = table.appendChild(element("tbody"));
    spec.rows.forEach(function (row, index) {
      var tr = body.appendChild(element("tr"));
      if (spec.highlight === index) tr.className = "highlight";
      row.forEach(function (value) { tr.appendChild(cell("td", value)); });
    });
    box.appendChild(table);
    if (spec.note) box.appendChild(element("p", "note", spec.note));
    return box;
  }

  function show(index) {
    current = Math.max(0, Math.min(frames.length - 1, index));
    var frame = frames[current];
    view.textContent = "";
    view.appendChild(element("h2", "label", frame.label));
    view.appendChild(element("p", "next", frame.next));
    var happened = element("section", "happened");
    happened.appendChild(element("h3", null, "What happened"));
    var list = happened.appendChild(element("ul"));
    if (!frame.events.length) list.appendChild(element("li", "none", "nothing visible"));
    frame.events.forEach(function (line) { list.appendChild(element("li", null, line)); });
    view.appendChild(happened);
    var panels = element("div", "panels");
    frame.panels.forEach(function (spec) { panels.appendChild(panel(spec)); });
    view.appendChild(panels);
    slider.value = String(current);
    position.textContent = "step " + current + " of " + (frames.length - 1);
  }

  // a panel or row written as 0 is the same as in the frame before (see unchanged_as_zero)
  frames.forEach(function (frame, index) {
    var before = index ? frames[index - 1].panels : [];
    frame.panels = frame.panels.map(function (panel, number) {
      if (panel === 0) return before[number];
      panel.rows = panel.rows.map(function (row, at) { return row === 0 ? before[number].rows[at] : row; });
      return panel;
    });
  });

  slider.max = String(frames.length - 1);
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.getElementById("first").addEventListener("click", function () { show(0); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  document.getElementById("last").addEventListener("click", function () { show(frames.length - 1); });
  document.addEventListener("keydown", function (event) {
    if (event.target === slider) return;  // the slider steps itself with the arrow keys
    var moves = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: frames.length - 1};
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  document.getElementById("viewer").hidden = false;
  show(0);
})();
