"""The column names of a CSV schema header (common/*_schema.h), read from its X-macro rows, for the plot
tests' synthetic CSVs: in order, the shared problem columns (common/node_problem_columns.h,
ARLAB_NODE_PROBLEM_COLUMNS) in their place, comments left out."""
import os
import re

_COLUMN = r"X\(\s*[^,()]+?\s*,\s*(\w+)\s*,"


def _read(root, name):
    with open(os.path.join(root, "common", name), encoding="utf-8") as f:
        return re.sub(r"//[^\n]*", "", f.read())


def schema_columns(root, name):
    shared = re.findall(_COLUMN, _read(root, "node_problem_columns.h"))
    cols = []
    for m in re.finditer(_COLUMN + r"|ARLAB_NODE_PROBLEM_COLUMNS\(X\)", _read(root, name)):
        cols.extend([m.group(1)] if m.group(1) else shared)
    return cols
