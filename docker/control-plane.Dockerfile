# The control plane against an external PostgreSQL (DATABASE_URL); see compose.yml.
# Not built by CI: the machines CI runs on have no Docker engine.
FROM node:20-bookworm-slim AS build
WORKDIR /corral
COPY package.json package-lock.json nx.json tsconfig.base.json ./
COPY libs libs
COPY apps/cli/package.json apps/cli/
COPY apps/agent/package.json apps/agent/
RUN npm install --ignore-scripts
COPY apps/control-plane apps/control-plane
COPY tools/build-info.mjs tools/
RUN npx nx run control-plane:build --outputStyle=static && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /corral
COPY --from=build /corral/package.json ./
COPY --from=build /corral/node_modules node_modules
COPY --from=build /corral/libs/pg-cluster/package.json libs/pg-cluster/
COPY --from=build /corral/libs/pg-cluster/dist libs/pg-cluster/dist
COPY --from=build /corral/libs/acl/package.json libs/acl/
COPY --from=build /corral/libs/acl/dist libs/acl/dist
COPY --from=build /corral/libs/protocol/package.json libs/protocol/
COPY --from=build /corral/libs/protocol/dist libs/protocol/dist
COPY --from=build /corral/libs/pve-formats/package.json libs/pve-formats/
COPY --from=build /corral/libs/pve-formats/dist libs/pve-formats/dist
COPY --from=build /corral/apps/control-plane/dist apps/control-plane/dist
ENV CORRAL_DATA_DIR=/var/lib/corral
# The container is not a hypervisor host: agents join it from the hosts (docs/agents.md).
ENV CORRAL_LOCAL_AGENT=0
RUN mkdir -p /var/lib/corral && chown node:node /var/lib/corral
VOLUME /var/lib/corral
EXPOSE 8006
USER node
CMD ["node", "apps/control-plane/dist/main.js"]
