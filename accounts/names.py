"""What a username is, once look-alikes are taken into account (docs/SECURITY.md, names).

A name is public: it stands for its player on boards, in races and in URLs. Three spellings
must never stand for two players, so every check works on what a name *looks like*:

* `normalise`: Unicode NFKC, so a fullwidth `guest` (U+FF47 ...), mathematical letters,
  ligatures and superscripts become the plain characters they display as. Names are stored
  normalised.
* `name_key`: NFKC, case folded, NFKC again (Unicode's NFKC_Casefold, near enough), then
  the skeleton below: the one form sign-up compares and sign-in finds. It is stored on the
  user (`User.username_key`, unique), so two names with one key cannot both exist.
* `mixed_scripts`: a name whose letters come from two scripts (a Latin `a` beside a Cyrillic
  one) is refused, except the combinations a language writes (Japanese: Han, Hiragana,
  Katakana; Chinese: Han, Bopomofo; Korean: Han, Hangul; each with Latin), as Unicode's
  UTS #39 "highly restrictive" level allows.

A name written wholly in another script can still look Latin (`ace` in Cyrillic letters,
`TOP` in Greek capitals): `_SKELETON` maps the Cyrillic and Greek letters that are drawn like
a Latin letter onto it, so such a name has the key of the Latin name it imitates and is
refused as taken. The table is ours (sixty letters, picked from Unicode's confusables.txt
for these two scripts), not a dependency: Cyrillic and Greek are where whole-word look-alikes
of Latin names come from. The script of a character is the first word of its Unicode name
(CYRILLIC SMALL LETTER A), with the aliases in `_SCRIPT_ALIASES`: Python's unicodedata has
no script property.

Changing `_SKELETON` changes keys: stored keys must then be recomputed (a data migration, as
accounts/migrations/0008_username_key.py does).
"""

from __future__ import annotations

import unicodedata

# Cyrillic and Greek letters drawn as a Latin letter, in either case, by their Unicode names
# (the letters themselves would be look-alikes in this file too). Applied after NFKC and
# before case folding, so a capital maps to the Latin capital it looks like (CYRILLIC CAPITAL
# LETTER VE is a `B`; its small letter is nothing Latin).
_LOOKALIKES: dict[str, str] = {
    "CYRILLIC CAPITAL LETTER A": "A",
    "CYRILLIC CAPITAL LETTER VE": "B",
    "CYRILLIC CAPITAL LETTER IE": "E",
    "CYRILLIC CAPITAL LETTER DZE": "S",
    "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I": "I",
    "CYRILLIC CAPITAL LETTER JE": "J",
    "CYRILLIC CAPITAL LETTER KA": "K",
    "CYRILLIC CAPITAL LETTER EM": "M",
    "CYRILLIC CAPITAL LETTER EN": "H",
    "CYRILLIC CAPITAL LETTER O": "O",
    "CYRILLIC CAPITAL LETTER ER": "P",
    "CYRILLIC CAPITAL LETTER ES": "C",
    "CYRILLIC CAPITAL LETTER TE": "T",
    "CYRILLIC CAPITAL LETTER HA": "X",
    "CYRILLIC CAPITAL LETTER STRAIGHT U": "Y",
    "CYRILLIC CAPITAL LETTER QA": "Q",
    "CYRILLIC CAPITAL LETTER WE": "W",
    "CYRILLIC CAPITAL LETTER KOMI DE": "D",
    "CYRILLIC LETTER PALOCHKA": "I",
    "CYRILLIC SMALL LETTER A": "a",
    "CYRILLIC SMALL LETTER IE": "e",
    "CYRILLIC SMALL LETTER DZE": "s",
    "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I": "i",
    "CYRILLIC SMALL LETTER JE": "j",
    "CYRILLIC SMALL LETTER O": "o",
    "CYRILLIC SMALL LETTER ER": "p",
    "CYRILLIC SMALL LETTER ES": "c",
    "CYRILLIC SMALL LETTER U": "y",
    "CYRILLIC SMALL LETTER HA": "x",
    "CYRILLIC SMALL LETTER KOMI DE": "d",
    "CYRILLIC SMALL LETTER SHHA": "h",
    "CYRILLIC SMALL LETTER QA": "q",
    "CYRILLIC SMALL LETTER WE": "w",
    "CYRILLIC SMALL LETTER PALOCHKA": "l",
    "CYRILLIC SMALL LETTER STRAIGHT U": "y",
    "CYRILLIC SMALL LETTER IZHITSA": "v",
    "GREEK CAPITAL LETTER ALPHA": "A",
    "GREEK CAPITAL LETTER BETA": "B",
    "GREEK CAPITAL LETTER EPSILON": "E",
    "GREEK CAPITAL LETTER ZETA": "Z",
    "GREEK CAPITAL LETTER ETA": "H",
    "GREEK CAPITAL LETTER IOTA": "I",
    "GREEK CAPITAL LETTER KAPPA": "K",
    "GREEK CAPITAL LETTER MU": "M",
    "GREEK CAPITAL LETTER NU": "N",
    "GREEK CAPITAL LETTER OMICRON": "O",
    "GREEK CAPITAL LETTER RHO": "P",
    "GREEK CAPITAL LETTER TAU": "T",
    "GREEK CAPITAL LETTER UPSILON": "Y",
    "GREEK CAPITAL LETTER CHI": "X",
    "GREEK SMALL LETTER OMICRON": "o",
    "GREEK SMALL LETTER IOTA": "i",
    "GREEK SMALL LETTER KAPPA": "k",
    "GREEK SMALL LETTER NU": "v",
    "GREEK SMALL LETTER RHO": "p",
    "GREEK SMALL LETTER UPSILON": "u",
    "GREEK SMALL LETTER CHI": "x",
    "GREEK SMALL LETTER ALPHA": "a",
    "GREEK LUNATE SIGMA SYMBOL": "c",
    "GREEK LETTER YOT": "j",
}
_SKELETON = {unicodedata.lookup(name): latin for name, latin in _LOOKALIKES.items()}
_SKELETON_TABLE = str.maketrans(_SKELETON)

