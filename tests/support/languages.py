"""What the pages say in each page language (keyed by the code <html lang> gives): the browser
locale that asks for it, the how-to-play page's heading, and the label the scripts' catalogue
gives the first closed cell of a board. The HTTP test (tests/frontend/test_translations.py) and
the browser tests (tests/browser/test_languages.py, test_world_languages.py) expect these words."""

from __future__ import annotations

from typing import NamedTuple


class Language(NamedTuple):
    locale: str
    heading: str
    closed_cell: str


PAGE_LANGUAGES = {
    "en": Language("en-GB", "The rules of Démineur", "closed, column 1, row 1"),
    "fr": Language("fr-FR", "Les règles du Démineur", "couverte, colonne 1, ligne 1"),
    "es": Language("es-ES", "Las reglas de Démineur", "cerrada, columna 1, fila 1"),
    "de": Language("de-DE", "Die Regeln von Démineur", "verdeckt, Spalte 1, Zeile 1"),
    "pt-br": Language("pt-BR", "As regras do Démineur", "fechada, coluna 1, linha 1"),
    "zh-hans": Language("zh-CN", "Démineur 扫雷规则", "未打开，第 1 列，第 1 行"),  # noqa: RUF001
    "ja": Language("ja-JP", "Démineur のルール", "閉じたマス、1 列目、1 行目"),
    "pl": Language("pl-PL", "Zasady Démineur", "zakryte, kolumna 1, wiersz 1"),
    "ms": Language("ms-MY", "Peraturan Démineur", "tertutup, lajur 1, baris 1"),
    "ca": Language("ca-ES", "Les regles de Démineur", "oculta, columna 1, fila 1"),
    "nl": Language("nl-NL", "De regels van Démineur", "gesloten, kolom 1, rij 1"),
    "th": Language("th-TH", "กติกาของ Démineur", "ยังไม่เปิด คอลัมน์ 1 แถว 1"),
}
