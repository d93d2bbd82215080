#!/usr/bin/env bash
# Install the Debian packages the test suite needs, where this machine allows it.
#
# Used by `make test` and by `.ci/run`. Idempotent: silent when every package is
# present; installs what is missing as root where apt-get works; otherwise one
# WARNING line per package it cannot install (the tests that need it are then
# SKIPPED, each with one loud line; every other test still passes).
# SKIP_SYSTEM_DEPS=1 skips it altogether (nothing is checked or installed).
# Exit status 0 always: a missing package is a warning, never a failed build.
set -uo pipefail

# ---------------------------------------------------------------------------
# THE PACKAGE LIST: one package a line, "PACKAGE  COMMAND  WHY".
# COMMAND (or "-") is a program that also counts the package as present (e.g.
# installed from elsewhere, or on a system without dpkg). To add a package,
# add one line here; nothing else needs changing.
PACKAGES='
bubblewrap            bwrap     the bots sandbox (harness/host/sandbox.py; tests/test_sandbox.py)
libseccomp2           -         the sandbox syscall filter (harness/host/syscall_filter.py)
chromium              chromium  the report browser test (tests/test_report.py)
chromium-driver       -         the report browser test (tests/test_report.py)
default-jre-headless  java      Java bots
default-jdk-headless  javac     building the Java example bot (bots/java)
libzmq3-dev           -         C, C++ and Rust bots (ZeroMQ; bots/rust links the system libzmq)
libmsgpack-dev        -         C and C++ bots (MessagePack)
libzmq-java           -         Java bots (ZeroMQ)
libmsgpack-java       -         Java bots (MessagePack)
tmux                  tmux      terminal sessions of the interactive tests
gcc                   gcc       the C example bot and the static C binary of the syscall allow-list test
libc6-dev             -         static C binaries (libc.a) for the syscall allow-list test
make                  make      building the C and Java example bots
postgresql            -         the PostgreSQL tests of the contest server (tests/test_server.py)
'
# ---------------------------------------------------------------------------

[ "${SKIP_SYSTEM_DEPS:-}" = 1 ] && exit 0

warn() { echo "WARNING: install-system-deps: $*" >&2; }

present() {  # PACKAGE COMMAND: installed per dpkg, or COMMAND on PATH
  if command -v dpkg-query >/dev/null 2>&1 \
    && dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; then
    return 0
  fi
  [ "$2" != - ] && command -v "$2" >/dev/null 2>&1
}

missing=()
declare -A why
while read -r package command reason; do
  [ -z "$package" ] && continue
  why[$package]=$reason
  present "$package" "$command" || missing+=("$package")
done <<<"$PACKAGES"
[ ${#missing[@]} = 0 ] && exit 0

cannot() {  # WHY-NOT: one line per missing package
  for package in "${missing[@]}"; do
    warn "$package is missing and cannot be installed ($1); needed for ${why[$package]}: those tests will be SKIPPED"
  done
  exit 0
}
[ "$(id -u)" = 0 ] || cannot "not root; as root: apt-get install ${missing[*]}"
command -v apt-get >/dev/null 2>&1 || cannot "no apt-get here; install it with this system's package manager"

export DEBIAN_FRONTEND=noninteractive
# DPkg::Lock::Timeout: wait (up to 10 min) for another apt/dpkg (unattended upgrades, a second
# `make test`) to let go of the lock, instead of failing at once.
apt=(apt-get -qq -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -o Dpkg::Use-Pty=0
     -o "DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT:-600}")
apt_said=''
apt_run() {  # ARGS: apt-get quietly; on failure apt_said holds apt's own last error lines, on one line
  local out line errors=() all=()
  out=$("${apt[@]}" "$@" 2>&1) && return 0
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    all+=("$line")
    case $line in E:*) errors+=("$line") ;; esac
  done <<<"$out"
  [ ${#errors[@]} = 0 ] && errors=("${all[@]}")
  [ ${#errors[@]} -gt 2 ] && errors=("${errors[@]: -2}")
  apt_said="${errors[*]}"
  [ -n "$apt_said" ] || apt_said="apt-get said nothing"
  return 1
}
if ! apt_run update; then
  cannot "apt-get update failed: no network or no package source; apt-get said: $apt_said"
fi
# All at once (one dependency resolution); if that fails, one by one, so one
# unknown package does not keep the others out.
if ! apt_run install -y "${missing[@]}"; then
  for package in "${missing[@]}"; do
    apt_run install -y "$package" \
      || warn "could not install $package (apt-get install $package failed: $apt_said); needed for ${why[$package]}: those tests will be SKIPPED"
  done
fi
exit 0
