# Démineur's image (docs/deploy/SERVING.md). One image runs every app service of
# docker-compose.yml: migrate, web (gunicorn), live (uvicorn), scheduler.
#
# No BuildKit-only syntax (`RUN --mount`, `# syntax=`): Debian's docker-compose 1.29 builds with
# the legacy builder and Debian's docker.io has no buildx, so this file builds the same with
# `docker compose`, `docker-compose`, `docker build` with or without BuildKit
# (docs/deploy/SERVING.md, "Why no BuildKit-only syntax").
#
# PYTHON_IMAGE is the base of every stage: python:3.12-slim (where Docker Hub is out of reach,
# `make images` tags a stand-in built from Debian's packages with that name: deploy/images.py).
ARG PYTHON_IMAGE=python:3.12-slim

# --- builder: a virtualenv with the locked runtime dependencies, every download checked by its
# hash. Behind a TLS-inspecting proxy pip needs that proxy's CA: a bundle in deploy/build-ca/
# (`make images` copies the machine's own; ignored by git) is given to pip in this stage only.
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /build
COPY requirements/prod.txt requirements.txt
COPY deploy/build-ca/ /build/ca/
RUN if [ -s /build/ca/pip-ca.pem ]; then export PIP_CERT=/build/ca/pip-ca.pem; fi \
    && python -m venv /opt/venv \
    && /opt/venv/bin/pip install --require-hashes -r requirements.txt

# --- code: the source (without the build CA), static files collected, byte-compiled.
FROM builder AS code
WORKDIR /app
COPY . .
# collectstatic imports the settings, which refuse the placeholder key with DEBUG off: a
# throwaway key is given to this one command only, never to the image's environment.
RUN rm -rf deploy/build-ca \
    && SECRET_KEY=collectstatic-only-not-a-secret DEBUG=0 /opt/venv/bin/python manage.py collectstatic --noinput \
    && /opt/venv/bin/python -m compileall -q games accounts demineur_site frontend

# --- runtime: the interpreter, the virtualenv and the code; no wheel, no pip cache, no CA.
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    DEBUG=0 \
    PORT=8001
WORKDIR /app
RUN groupadd --system --gid 10001 demineur \
    && useradd --system --uid 10001 --gid demineur --home-dir /app --shell /usr/sbin/nologin demineur
COPY --from=builder /opt/venv /opt/venv
COPY --from=code /app /app
USER 10001:10001
EXPOSE 8001 8002
# Liveness (docs/RELIABILITY.md): /healthz touches neither PostgreSQL nor Redis. One HTTP GET
# by bash's /dev/tcp (deploy/http_probe.sh): no interpreter started per check, no curl needed;
# PORT is the port the service listens on, the Host the first ALLOWED_HOSTS entry. Sized for a
# loaded 2-core machine (docs/deploy/SERVING.md, "Health checks").
HEALTHCHECK --interval=15s --timeout=10s --start-period=180s --retries=3 \
    CMD ["bash", "/app/deploy/http_probe.sh", "/healthz"]
CMD ["gunicorn", "demineur_site.wsgi:application", "--workers", "2", "--bind", "0.0.0.0:8001", "--access-logfile", "-", "--no-control-socket"]
