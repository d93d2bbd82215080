"""The contest server (``harness serve contest.toml``): submissions, admission, a ladder, pages.

Modules, one job each: :mod:`.contest` (the contest file), :mod:`.db` (the
database and its migrations), :mod:`.tokens` (login links), :mod:`.unpack`
(safe unpacking of uploads), :mod:`.admission` (a version's build and entry check),
:mod:`.folders` (a version's folder as pages show it: its files, its code, the export),
:mod:`.hostpaths` (what a student is shown of the machine: no host path),
:mod:`.ladder` (the background loop), :mod:`.final` (the final: its plan, its run, its
progress) and :mod:`.race` (a racing final's rounds), :mod:`.board` (the leaderboard from stored
results), :mod:`.matchhands` (a match page's hands, and a notice for each line that cannot be
shown), :mod:`.app` (the web application), :mod:`.client` (``harness submit``).
"""
