"""Running the binary: one place that turns a failed command into StrataError, and that stops
the binary with its caller (a SIGTERM or Ctrl-C of the Python process reaches the running
`strata`, which is waited for before the signal takes its course here)."""
import contextlib
import os
import signal
import subprocess
import threading

from .errors import StrataError
from .locate import find_binary


def call(args, cwd=None, ok=(0,)):
    """Runs `strata ARGS`, returning the CompletedProcess; any exit status outside `ok` raises.

    Output is captured: the binary's errors are one line on stderr, which becomes the
    exception's message. Its output is decoded as UTF-8 (bytes that are not become U+FFFD)."""
    command = [find_binary()] + [os.fspath(a) for a in args]
    try:
        child = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
    except OSError as e:
        raise StrataError(f"cannot run {command[0]}: {e}", command=command) from None
    with _signals_passed_on(child):
        out, err = child.communicate()
    proc = subprocess.CompletedProcess(command, child.returncode, out.decode("utf-8", "replace"),
                                       err.decode("utf-8", "replace"))
    if proc.returncode not in ok:
        raise StrataError(_message(proc), proc.returncode, command, proc.stderr)
    return proc


@contextlib.contextmanager
def _signals_passed_on(child):
    """While `child` runs: SIGTERM is passed on to it, and once it has ended (it leaves its
    marker, sim/interrupt.h) the signal is raised again here with the handler there was before
    (by default this process then ends by SIGTERM). KeyboardInterrupt (SIGINT) passes SIGINT on,
    waits for the child and is raised again. Signal handlers can only be set in the main thread;
    elsewhere the child is still ended and waited for on any exception."""
    main = threading.current_thread() is threading.main_thread()
    received = []

    def on_term(signum, frame):
        received.append(signum)
        _send(child, signum)

    old = None
    if main:
        current = signal.getsignal(signal.SIGTERM)
        if current is not signal.SIG_IGN:
            old = signal.signal(signal.SIGTERM, on_term)
    try:
        try:
            yield
        except BaseException as e:
            _send(child, signal.SIGINT if isinstance(e, KeyboardInterrupt) else signal.SIGTERM)
            _wait(child)
            raise
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    if received:
        _wait(child)
        os.kill(os.getpid(), signal.SIGTERM)


def _send(child, signum):
    if child.poll() is None:
        try:
            child.send_signal(signum)
        except OSError:
            pass


def _wait(child):
    """Waits for the child; a second interrupt while waiting kills it (as the binary's own second
    signal stops it at once) and still reaps it."""
    try:
        child.wait()
    except BaseException:
        child.kill()
        child.wait()
        raise


def _message(proc):
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if lines:
        return lines[-1].strip()  # the error line comes last, after any progress or warnings
    if proc.returncode < 0:
        return f"strata {proc.args[1]} was killed by signal {-proc.returncode}"
    return f"strata {proc.args[1]} failed with no message"
