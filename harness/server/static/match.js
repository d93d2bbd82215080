// The match page: the report's table viewer over the hands in #hands-data (JSON, never markup).
"use strict";
(function () {
  const viewer = document.getElementById("viewer");
  const options = { hands: JSON.parse(document.getElementById("hands-data").textContent) };
  if (viewer.dataset.everyoneLabel) options.everyoneLabel = viewer.dataset.everyoneLabel;
  SevenDrawViewer.mount(viewer, options);
})();
