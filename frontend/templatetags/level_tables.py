"""`{% level_table %}`: a table of statistics per level, as the profile has four of (solo
games, no-guess games, dailies, races): the level, then one column of numbers a statistic; the
page's script fills the body. Each table names its statistics on one line, and they all share
one markup: `{% level_table "race-stats" _("Rating") _("Races") %}`. A heading with a note
after it: `_("Streak")|hint:_("now / best")`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import template

register = template.Library()


@dataclass(frozen=True)
class Column:
    label: str
    hint: str = ""


@register.filter
def hint(label: str, note: str) -> Column:
    return Column(label, note)


@register.inclusion_tag("frontend/_level_table.html")
def level_table(table_id: str, *columns: str | Column, hidden: bool = False) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "columns": [c if isinstance(c, Column) else Column(c) for c in columns],
        "hidden": hidden,
    }
