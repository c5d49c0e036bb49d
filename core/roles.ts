/**
 * Who may do what in a customer's workspace. The operator (the admin token) provisions customers and may
 * do everything; a user belongs to one customer and has one role there. Routes name the permission they
 * need (server/http/route-def.ts `access`); the console hides what the role may not do from the same table.
 */
import { z } from 'zod';

export const ROLES = ['owner', 'admin', 'marketer', 'viewer'] as const;
// Pure: the console imports this module for ROLES and roleMay only, and its bundle must not carry zod.
export const Role = /* @__PURE__ */ z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const ROLE_MEANING: Readonly<Record<Role, string>> = {
  owner: 'everything in the customer, users and roles included',
  admin: 'tokens, tags, webhooks, CRM integrations, settings, account lists, segments and alerts',
  marketer: 'segments, account lists, alerts (Slack, Teams, email), tag settings, reports and revealing people (credits)',
  viewer: 'reports, settings and alerts, read-only',
};

export const PERMISSIONS = [
  /** Reports: visitors, tag sightings, credits; the customer's settings read. */
  'reports:read',
  /** The customer's settings changed (name and the fields a customer may set itself). */
  'settings:write',
  /** Tokens listed and read (never their secrets after creation). */
  'tokens:read',
  /** Tokens created, rotated, (de)activated, deleted. */
  'tokens:write',
  /** Web tags read. */
  'tags:read',
  /** Web tags created and changed (domains, limits, answers). */
  'tags:write',
  /** A tag's server-managed settings (fields, consent, timeouts …). */
  'tag-settings:write',
  /** Webhook endpoints and their delivery logs read. */
  'webhooks:read',
  /** Webhook endpoints registered and removed. */
  'webhooks:write',
  /** Segments and account lists changed. */
  'segments:write',
  /** Alerts, their delivery logs and the owners list read. */
  'alerts:read',
  /** Alerts created, changed, paused, tested and removed; the owners list uploaded (a raw JSON webhook destination also needs webhooks:write). */
  'alerts:write',
  /** A person of an account's buying committee revealed: People Enrichment's answer, charged to the customer's Enrichment credits. */
  'people:reveal',
  /** Users, invitations, roles, single sign-on. */
  'users:manage',
  /** The audit log read. */
  'audit:read',
  /** CRM connections (HubSpot, Salesforce), their mapping and sync runs read. */
  'integrations:read',
  /** CRM connections made, changed, tested, synced, paused and removed. */
  'integrations:write',
  /** Customers created and their contract changed (packages, credits, products): the operator only. */
  'customers:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const READ: Permission[] = ['reports:read', 'tags:read', 'alerts:read'];
const MARKETER: Permission[] = [...READ, 'tag-settings:write', 'segments:write', 'integrations:read', 'alerts:write', 'people:reveal'];
const ADMIN: Permission[] = [
  ...MARKETER,
  'settings:write',
  'tokens:read',
  'tokens:write',
  'tags:write',
  'webhooks:read',
  'webhooks:write',
  'audit:read',
  'integrations:write',
];
const OWNER: Permission[] = [...ADMIN, 'users:manage'];

/** The permissions of each role (the operator has all of them). */
export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  owner: new Set(OWNER),
  admin: new Set(ADMIN),
  marketer: new Set(MARKETER),
  viewer: new Set(READ),
};

export function roleMay(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}
