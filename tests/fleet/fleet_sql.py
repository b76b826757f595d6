"""The schema and queries of docs/fleet.md, as the tests run them: each SQL
block of the document that starts with `-- query: NAME` or `-- schema: NAME`,
with its `{placeholders}` filled in."""

from __future__ import annotations

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "fleet.md"

_BLOCK = re.compile(r"```sql\n-- (query|schema): (\w+)\n(.*?)```", re.S)


def _blocks(kind: str) -> dict[str, str]:
    return {name: body.strip() for k, name, body in _BLOCK.findall(DOC.read_text()) if k == kind}


def queries() -> dict[str, str]:
    """name -> SQL text of every documented query."""
    return _blocks("query")


def schemas() -> dict[str, str]:
    """name -> the documented DDL."""
    return _blocks("schema")


def fill(sql: str, **values) -> str:
    """`sql` with each `{name}` replaced; every placeholder must be given."""
    def value(match):
        name = match.group(1)
        if name not in values:
            raise KeyError(f"no value for {{{name}}} in {sql!r}")
        return str(values[name])

    return re.sub(r"\{(\w+)\}", value, sql)


def rows_of(tsv: str) -> list[list[str]]:
    """TabSeparated output as rows of fields."""
    return [line.split("\t") for line in tsv.splitlines() if line]


def ns(ms_text: str) -> int:
    """A figure the queries give in milliseconds, back in exact nanoseconds."""
    return round(float(ms_text) * 1e6)
