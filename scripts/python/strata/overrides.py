"""Python values as the YAML text `--set key=value` takes (flow style: one line per override)."""
import json
import math
import re
from collections.abc import Mapping

from .errors import StrataError

# Texts YAML would read as something other than a string, or whose first character starts
# other syntax (a list, an alias, a tag, a quote, a comment...).
_SPECIAL = {"", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"}
_INDICATOR_START = set("-?:,[]{}#&*!|>'\"%@`")
# Flow collections end at these, so a plain text must not hold them (the same rule everywhere
# keeps a value's text independent of where it sits).
_UNSAFE_INSIDE = re.compile(r"[,\[\]{}]|: |:$| #|[\x00-\x1f\x7f]")


def _text(s):
    """A string as a plain scalar when YAML reads it back unchanged, double-quoted otherwise.

    Plain keeps the file-like look ("1.6 GHz", int8); quoting is harmless either way because the
    schema reads a quoted "16" as the number 16, so only the edge cases need it."""
    plain = (s not in _SPECIAL and s == s.strip() and not _UNSAFE_INSIDE.search(s)
             and (s[0] not in _INDICATOR_START or (s[0] == "-" and len(s) > 1 and s[1] != " ")))
    # JSON's string syntax is a subset of YAML's double-quoted style.
    return s if plain else json.dumps(s, ensure_ascii=False)


def to_yaml(value):
    """One-line YAML for a value: numbers, texts (with units: "1.6 GHz"), lists, dicts, bools, None."""
    if type(value).__module__ == "numpy":
        # Arrays as lists, scalars (np.int64, np.float64, np.bool_) as Python's own: no import
        # of numpy needed to recognise them.
        value = value.tolist()
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_text(str(k))}: {to_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_yaml(v) for v in value) + "]"
    if hasattr(value, "__fspath__"):  # a pathlib.Path names a file
        return _text(str(value))
    raise StrataError(f"cannot write a {type(value).__name__} as a config value: {value!r}")


def set_args(overrides):
    """`--set key=value` arguments for a mapping of dotted config keys to values."""
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise StrataError(f"overrides must be a dict of config keys to values, not {type(overrides).__name__}")
    args = []
    for key, value in overrides.items():
        if not isinstance(key, str) or not key or "=" in key:
            raise StrataError(f"bad override key {key!r}: expected a dotted config key such as 'hardware.clock'")
        args += ["--set", f"{key}={to_yaml(value)}"]
    return args
