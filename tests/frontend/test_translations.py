"""Every language of the menu speaks every string of the pages, scripts and e-mails
(docs/FRONTEND.md, Languages): each message id the sources hold (extracted with the project's
own makemessages commands) is in each language's catalogues (frontend's django.po and
djangojs.po, accounts' django.po), translated (no empty msgstr, no fuzzy entry), with its
placeholders and markup kept, and with every plural form its language has; the committed .mo
files are what msgfmt makes of the .po files; and a browser asking for a language gets the
pages in it."""

from __future__ import annotations

import ast
import gettext
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils.translation import to_locale

from tests.support.languages import PAGE_LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
# The catalogues, as "<app>/<domain>": the pages and views, the scripts, the e-mails.
CATALOGUES = ("frontend/django", "frontend/djangojs", "accounts/django")
# How each app's message ids are extracted (docs/FRONTEND.md, Languages): makemessages in the app.
MAKEMESSAGES = {
    "frontend/django": [],
    "frontend/djangojs": ["-d", "djangojs", "--ignore=static/frontend/js/engine.js"],
    "accounts/django": [],
}
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]

# Plural forms per language, as gettext counts them (the number of msgstr[i] of a counted string).
NPLURALS = {
    "fr": 2, "es": 2, "de": 2, "pt-br": 2, "zh-hans": 1, "ja": 1,
    "pl": 4, "ms": 1, "ca": 2, "nl": 2, "th": 1,
}  # fmt: skip

# What must survive translation: %(name)s and %s placeholders, {0} / {name} fields, tags, entities.
KEPT = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}|</?\w+[^>]*>|&\w+;")

needs_gettext = pytest.mark.skipif(
    shutil.which("msgfmt") is None or shutil.which("xgettext") is None,
    reason="GNU gettext (msgfmt, xgettext) is not installed: apt-get install gettext",
)


@dataclass
class Entry:
    msgid: str
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False


def _string(line: str) -> str:
    value = ast.literal_eval(line)  # a PO string is a C string literal: Python reads it alike
    assert isinstance(value, str)
    return value


def parse_po(path: Path) -> dict[str, Entry]:
    """The entries of a .po file by msgid (the header is the entry of msgid "")."""
    entries: dict[str, Entry] = {}
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip()):
        entry = Entry(msgid="")
        target: tuple[str, int] = ("msgid", 0)
        seen = False
        for line in block.splitlines():
            if line.startswith("#~"):
                entry.obsolete = True
            elif line.startswith("#,"):
                entry.flags |= {f.strip() for f in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif m := re.match(
                r"(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(\".*\")$", line
            ):
                keyword, index, text = m.group(1), int(m.group(2) or 0), _string(m.group(3))
                target = (keyword, index)
                seen = True
                if keyword == "msgid":
                    entry.msgid = text
                elif keyword == "msgid_plural":
                    entry.plural = text
                elif keyword == "msgstr":
                    entry.msgstr[index] = text
            elif line.startswith('"'):
                keyword, index = target
                if keyword == "msgid":
                    entry.msgid += _string(line)
                elif keyword == "msgid_plural":
                    entry.plural = (entry.plural or "") + _string(line)
                elif keyword == "msgstr":
                    entry.msgstr[index] += _string(line)
            else:
                raise AssertionError(f"{path}: unreadable line {line!r}")
        if seen and not entry.obsolete:
            entries[entry.msgid] = entry
    return entries


def _po(language: str, catalogue: str) -> Path:
    app, domain = catalogue.split("/")
    return ROOT / app / "locale" / to_locale(language) / "LC_MESSAGES" / f"{domain}.po"


@pytest.fixture(scope="module")
def source_ids(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Entry]]:
    """The message ids of today's templates, views, scripts and mails, extracted by the
    commands of docs/FRONTEND.md into a copy of each app (never into the real catalogues)."""
    if shutil.which("xgettext") is None:
        pytest.skip("GNU gettext is not installed: apt-get install gettext")
    # Without settings, makemessages writes only below the working directory's locale/.
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    admin = [sys.executable, "-m", "django", "makemessages", "-l", "en", "--no-obsolete"]
    ids = {}
    for catalogue in CATALOGUES:
        app, domain = catalogue.split("/")
        copy = tmp_path_factory.mktemp(app)
        shutil.copytree(
            ROOT / app, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("locale")
        )
        (copy / "locale").mkdir()
        extra = MAKEMESSAGES[catalogue]
        subprocess.run([*admin, *extra], cwd=copy, env=env, check=True, capture_output=True)
        ids[catalogue] = parse_po(copy / "locale" / "en" / "LC_MESSAGES" / f"{domain}.po")
    return ids


