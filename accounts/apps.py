from importlib import import_module

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self) -> None:
        # The standings room keeps its own tables (accounts/standings/models.py) under this
        # app's label (no table was renamed). Django imports only `accounts.models`; importing
        # the standings' module here, rather than from accounts.models, keeps accounts below
        # standings (tests/architecture/test_imports.py).
        super().import_models()
        import_module("accounts.standings.models")

    def ready(self) -> None:
        # Imported for what they register: the deploy check on SITE_URL, the OpenAPI auth
        # extension, the database checks, what an app's token's deletion does (accounts.oauth).
        from accounts import checks, oauth, schema  # noqa: F401
        from demineur_site import db_health, history_check  # noqa: F401  (registers its check)

        db_health.connect()  # the project's only start-up hook for the database layer
