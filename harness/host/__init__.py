"""Hosting a bot: its process, its jail and its limits, apart from the match it plays in.

Modules, in the direction of their imports: ``placement`` (CPU pinning), ``cgroups`` (a control
group per bot), ``treelimits`` (limits per process tree where control groups cannot be made),
``usercache`` (the user's cache directory and when what it keeps is trusted),
``bpfcache`` (compiled seccomp programs, kept) and ``syscall_filter`` (the allow-list),
``sysinfo_supervisor`` (the referee answers a bot's sysinfo), ``marks`` (the marks in a bot's
environment, and the search for what a dead referee left), ``guardian`` (a run's bots die with
it, even after ``kill -9``), ``residency`` (every page a bot may read cached before it starts),
``probecache`` (the answers of its package probe, kept) and ``elfstrip`` (libraries without
debugging sections, kept) for ``privateview`` (a bot's own copies of the files it needs),
``sandbox`` (bubblewrap, a uid per seat, what a bot sees), ``botproc``
(one bot's subprocess: launch, limits, logs, stop), ``build`` (a submission's build: one command in a
bot's sandbox with its folder writable), ``trees`` (iterative, bounded walks and removal of a
student's folder, any depth), and
``startcause`` and ``tracebacks`` (why a bot did not start, its stderr read in any language).

:mod:`harness.match` uses this package; nothing here imports :mod:`harness.match`.
"""
