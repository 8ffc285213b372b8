# helm-operator: the HelmRequest controller. Small, non-root, runtime dependencies only.
#   docker build -t helm-operator:0.1.0 .
# Pinned base (update the tag and digest together when upgrading Python).
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# Only what the package needs: no tests, e2e tools, examples or .venv in the image.
COPY pyproject.toml README.md ./
COPY helm_core ./helm_core
COPY operator ./operator
RUN python -m venv /opt/helm-operator \
 && /opt/helm-operator/bin/pip install --no-compile . \
 && find /opt/helm-operator -name '__pycache__' -prune -exec rm -rf {} + \
 && /opt/helm-operator/bin/python -m compileall -q /opt/helm-operator/lib

FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="helm-operator" \
      org.opencontainers.image.description="Kopf controller installing HelmRequests with helm_core" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /opt/helm-operator /opt/helm-operator
ENV PATH=/opt/helm-operator/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    HELM_OPERATOR_CACHE_DIR=/tmp/helm-operator-cache
# A numeric non-root user, so runAsNonRoot can verify it without /etc/passwd.
USER 65532:65532
EXPOSE 8080 9090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status == 200 else 1)"]
ENTRYPOINT ["helm-operator"]
CMD ["run"]
