"""Reading a CSV by column name with one-line errors, for the scripts (standard library only, as
measurement_headline.py): a file that cannot be opened or decoded, or that lacks a needed column, ends the
script with `TOOL: ...` naming the file, never a traceback.
"""

import csv
import sys


def read_rows(path, tool, needed, what="a measurement CSV (common/measurement_schema.h)"):
    """The rows of `path` as dicts; exits with one line when it cannot be read or lacks a column of `needed`."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in needed if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"{tool}: {path} is not {what} (no column {', '.join(missing)})")
            return list(reader)
    except OSError as e:
        sys.exit(f"{tool}: cannot read {path}: {e.strerror or e}")
    except (UnicodeDecodeError, csv.Error) as e:
        sys.exit(f"{tool}: cannot read {path} as CSV: {e}")
