"""The live site (uvicorn on a thread of the test process) for the stream tests."""

from tests.support.browser import live, site  # noqa: F401  (fixtures)
