from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported for what they register: the deploy check on SITE_URL, the OpenAPI auth
        # extension, the database checks.
        from accounts import checks, schema  # noqa: F401
        from demineur_site import db_health, history_check  # noqa: F401  (registers its check)

        db_health.connect()  # the project's only start-up hook for the database layer
