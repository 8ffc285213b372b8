"""kubectl's printing of the server's ``Table`` objects, as ``helm status --show-resources``
prints a release's resources (kubectl's ``TablePrinter`` over its human-readable printer).

Rules (k8s.io/cli-runtime's ``HumanReadablePrinter.PrintObj`` and ``printTable``):
- one printer prints every table of a command: a table's header row (its visible column names
  upper-cased) is left out when the previous table printed rows under the same columns; a
  table without rows prints nothing at all;
- visible columns are those of priority 0 (no ``-o wide``); a cell is its text, a number or
  other value as Go's ``%v`` prints it, nothing for null; text is cut at its first line break
  (``\\f``, ``\\n``, ``\\r``) with ``...``, and ESC shows as ``^[``;
- each table is aligned on its own (kubectl flushes one tab writer per object): Go's
  ``text/tabwriter`` with minimum width 6, padding 3, spaces, the last cell of a line unpadded.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TAB_MIN_WIDTH = 6
TAB_PADDING = 3
_BREAKS = "\f\n\r"


def _column_key(column: Mapping[str, Any]) -> tuple[Any, ...]:
    """A column definition as Go compares it (``reflect.DeepEqual`` of the decoded struct)."""
    return (column.get("name", ""), column.get("type", ""), column.get("format", ""),
            column.get("description", ""), column.get("priority", 0))


def cell_text(value: Any) -> str:
    """One cell as kubectl writes it (module rules)."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        from helm_core.gotemplate import gofmt
        text = gofmt.format_value(value)
    cut = min((i for i in (text.find(c) for c in _BREAKS) if i >= 0), default=-1)
    if cut >= 0:
        return text[:cut].replace("\x1b", "^[") + "..."
    return text.replace("\x1b", "^[")


class TablePrinter:
    """kubectl's human-readable printer of server ``Table`` objects (module rules)."""

    def __init__(self) -> None:
        self._last_columns: tuple[tuple[Any, ...], ...] | None = None
        self._printed_headers = False

    def print(self, table: Mapping[str, Any]) -> str:
        """The text kubectl prints for one ``Table``."""
        definitions = list(table.get("columnDefinitions") or [])
        columns = tuple(_column_key(c) for c in definitions)
        no_headers = self._printed_headers and (not columns or columns == self._last_columns)
        if not columns:
            columns = self._last_columns or ()
        elif columns != self._last_columns:
            self._last_columns = columns
            self._printed_headers = False
        rows = list(table.get("rows") or [])
        if rows:
            self._printed_headers = True
        if not rows:
            return ""
        visible = [i for i, column in enumerate(columns) if column[4] == 0]
        lines = [] if no_headers else ["\t".join(str(columns[i][0]).upper() for i in visible)]
        for row in rows:
            cells = list(row.get("cells") or [])
            lines.append("\t".join(cell_text(cells[i]) for i in visible if i < len(cells)))
        return align(lines)


def align(lines: Sequence[str]) -> str:
    """Go's ``text/tabwriter`` (kubectl's settings) over ``lines`` (tab-separated cells), each
    written with its newline."""
    cells = [line.split("\t") for line in lines]
    widths: list[int] = []
    out: list[str] = []

    def write(start: int, end: int) -> None:
        for line in cells[start:end]:
            out.append("".join(cell + " " * (widths[j] - len(cell)) if j < len(widths) else cell
                               for j, cell in enumerate(line)) + "\n")

    def format_block(start: int, end: int) -> None:
        column = len(widths)
        this = start
        while this < end:
            if column >= len(cells[this]) - 1:
                this += 1
                continue
            write(start, this)  # lines before the block: no cell in this column
            start = this
            width = TAB_MIN_WIDTH
            while this < end and column < len(cells[this]) - 1:
                width = max(width, len(cells[this][column]) + TAB_PADDING)
                this += 1
            widths.append(width)
            format_block(start, this)
            widths.pop()
            start = this
        write(start, end)

    format_block(0, len(cells))
    return "".join(out)


def resources_text(groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """helm's ``RESOURCES:`` section body: ``==> <group>`` then each table, a blank line after
    each group."""
    printer = TablePrinter()
    return "".join(f"==> {key}\n" + "".join(printer.print(t) for t in tables) + "\n"
                   for key, tables in groups.items())
