# Démineur's image (docs/deploy/SERVING.md). One image runs every app service of
# docker-compose.yml: migrate, web (gunicorn), live (uvicorn), scheduler. Built by BuildKit's
# own Dockerfile frontend (Docker 20.10 or later; no `# syntax=` line, which would pull a
# frontend image from Docker Hub).
#
# PYTHON_IMAGE is the base of both stages: python:3.12-slim for everyone; a machine that cannot
# reach Docker Hub builds a stand-in from Debian's packages (deploy/standin/, make compose-test).
ARG PYTHON_IMAGE=python:3.12-slim

# --- builder: wheels of the locked runtime dependencies, every download checked by its hash.
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /build
COPY requirements/prod.txt requirements.txt
# Behind a TLS-inspecting proxy, pip needs that proxy's CA: `--secret id=pip_ca,src=BUNDLE`
# mounts it for this one step (never in a layer); without the secret pip uses its own CAs.
RUN --mount=type=secret,id=pip_ca,required=false \
    if [ -s /run/secrets/pip_ca ]; then export PIP_CERT=/run/secrets/pip_ca; fi \
    && pip wheel --require-hashes --wheel-dir /wheels -r requirements.txt

# --- runtime: the interpreter, the wheels installed, the code; no compiler, no pip cache.
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBUG=0 \
    PORT=8001
WORKDIR /app
# The wheels are mounted for this one step, not copied into a layer. Hashes were checked
# when the builder downloaded them; --no-index keeps anything else out.
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install --no-index --no-deps /wheels/*.whl \
    && groupadd --system --gid 10001 demineur \
    && useradd --system --uid 10001 --gid demineur --home-dir /app --shell /usr/sbin/nologin demineur
COPY --chown=root:root . .
# collectstatic imports the settings, which refuse the placeholder key with DEBUG off: a
# throwaway key is given to this one command only, never to the image's environment.
RUN SECRET_KEY=collectstatic-only-not-a-secret python manage.py collectstatic --noinput \
    && python -m compileall -q games accounts demineur_site frontend
USER 10001:10001
EXPOSE 8001 8002
# Liveness (docs/RELIABILITY.md): /healthz touches neither PostgreSQL nor Redis. The image has
# no curl; the Host is the first ALLOWED_HOSTS entry; PORT is the port the service listens on.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8001'), headers={'Host': os.environ.get('ALLOWED_HOSTS', 'localhost').split(',')[0].lstrip('.')}), timeout=4)"]
CMD ["gunicorn", "demineur_site.wsgi:application", "--workers", "2", "--bind", "0.0.0.0:8001", "--access-logfile", "-", "--no-control-socket"]
