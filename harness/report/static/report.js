// Draws every chart of the page with plotly.js from the figure JSON the report embedded.
(function () {
  document.querySelectorAll("[data-figure]").forEach(function (el) {
    var spec = JSON.parse(document.getElementById("fig-" + el.dataset.figure).textContent);
    Plotly.newPlot(el, spec.data, spec.layout, {displaylogo: false, responsive: true});
  });
})();
