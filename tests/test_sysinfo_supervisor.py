"""The referee's answer to a bot's sysinfo(2) (harness.host.sysinfo_supervisor), without bubblewrap.

A child loads the filter as a bot does (the ``child`` of :func:`prepare`, before ``exec``), the test
runs the supervisor, and the child calls sysinfo through glibc, the x32 ABI and ``int 0x80`` (i386,
``struct compat_sysinfo``), from many threads at once, with a bad pointer, and after the supervisor
is gone (then the kernel fails the call: never a hang).
"""

from __future__ import annotations

import json
import platform
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.host import sandbox as sb
from harness.host import sysinfo_supervisor as ss
from harness.specs import SandboxMode, SandboxSettings
from tests.sandbox_helpers import SUPPORT as SANDBOX
from tests.sandbox_helpers import counter_colluders

SUPPORT = ss.support()
needs_notif = pytest.mark.skipif(not SUPPORT.ok, reason=f"SYSINFO SUPERVISOR TEST SKIPPED: {SUPPORT.problem}")

#: The child: calls sysinfo as told (argv[1]: "abis", "threads", "after-close") and prints JSON.
CHILD = r"""
import ctypes, errno, json, mmap, os, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
LAYOUT64 = struct.Struct("=q3Q6QHH4xQQI4x")
LAYOUT32 = struct.Struct("=i3I6IHHIII8x")

def fields(layout, raw):
    v = layout.unpack(raw)
    return {"uptime": v[0], "loads": list(v[1:4]), "totalram": v[4], "freeram": v[5], "totalswap": v[8],
            "procs": v[10], "mem_unit": v[14]}

def code(hex_code, restype, *argtypes):
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(bytes.fromhex(hex_code))
    pages.append(page)
    return ctypes.CFUNCTYPE(restype, *argtypes)(ctypes.addressof(ctypes.c_char.from_buffer(page)))

pages = []
def native():
    buf = ctypes.create_string_buffer(LAYOUT64.size)
    if libc.sysinfo(buf) != 0:
        return {"errno": ctypes.get_errno()}
    return fields(LAYOUT64, buf.raw)

def abis():
    out = {"native": native()}
    libc.sysinfo.argtypes = [ctypes.c_void_p]
    out["null"] = {"errno": ctypes.get_errno() if libc.sysinfo(None) else 0}
    # x32: mov eax,edi; mov rdi,rsi; syscall; ret
    x32 = code("89f84889f70f05c3", ctypes.c_long, ctypes.c_long, ctypes.c_void_p)
    buf = ctypes.create_string_buffer(LAYOUT64.size)
    got = x32(0x40000000 | 99, ctypes.addressof(buf))
    out["x32"] = fields(LAYOUT64, buf.raw) if got == 0 else {"errno": -got}
    # i386 (int 0x80), with a buffer below 4 GiB: push rbx; mov eax,edi; mov ebx,esi; int 0x80; pop rbx; ret
    i386 = code("5389f889f3cd805bc3", ctypes.c_int, ctypes.c_int, ctypes.c_int)
    low = libc.mmap(None, 4096, 3, 0x22 | 0x40, -1, 0)  # PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS|MAP_32BIT
    got = i386(116, low)
    out["i386"] = fields(LAYOUT32, ctypes.string_at(low, LAYOUT32.size)) if got == 0 else {"errno": -got}
    return out

def threads():
    got = []
    def run():
        for _ in range(50):
            got.append(native()["procs"])
    ts = [threading.Thread(target=run) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return {"calls": len(got), "procs": sorted(set(got))}

def after_close():
    print("started", flush=True)  # the interpreter's own start-up calls have been answered
    sys.stdin.readline()  # the supervisor has been closed
    return native()

print(json.dumps({"abis": abis, "threads": threads, "after-close": after_close}[sys.argv[1]]()), flush=True)
"""


