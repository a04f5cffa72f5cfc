"""Who writes which table, read from the source with ast: ORM writes through a model's manager
(`Game.objects.filter(...).update(...)`), `.save()` / `.delete()` on a variable known to hold a
model (assigned from `Model(...)` or a manager read, or annotated with the model), and
hand-written SQL naming a model's table (`UPDATE games_game`)."""

from __future__ import annotations

import ast
import re
from functools import cache

from tests.architecture.imports import ROOT, modules

MODELS = {
    "Game": "games_game",
    "GameAnalysis": "games_gameanalysis",
    "GameProbabilities": "games_gameprobabilities",
    "Move": "games_move",
    "Review": "games_review",
    "Race": "games_race",
    "Racer": "games_racer",
    "RaceQueueEntry": "games_racequeueentry",
    "RaceRating": "games_racerating",
    "SeasonRating": "games_seasonrating",
    "Arena": "games_arena",
    "ArenaEntry": "games_arenaentry",
    "ArenaResult": "games_arenaresult",
    "DailyChallenge": "games_dailychallenge",
    "Puzzle": "games_puzzle",
    "PuzzleSource": "games_puzzlesource",
    "PuzzleAttempt": "games_puzzleattempt",
    "PuzzleRating": "games_puzzlerating",
    "PuzzleRun": "games_puzzlerun",
    "PuzzleOfTheDay": "games_puzzleoftheday",
    "DailyEntry": "accounts_daily_entry",
    "DailyStats": "accounts_daily_stats",
    "User": "accounts_user",
    "ApiToken": "accounts_apitoken",
    "PlayerStats": "accounts_player_stats",
    "PersonalRecord": "accounts_personal_record",
}
WRITES = {
    "create",
    "update",
    "delete",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
}
SQL_VERB = re.compile(r"\b(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM)\b")
SQL = re.compile(r"\b(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+\"?(\w+)", re.I)


def _chain_model(node: ast.AST) -> str | None:
    """The model at the root of `Model.objects.a(...).b(...)`, if any."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr == "objects" and isinstance(node.value, ast.Name):
                return node.value.id if node.value.id in MODELS else None
            node = node.value
        else:
            return None


_RETURNS: dict[str, list[str | None]] = {}  # a module's functions: the models they return


def _returns(node: ast.FunctionDef) -> list[str | None]:
    ann = node.returns
    if (
        isinstance(ann, ast.Subscript)
        and isinstance(ann.value, ast.Name)
        and ann.value.id == "tuple"
    ):
        elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return [_annotation_model(e) for e in elts]
    return [_annotation_model(ann)]


def _value_models(node: ast.AST | None) -> list[str | None]:
    """The models an expression evaluates to, one per element of a tuple it unpacks into."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _RETURNS:
        return _RETURNS[node.func.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        # `fairplay.hold_if_superhuman(...)`: another project module's function
        returned = _project_returns().get(node.func.attr)
        if returned:
            return returned
    return [_value_model(node)]


@cache
def _project_returns() -> dict[str, list[str | None]]:
    out: dict[str, list[str | None]] = {}
    for name, path in modules().items():
        if name.startswith(("games", "accounts")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and any(_returns(node)):
                    out[node.name] = _returns(node)
    return out


def _value_model(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MODELS:
        return node.func.id
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        return _value_model(node.elts[0])
    return _chain_model(node) if node is not None else None


def _annotation_model(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.BinOp):  # `Review | None`
        return _annotation_model(node.left) or _annotation_model(node.right)
    if isinstance(node, ast.Name) and node.id in MODELS:
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODELS:
        return node.value
    return None


def writes_in(source: str) -> set[str]:
    found: set[str] = set()
    tree = ast.parse(source)
    _RETURNS.clear()
    _RETURNS.update({n.name: _returns(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)})
    # demineur_site.rawsql: `columns(Game, alias)` with its update/insert/delete statement
    writes_sql = any(w in source for w in (".update_sql", ".insert_sql", ".delete_sql"))
    sql_writes = any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and SQL_VERB.search(n.value)
        for n in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if (  # "UPDATE {table} ...".format(table=Race._meta.db_table)
            sql_writes
            and isinstance(node, ast.Attribute)
            and node.attr == "db_table"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "_meta"
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id in MODELS
        ):
            found.add(node.value.value.id)
        if (
            isinstance(node, ast.Call)
            and not isinstance(node.func, ast.Attribute)
            and (
                writes_sql
                and isinstance(node.func, ast.Name)
                and node.func.id == "columns"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in MODELS
            )
        ):
            found.add(node.args[0].id)  # type: ignore[union-attr]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method in WRITES:
                model = _chain_model(node.func.value)
                if model:
                    found.add(model)
            if method in ("save", "delete") and isinstance(node.func.value, ast.Name):
                model = _holder(tree, node)
                if model:
                    found.add(model)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for table in SQL.findall(node.value):
                found.update(m for m, t in MODELS.items() if t == table.lower())
    return found


def _holder(tree: ast.Module, call: ast.Call) -> str | None:
    """The model the variable of `var.save()` holds, in the innermost function around it."""
    assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
    name = call.func.value.id
    best: str | None = None
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef) or call not in set(ast.walk(func)):
            continue
        for arg in [*func.args.args, *func.args.kwonlyargs]:
            if arg.arg == name and _annotation_model(arg.annotation):
                best = _annotation_model(arg.annotation)
        for node in ast.walk(func):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                values = _value_models(node.value)
                for target in targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    for i, each in enumerate(names):
                        if isinstance(each, ast.Name) and each.id == name:
                            model = values[i] if i < len(values) else None
                            if isinstance(node, ast.AnnAssign):
                                model = _annotation_model(node.annotation) or model
                            best = model or best
            elif (
                isinstance(node, ast.For)
                and isinstance(node.target, ast.Name)
                and node.target.id == name
            ):
                best = _value_model(node.iter) or best
    return best


@cache
def writers() -> dict[str, set[str]]:
    """Each model and the modules (outside migrations and tests) that write it."""
    out: dict[str, set[str]] = {model: set() for model in MODELS}
    for name, path in modules().items():
        if name.startswith("bench"):
            continue
        for model in writes_in(path.read_text()):
            out[model].add(name)
    return out


__all__ = ["ROOT", "writers", "writes_in"]
