FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/app/var STATIC_ROOT=/app/staticfiles
WORKDIR /app

COPY pyproject.toml README.md ./
COPY verification ./verification
COPY reviewconsole ./reviewconsole
RUN pip install --no-cache-dir .
# TRAINING=1 (the compose file's `training` service): the training extra, for retraining the scorer on
# reviewers' labels. torch from its CPU index: the default one on PyPI is a CUDA build of several GB.
ARG TRAINING=0
RUN if [ "$TRAINING" = "1" ]; then \
      pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
      && pip install --no-cache-dir '.[train]'; \
    fi
COPY . .
# collectstatic needs settings but no database or secret that matters.
RUN SECRET_KEY=collectstatic ALLOWED_HOSTS=localhost python manage.py collectstatic --no-input -v0

RUN useradd --create-home console && mkdir -p /app/var && chown console /app/var
USER console
EXPOSE 8000
CMD ["gunicorn", "reviewconsole.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
