"""Reusable test machinery: private PostgreSQL and Redis instances, real server processes."""