def test_the_menu_offers_french_spanish_german_portuguese_chinese_and_japanese() -> None:
    assert {"fr", "es", "de", "pt-br", "zh-hans", "ja"} <= set(LANGUAGES)
    assert set(LANGUAGES) == set(NPLURALS), "a new language needs its plural count here"


@needs_gettext
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_id_is_translated(
    language: str, source_ids: dict[str, dict[str, Entry]]
) -> None:
    problems: list[str] = []
    for domain in CATALOGUES:
        path = _po(language, domain)
        assert path.exists(), f"{path} is missing (docs/FRONTEND.md, How to add a language)"
        catalog = parse_po(path)
        header = catalog[""].msgstr[0]
        assert f"Language: {to_locale(language)}\n" in header
        m = re.search(r"Plural-Forms: nplurals=(\d+); plural=([^;]+);", header)
        assert m is not None, f"{path}: no Plural-Forms header"
        assert int(m.group(1)) == NPLURALS[language], f"{path}: nplurals"
        for msgid, wanted in source_ids[domain].items():
            if not msgid:
                continue
            entry = catalog.get(msgid)
            where = f"{language} {domain}: {msgid!r}"
            if entry is None:
                problems.append(f"{where} is missing (run makemessages)")
                continue
            if "fuzzy" in entry.flags:
                problems.append(f"{where} is fuzzy")
            if (entry.plural is None) != (wanted.plural is None):
                problems.append(f"{where}: the plural form changed (run makemessages)")
                continue
            forms = len(entry.msgstr)
            if entry.plural is not None and forms != NPLURALS[language]:
                problems.append(f"{where} has {forms} plural forms, not {NPLURALS[language]}")
            kept = sorted(KEPT.findall(entry.plural or msgid))
            for text in entry.msgstr.values():
                if not text.strip():
                    problems.append(f"{where} is not translated")
                elif sorted(KEPT.findall(text)) != kept:
                    problems.append(f"{where}: placeholders or markup differ in {text!r}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_plural_rule_picks_a_form_that_exists(language: str) -> None:
    """The compiled rule gives form 0 for one, and a form that exists for any count."""
    for domain in CATALOGUES:
        with _po(language, domain).with_suffix(".mo").open("rb") as mo:
            catalog = gettext.GNUTranslations(mo)
        nplurals = NPLURALS[language]
        forms = {catalog.plural(n) for n in range(0, 1001)}  # type: ignore[attr-defined]
        assert forms <= set(range(nplurals)), f"{language} {domain}: {forms}"
        assert catalog.plural(1) == 0  # type: ignore[attr-defined]
        if nplurals > 1:
            assert len(forms) >= 2, f"{language} {domain}: every count takes the same form"


@needs_gettext
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_files_are_compiled_from_the_po_files(
    language: str, tmp_path: Path
) -> None:
    for domain in CATALOGUES:
        po = _po(language, domain)
        mo = tmp_path / f"{domain.replace('/', '-')}.mo"
        subprocess.run(["msgfmt", "--check", "-o", str(mo), str(po)], check=True)
        assert po.with_suffix(".mo").read_bytes() == mo.read_bytes(), f"compile {po} (msgfmt)"


# The menu's "Play" in each page language the browser's languages below pick.
MENU_PLAY = {
    "fr": "Jouer",
    "es": "Jugar",
    "de": "Spielen",
    "pt-br": "Jogar",
    "zh-hans": "开始游戏",
    "ja": "プレイ",
    "en": "Play",
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.8", "fr"),
        ("fr-CA", "fr"),
        ("es-ES,es;q=0.9", "es"),
        ("es-MX", "es"),
        ("de-DE,de;q=0.9", "de"),
        ("pt-BR,pt;q=0.9", "pt-br"),
        ("pt-PT", "pt-br"),
        ("zh-CN,zh;q=0.9", "zh-hans"),
        ("ja,en-US;q=0.7", "ja"),
        ("en-US,en;q=0.9", "en"),
    ],
)
def test_the_browser_language_picks_the_page_language(
    client: Client, accept: str, lang: str
) -> None:
    heading, menu_play = PAGE_LANGUAGES[lang].heading, MENU_PLAY[lang]
    page = client.get("/how-to-play", HTTP_ACCEPT_LANGUAGE=accept)
    assert page.status_code == 200
    body = page.content.decode()
    assert f'<html lang="{lang}"' in body
    assert f"<h1>{heading}</h1>" in body
    assert f">{menu_play}</a>" in body
    catalog = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    if lang != "en":  # the scripts' strings in the same language, with the language's plural rule
        header = parse_po(_po(lang, "frontend/djangojs"))[""].msgstr[0]
        m = re.search(r"plural=([^;]+);", header)
        assert m is not None and f"const v = {m.group(1)};" in catalog
        mine = parse_po(_po(lang, "frontend/djangojs"))["%(n)s mine"]
        assert all(json.dumps(form) in catalog for form in mine.msgstr.values())
