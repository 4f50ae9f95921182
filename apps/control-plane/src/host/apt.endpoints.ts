import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { stringParam } from '../http/params.js';
import { MODIFY_NODE, NODE } from '../nodes/nodes.endpoints.js';

/** PVE's package entry: its capitalised names. */
export const UpgradablePackageResult = z.object({
  Package: z.string(),
  Title: z.string(),
  Version: z.string(),
  OldVersion: z.string(),
  Arch: z.string(),
  Origin: z.string().optional(),
  Priority: z.string().optional(),
  Section: z.string().optional(),
  Description: z.string().optional(),
});

export const APT_ENDPOINTS = {
  index: endpoint({
    method: 'GET',
    path: '/nodes/{node}/apt',
    summary: "The node's package management",
    parameters: z.object(NODE),
    returns: z.array(z.object({ id: z.string() })),
    permission: { kind: 'authenticated' },
  }),
  upgradable: endpoint({
    method: 'GET',
    path: '/nodes/{node}/apt/update',
    summary: 'The installed packages with a newer version in the package index',
    parameters: z.object(NODE),
    returns: z.array(UpgradablePackageResult),
    permission: MODIFY_NODE,
  }),
  update: endpoint({
    method: 'POST',
    path: '/nodes/{node}/apt/update',
    summary: "Refresh the host's package index (apt-get update) as a task; returns its UPID",
    parameters: z.object(NODE),
    returns: z.string(),
    permission: MODIFY_NODE,
  }),
  changelog: endpoint({
    method: 'GET',
    path: '/nodes/{node}/apt/changelog',
    summary: "A package's changelog, of its candidate version unless `version` names another",
    parameters: z.object({
      ...NODE,
      name: stringParam({ description: 'The package.', maxLength: 128 }),
      version: stringParam({ description: 'The version.', maxLength: 128 }).optional(),
    }),
    returns: z.string(),
    permission: MODIFY_NODE,
  }),
};