# Unicode name prefixes that are not a script's own name.
_SCRIPT_ALIASES = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "KATAKANA-HIRAGANA": "JAPANESE",  # the prolonged sound mark, shared by both kana
    "ARABIC-INDIC": "ARABIC",
    "EXTENDED": "ARABIC",  # EXTENDED ARABIC-INDIC DIGIT ...
}
# Digits of no script in particular (`DIGIT ONE`); punctuation has none either.
_COMMON = {"DIGIT"}
# Scripts that may share one name (with Latin), as languages write them.
_ALLOWED_TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA", "JAPANESE"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


def normalise(name: str) -> str:
    """The name as it is stored and checked: NFKC (fullwidth and styled letters made plain)."""
    return unicodedata.normalize("NFKC", name)


def name_key(name: str) -> str:
    """The form two names share when they look the same: compared at sign-up, found at
    sign-in, unique among users. Case, width, styling and Cyrillic/Greek look-alikes of Latin
    letters all fall away."""
    plain = normalise(name).translate(_SKELETON_TABLE)
    return unicodedata.normalize("NFKC", plain.casefold())


def script_of(char: str) -> str | None:
    """The script of one character (the first word of its Unicode name), None for digits and
    punctuation, which belong to every script."""
    words = unicodedata.name(char, "UNKNOWN").split()
    first = words[0]
    if first in _COMMON or not char.isalnum():
        return None
    return _SCRIPT_ALIASES.get(first, first)


def scripts(name: str) -> set[str]:
    return {s for s in map(script_of, normalise(name)) if s is not None}


def mixed_scripts(name: str) -> bool:
    """True when the name's letters come from scripts that no language writes together."""
    found = scripts(name)
    if len(found) <= 1:
        return False
    return not any(found <= allowed for allowed in _ALLOWED_TOGETHER)


def is_encodable(text: str) -> bool:
    """False for text holding a lone surrogate (JSON's `"\\ud800"`): no UTF-8 form, so it can
    reach neither the database nor a hash (a NUL would fail in PostgreSQL)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
