"""Reports of a tournament output directory: per-bot Markdown and an offline HTML report.

``write_report(out_dir)`` (:mod:`harness.report.html`) is the entry point;
hand histories are read only through :func:`harness.report.hands.hand_view`.
"""
