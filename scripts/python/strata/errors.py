"""The one exception the package raises for anything Strata rejects."""


class StrataError(Exception):
    """A failed `strata` command, or input the package cannot read.

    `exit_code` is the binary's exit status (2 for bad input: a bad override, a missing file, a
    malformed sweep) or None when the package itself found the problem before running anything.
    `message` is the binary's one-line error, so callers can show it as the CLI would."""

    def __init__(self, message, exit_code=None, command=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = command
        self.stderr = stderr

    def __str__(self):
        if self.exit_code is None:
            return self.message
        return f"{self.message} (exit code {self.exit_code})"


class StrataWarning(UserWarning):
    """Results that came back incomplete (a sweep with failed points) but are still usable."""