def run_child(what: str, total: int, close_first: bool = False) -> tuple[dict, ss.Supervisor]:
    prepared = ss.prepare()
    assert prepared is not None
    proc = subprocess.Popen([sys.executable, "-c", CHILD, what], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            preexec_fn=prepared.child)
    listener = prepared.listener()
    assert listener is not None
    supervisor = ss.Supervisor(listener, total, "test")
    try:
        if close_first:
            assert proc.stdout.readline() == b"started\n"  # type: ignore[union-attr]  # the event, not a time
            supervisor.close()
            proc.stdin.write(b"go\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        out, _ = proc.communicate(timeout=300)  # an outer limit only
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, out
    return json.loads(out), supervisor


@needs_notif
@pytest.mark.skipif(platform.machine() != "x86_64", reason="SYSINFO ABI TEST SKIPPED: x86-64 only")
def test_every_abi_gets_the_fixed_answer_and_a_bad_pointer_efault() -> None:
    got, supervisor = run_child("abis", 300 << 20)
    for abi in ("native", "x32", "i386"):
        assert got[abi]["procs"] == ss.PROCS == 1, (abi, got)
        assert got[abi]["totalram"] == got[abi]["freeram"] == 300 << 20, (abi, got)
        assert got[abi]["loads"] == [0, 0, 0] and got[abi]["totalswap"] == 0 and got[abi]["mem_unit"] == 1, got
        with open("/proc/uptime") as fh:
            assert abs(got[abi]["uptime"] - float(fh.read().split()[0])) < 60, got
    assert got["null"] == {"errno": 14}, got  # EFAULT, as the kernel answers a bad pointer
    deadline = time.monotonic() + 300  # an outer limit only
    while supervisor._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not supervisor._thread.is_alive(), "the supervisor ends when its bot is gone"
    assert supervisor.failed == 1
    supervisor.close()


@needs_notif
def test_calls_from_many_threads_are_all_answered() -> None:
    got, supervisor = run_child("threads", 64 << 20)
    assert got == {"calls": 400, "procs": [1]}
    assert supervisor.answered >= 400
    supervisor.close()


@needs_notif
def test_without_a_supervisor_the_call_fails_instead_of_hanging() -> None:
    """Once the listener is closed (the bot outlived its match, or the referee died), the kernel fails
    every sysinfo of the bot with ENOSYS (seccomp_unotify(2)); it never waits."""
    got, _ = run_child("after-close", 64 << 20, close_first=True)
    assert got == {"errno": 38}, got


def test_the_answer_fits_each_layout() -> None:
    native = ss.answer(0xC000003E, 300 << 20, uptime_s=77)
    assert len(native) == 112
    uptime, *loads = struct.unpack_from("=q3Q", native)
    assert uptime == 77 and loads == [0, 0, 0]
    assert struct.unpack_from("=QQ", native, 32) == (300 << 20, 300 << 20)
    assert struct.unpack_from("=H", native, 80) == (1,) and struct.unpack_from("=I", native, 104) == (1,)
    big = ss.answer(0x40000003, 16 << 30, uptime_s=5)  # 16 GiB does not fit 32 bits: mem_unit scales
    assert len(big) == 64
    ram, free = struct.unpack_from("=II", big, 16)
    (unit,) = struct.unpack_from("=I", big, 52)
    assert ram * unit == 16 << 30 and ram == free and ram <= 0xFFFFFFFF and unit == 8


def test_without_user_notification_the_sandbox_starts_warns_and_required_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel without seccomp user notification (before Linux 5.0): bots still start in the sandbox and
    get the kernel's sysinfo (the channel is open again, and the warning says so); "required" refuses."""
    if not SANDBOX.namespaces:
        pytest.skip(f"SANDBOX TEST SKIPPED: bubblewrap cannot run here ({SANDBOX.namespaces_problem})")
    monkeypatch.setattr(ss, "support", lambda: ss.SysinfoSupport(None, "the kernel has no seccomp user notification"))
    auto = SandboxSettings(mode=SandboxMode.AUTO, scratch_mb=8)
    plan = sb.decide_isolation(auto)
    if not plan.syscall_filter:
        pytest.skip("SANDBOX TEST SKIPPED: no seccomp allow-list here, whose absence the warning names instead")
    assert plan.namespaces and not plan.sysinfo
    assert plan.warning is not None and "task count of sysinfo(2)" in plan.warning, plan.warning
    with pytest.raises(sb.SandboxError, match="sysinfo"):
        sb.decide_isolation(SandboxSettings(mode=SandboxMode.REQUIRED))
    tmp_path.chmod(0o755)
    _, _, receiver = counter_colluders(tmp_path, "sysinfo", auto, hands=20)
    assert receiver["sysinfo"].startswith("SUCCEEDED"), receiver  # started, played, and read the kernel's count


def test_a_bot_that_calls_sysinfo_in_a_loop_is_paced_not_the_referee() -> None:
    """An answer costs the referee CPU: BURST calls at once, then RATE per second (the bot waits)."""
    pacer = ss.Pacer(burst=3, rate=10)
    assert [pacer.delay(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert pacer.delay(0.0) == pytest.approx(0.1)  # the fourth waits for a token
    assert pacer.delay(0.0) == pytest.approx(0.2)
    assert pacer.delay(10.0) == 0.0  # refilled (to the burst, no more) after a pause
    assert [pacer.delay(10.0) for _ in range(2)] == [0.0, 0.0] and pacer.delay(10.0) > 0
