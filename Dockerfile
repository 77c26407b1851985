# The p2b services as an OCI image (docs/operations.md, "Container image").
# Debian 12 only: every dependency is a Debian package installed with apt, no
# other download. Not built here: no container registry is reachable from the
# project's CI, so debian:12 cannot be pulled. scripts/oci-build.sh makes the
# same runtime image without a registry and tests it (docs/operations.md).
#
#   docker build -t p2b-services .
#   docker run --rm -p 8710:8710 -v /etc/p2b:/etc/p2b:ro -v p2b-shuffler:/var/lib/p2b \
#     p2b-services p2b-shuffler --config /etc/p2b/shuffler.toml --listen 0.0.0.0:8710
#   (shuffler.toml names its spool-key under /etc/p2b, never on the data volume:
#   the shuffler refuses a key inside its spool's directory.)
#
# Stage 1: build and install into /opt/p2b (services, tools, man pages).
FROM debian:12 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libeigen3-dev libsodium-dev libcpp-httplib-dev libsqlite3-dev libbrotli-dev \
      libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libpq-dev zlib1g-dev help2man \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF \
 && cmake --build /build \
 && cmake --install /build --prefix /opt/p2b --strip

# Stage 2: the runtime libraries the services link, and nothing to build with.
# The list is shared with scripts/oci-build.sh, which tests it.
FROM debian:12-slim
COPY packaging/oci/runtime-packages.txt /tmp/
RUN apt-get update \
 && xargs apt-get install -y --no-install-recommends </tmp/runtime-packages.txt \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt
COPY --from=build /opt/p2b /opt/p2b
ENV PATH=/opt/p2b/bin:$PATH
# Not root: a fixed unprivileged uid owns the state volume.
RUN install -d -o 65532 -g 65532 -m 0700 /var/lib/p2b
USER 65532:65532
VOLUME /var/lib/p2b
EXPOSE 8710 8720
CMD ["p2b-shuffler", "--help"]
