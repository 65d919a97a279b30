"""Small HTML helpers shared by the report's pages: escaping, tables and the page shell.

Every page arena writes is one file that opens from disk: the style sheet is
inlined, nothing is fetched from a network.
"""

from __future__ import annotations

from html import escape
from importlib.resources import files
from numbers import Number
from typing import Any, Iterable, NamedTuple

from arena.errors import ReportError

STYLE = files("arena.report").joinpath("report.css").read_text(encoding="utf-8")


class Markup(str):
    """A string that is already HTML, put in a cell unescaped."""


class Cell(NamedTuple):
    """A table cell with a CSS class, an inline style or a tooltip."""

    value: Any
    css_class: str = ""
    style: str = ""
    title: str = ""


def cell(value: Any, tag: str = "td") -> str:
    """One table cell: numbers right-aligned (floats to two decimals), :class:`Markup` as is, the rest escaped."""
    attributes = ""
    if isinstance(value, Cell):
        for name, text in (("class", value.css_class), ("style", value.style), ("title", value.title)):
            if text:
                attributes += f' {name}="{escape(text)}"'
        value = value.value
    elif isinstance(value, Number) and not isinstance(value, bool):
        attributes = ' class="num"'
    if isinstance(value, Markup):
        content = str(value)
    elif isinstance(value, float):
        content = f"{value:.2f}"
    else:
        content = escape("" if value is None else str(value))
    return f"<{tag}{attributes}>{content}</{tag}>"


def table(head: Iterable[Any], rows: Iterable[Iterable[Any]], css_id: str | None = None) -> str:
    """An HTML table: a header row and body rows of :func:`cell` values."""
    ident = f' id="{escape(css_id)}"' if css_id else ""
    header = "".join(cell(value, "th") for value in head)
    body = "\n".join("<tr>" + "".join(cell(value) for value in row) + "</tr>" for row in rows)
    return f"<table{ident}>\n<thead><tr>{header}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def link(href: str, text: str) -> Markup:
    """An escaped ``<a>`` element."""
    return Markup(f'<a href="{escape(href)}">{escape(text)}</a>')


def page(title: str, body: str, script: str = "") -> str:
    """A complete HTML document with the shared style inlined and an optional inline script."""
    tail = f"<script>\n{script}</script>\n" if script else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{escape(title)}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"
        f"{body}\n{tail}</body>\n</html>\n"
    )


def write_text(path: Any, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8); :class:`ReportError` naming the file when that fails."""
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise ReportError(f"cannot write {path}: {error.strerror}") from None
