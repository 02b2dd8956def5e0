"""Running the binary: one place that turns a failed command into StrataError."""
import os
import subprocess

from .errors import StrataError
from .locate import find_binary


def call(args, cwd=None, ok=(0,)):
    """Runs `strata ARGS`, returning the CompletedProcess; any exit status outside `ok` raises.

    Output is captured: the binary's errors are one line on stderr, which becomes the
    exception's message."""
    command = [find_binary()] + [os.fspath(a) for a in args]
    try:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise StrataError(f"cannot run {command[0]}: {e}", command=command) from None
    if proc.returncode not in ok:
        raise StrataError(_message(proc), proc.returncode, command, proc.stderr)
    return proc


def _message(proc):
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if lines:
        return lines[-1].strip()  # the error line comes last, after any progress or warnings
    if proc.returncode < 0:
        return f"strata {proc.args[1]} was killed by signal {-proc.returncode}"
    return f"strata {proc.args[1]} failed with no message"
