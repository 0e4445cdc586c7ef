#!/usr/bin/env bash
# Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
# Runs once when the dev container is created: the project's dependencies, then the control-plane
# binaries the tests use (downloaded prebuilt; built with the container's Go where the download
# cannot be reached), cached in ~/.cache/kop/envtest.
set -euo pipefail

npm ci
npx kop setup-envtest

node --version
go version
kubectl version --client
