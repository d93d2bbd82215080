"""The student page's rating chart: the report's figure over the board's rating points, plotly.js served locally."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from harness.report.trend import rating_points_history
from harness.server.app import plotly_js, rating_chart

POINTS = [
    {"bot": "alice.v1", "t": 100.0, "mu": 25.0, "sigma": 8.0},
    {"bot": "alice.v2", "t": 300.0, "mu": 27.0, "sigma": 6.0},
    {"bot": "alice.v1", "t": 200.0, "mu": 24.0, "sigma": 7.0},
]


def test_each_bot_holds_its_last_rating_between_its_own_points() -> None:
    steps, lines = rating_points_history(POINTS)
    assert steps == ["100.0", "200.0", "300.0"]
    v1, v2 = lines
    assert (v1.bot, v1.value) == ("alice.v1", [25.0, 24.0, 24.0])
    assert (v2.bot, v2.value) == ("alice.v2", [None, None, 27.0])
    assert v1.low[0] == 25.0 - 1.96 * 8.0 and v2.high[2] == 27.0 + 1.96 * 6.0 and v2.low[0] is None


def test_the_chart_is_the_report_figure_with_uploads_marked() -> None:
    assert rating_chart([], []) is None  # "no complete block yet"
    figure = json.loads(rating_chart(POINTS, [(50.0, "alice.v1"), (250.0, "alice.v2")]) or "")
    named = [t["name"] for t in figure["data"] if "name" in t]
    assert named == ["alice.v1", "alice.v2"]  # one line per version, plus its band
    assert len(figure["data"]) == 6
    # the upload before the first block is outside the chart; v2's came between steps 2 and 3
    assert [s["x0"] for s in figure["layout"]["shapes"]] == [2.5]
    assert [a["text"] for a in figure["layout"]["annotations"]] == ["alice.v2"]


def test_plotly_js_comes_from_the_installed_package() -> None:
    response = asyncio.run(plotly_js(cast(Any, None)))  # the request is not read
    assert response.media_type == "text/javascript"
    with open(response.path, "rb") as f:
        assert b"plotly" in f.read(4096).lower()


def test_the_charts_x_axis_shows_whole_block_numbers() -> None:
    """Three blocks once showed ticks at 1, 1.5, 2, 2.5, 3: the axis now steps by whole blocks (about ten ticks at
    most), and the figure stays safe inside a <script> element."""
    layout = json.loads(rating_chart(POINTS, []) or "")["layout"]
    assert layout["xaxis"]["tickmode"] == "linear" and layout["xaxis"]["dtick"] == 1
    assert layout["xaxis"]["tick0"] == 1 and layout["xaxis"]["tickformat"] == "d"
    many = [{"bot": "alice.v1", "t": float(t), "mu": 25.0, "sigma": 8.0} for t in range(35)]
    assert json.loads(rating_chart(many, []) or "")["layout"]["xaxis"]["dtick"] == 4
    assert "</" not in (rating_chart([{"bot": "</script>.v1", "t": 1.0, "mu": 1.0, "sigma": 1.0}], []) or "")
