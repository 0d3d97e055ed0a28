import { STAFF_ROLES, type Role, type StaffRole } from './roles.js';

const ALL_STAFF: readonly StaffRole[] = STAFF_ROLES;
const except = (...roles: StaffRole[]): StaffRole[] => ALL_STAFF.filter((r) => !roles.includes(r));

/**
 * The permission table of back-office.md §6, with decisions.md D5 and D9 applied.
 * The server enforces it on every route (see API_ROUTES) and the web uses it to show or hide.
 */
export const PERMISSIONS = {
  /** Enter /crm at all; every staff-only API route needs at least this. */
  'crm.enter': ALL_STAFF,
  'dashboard.view': except('admin'),
  /** Dashboard extra filters, department / affiliate / deleted-manager statistics, the users list fetch. */
  'dashboard.extended': ['superadmin'],
  'clients.view': ALL_STAFF,
  'calendar.view': ALL_STAFF,
  /** Withdrawal requests (Applications) and deposit history (History): menu and routes. */
  'finance.view': except('team_lead_sales', 'sales_manager'),
  /** Issue 9 (and the trust issue's four-eyes): confirming a client's identity; second approvals and confirmations. */
  'finance.approve': ['superadmin', 'admin'],
  'integration.manage': ['superadmin', 'admin'],
  'affiliates.manage': ['superadmin', 'admin'],
  'staff.manage': ['superadmin', 'admin'],
  'staff.change_password': ['superadmin'],
  'trading.manage': ['superadmin', 'team_lead_retention', 'retention_manager', 'team_lead_sales', 'sales_manager'],
  'access.manage': ['superadmin'],
  'audit.view': ['superadmin'],
  /** D5: the Excel export is superadmin and admin only. */
  'clients.export': ['superadmin', 'admin'],
  /** Clients list: Manager filter, checkboxes, bulk assign, Manager column. */
  'clients.bulk_assign': ['superadmin', 'team_lead_sales', 'team_lead_retention'],
  'clients.change_manager': ['superadmin', 'admin', 'team_lead_sales', 'team_lead_retention'],
  'clients.affiliate_filter': ['superadmin', 'admin'],
  'deposits.manager_filter': ['superadmin'],
  'deposit_methods.edit': ['superadmin'],
  'messages.send': ['superadmin', 'admin', 'team_lead_retention'],
  /** Issue 22 §1: the outgoing mail page (/crm/outbox), which shows rendered bodies with their links. */
  'mail.outbox': ['superadmin'],
} as const satisfies Record<string, readonly StaffRole[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role | null | undefined, permission: Permission): boolean {
  if (!role) return false;
  return (PERMISSIONS[permission] as readonly string[]).includes(role);
}

/**
 * Who may call an API route:
 * - 'public': anyone, signed in or not;
 * - 'authenticated': any signed-in user, client or staff;
 * - 'client': a signed-in user with role client;
 * - a Permission: a signed-in staff member whose role the table lists (and whose IP the whitelist allows);
 * - 'affiliate_token': a partner program with an affiliate token (`?token=` or `Authorization: Bearer`), checked by
 *   the external API itself (its whitelist, rate limit); no staff or client session may call it (D13, D17).
 */
export type RouteAccess = 'public' | 'authenticated' | 'client' | 'affiliate_token' | Permission;

/**
 * The route registry: every API route the server registers must appear here, keyed 'METHOD /path' with
 * Fastify's path syntax. The server refuses to start with a route missing from it, and the route × role
 * test walks it.
 */
export const API_ROUTES = {
  'GET /api/health': 'public',
  'GET /api/health/live': 'public',
  'POST /api/auth/login': 'public',
  'POST /api/auth/logout': 'authenticated',
  'GET /api/auth/me': 'authenticated',
  'POST /api/auth/register-client': 'public',
  'GET /api/auth/demo-accounts': 'public',
  'POST /api/auth/register': 'staff.manage',
  // Two-factor sign-in (issue 13): the challenge steps are public (the challenge is the credential).
  'POST /api/auth/login/otp': 'public',
  'POST /api/auth/2fa/enroll': 'public',
  'POST /api/auth/2fa/confirm': 'public',
  'GET /api/auth/2fa': 'crm.enter',
  // Issue 22: verified addresses, password reset, the mail settings, staff invitations (the link is the credential).
  'POST /api/auth/verify-email': 'public',
  'POST /api/auth/verify-email/resend': 'client',
  'POST /api/auth/password-reset': 'public',
  'POST /api/auth/password-reset/confirm': 'public',
  'PUT /api/auth/profile': 'authenticated',
  'POST /api/auth/email-change': 'client',
  'GET /api/auth/invitation': 'public',
  'POST /api/auth/invitation/accept': 'public',
  'POST /api/users/:id/invitation': 'staff.manage',
  'DELETE /api/users/:id/invitation': 'staff.manage',
  'GET /api/mail/outbox': 'mail.outbox',
  'GET /api/mail/outbox/:id': 'mail.outbox',
  'POST /api/mail/unsubscribe': 'public',
  'POST /api/auth/2fa/setup': 'crm.enter',
  'POST /api/auth/2fa/setup/confirm': 'crm.enter',
  'GET /api/users': 'staff.manage',
  'PUT /api/users/:id': 'staff.manage',
  'PUT /api/users/:id/password': 'staff.change_password',
  'DELETE /api/users/:id': 'staff.manage',
  'GET /api/staff': 'crm.enter',
  'GET /api/ip-whitelist': 'access.manage',
  'POST /api/ip-whitelist': 'access.manage',
  'DELETE /api/ip-whitelist/:id': 'access.manage',
  'GET /api/audit': 'audit.view',
  /** Issue 13: the tamper-evident audit chain, verified from its first row. */
  'GET /api/audit/verify': 'audit.view',
  'GET /api/dashboard': 'dashboard.view',
  'GET /api/clients': 'clients.view',
  'GET /api/clients/:id': 'clients.view',
  'POST /api/clients': 'clients.view',
  'PUT /api/clients/:id': 'clients.view',
  'POST /api/clients/bulk-assign-manager': 'clients.bulk_assign',
  /** §2.5 filter and add-client lists: distinct countries, campaigns (and affiliates) of the clients in scope (D5). */
  'GET /api/clients/filter-options': 'clients.view',
  /** D5, D9: streamed XLSX of the list's filters, superadmin and admin only; logged. */
  'GET /api/clients/export/excel': 'clients.export',
  /**
   * With client_id: the client card's deposits card (clients.view, scoped to the client, D5). Without it: the deposit
   * history page (§2.10), which API_ROUTE_CONDITIONS narrows to finance.view.
   */
  'GET /api/deposits': 'clients.view',
  'POST /api/deposits': 'clients.view',
  'PUT /api/deposits/:id': 'clients.view',
  'DELETE /api/deposits/:id': 'clients.view',
  /** §2.10 'Export': the deposit history's page permission; scoped like the history (D5); logged. */
  'GET /api/deposits/export/excel': 'finance.view',
  'GET /api/clients/:id/comments': 'clients.view',
  'POST /api/clients/:id/comments': 'clients.view',
  'PUT /api/comments/:id': 'clients.view',
  'GET /api/clients/:id/reminders': 'clients.view',
  'POST /api/clients/:id/reminders': 'clients.view',
  'GET /api/reminders': 'calendar.view',
  'PUT /api/reminders/:id': 'calendar.view',
  'DELETE /api/reminders/:id': 'calendar.view',
  'GET /api/prices': 'public',
  /** D11: the live-update socket; anonymous sockets get prices only (demo mode), user events need a session. */
  'GET /api/ws': 'public',
  'GET /api/prices/:symbol/candles': 'public',
  /** Issue 14: the stored ticks of a span of at most 10 minutes, so anyone can check a strike or a close. */
  'GET /api/prices/:symbol/ticks': 'public',
  /**
   * Issue 30 (D27): the price log's public key, its signed tree heads and consistency proofs between them, so anyone
   * can check the prices trades settled at.
   */
  'GET /api/price-log/key': 'public',
  'GET /api/price-log/heads': 'public',
  'GET /api/price-log/heads/latest': 'public',
  'GET /api/price-log/consistency': 'public',
  /** D16: demo mode's offer (durations and the default payout and limits); nothing about any account. */
  'GET /api/trading/demo-settings': 'public',
  'POST /api/trading/place-trade': 'client',
  'GET /api/trading/trades': 'client',
  'GET /api/trading/open-trades': 'client',
  'GET /api/trading/balance': 'client',
  'GET /api/trading/client-settings': 'client',
  /** Issue 14: the contract audit of the client's own trade (another's is 404). */
  'GET /api/trading/trades/:id/audit': 'client',
  /** Issue 14: the client's own account statement and its file. */
  'GET /api/trading/statement': 'client',
  'GET /api/trading/statement/export': 'client',
  /** Issue 30: the proof of the client's own settled trade (another's is 404), and of a period's trades as one file. */
  'GET /api/trading/trades/:id/proof': 'client',
  'GET /api/trading/proofs': 'client',
  'GET /api/trading/admin/accounts': 'trading.manage',
  'GET /api/trading/admin/accounts/:accountId': 'trading.manage',
  'GET /api/trading/admin/accounts/:accountId/active-trades': 'trading.manage',
  'GET /api/trading/admin/accounts/:accountId/ledger': 'trading.manage',
  'POST /api/trading/admin/accounts/:accountId/void-trade': 'trading.manage',
  'POST /api/trading/admin/accounts/:accountId/balance': 'trading.manage',
  'PUT /api/trading/admin/accounts/:accountId/settings': 'trading.manage',
  'POST /api/trading/admin/accounts/:accountId/block': 'trading.manage',
  'POST /api/trading/admin/accounts/:accountId/activate': 'trading.manage',
  'PUT /api/trading/admin/balance/:clientId': 'trading.manage',
  /** Issue 14: the same contract audit for staff, through the client scope (D5). */
  'GET /api/trading/admin/accounts/:accountId/trades/:id/audit': 'trading.manage',
  /** Issue 30: the same proof for staff, through the client scope (D5). */
  'GET /api/trading/admin/accounts/:accountId/trades/:id/proof': 'trading.manage',
  'POST /api/withdraw-requests': 'client',
  'GET /api/my-withdraw-requests': 'client',
  'POST /api/deposit-intents': 'client',
  'GET /api/clients/:id/deposit-intents': 'clients.view',
  'GET /api/withdraw-requests': 'finance.view',
  'PUT /api/withdraw-requests/:id/approve': 'finance.view',
  'PUT /api/withdraw-requests/:id/reject': 'finance.view',
  'POST /api/withdraw-requests/:id/reveal-card': 'finance.view',
  /** D20: manual credits waiting for a second staff member (list: finance.view; confirm and cancel: finance.approve). */
  'GET /api/manual-credits': 'finance.view',
  'POST /api/manual-credits/:id/confirm': 'finance.approve',
  'POST /api/manual-credits/:id/cancel': 'finance.approve',
  /** Issue 20 finding 11: a void asked for (void-trade, trading.manage) waits for a second person, as D20's credits. */
  'GET /api/void-requests': 'finance.view',
  'POST /api/void-requests/:id/confirm': 'finance.approve',
  'POST /api/void-requests/:id/reject': 'finance.approve',
  /** Its requester takes back their own request while it waits (the void service checks it is theirs). */
  'POST /api/void-requests/:id/withdraw': 'trading.manage',
  /** The card's client user (§2.6) and its statistics sidebar; scoped by the client (D5). */
  'POST /api/clients/:id/register-user': 'clients.view',
  'PUT /api/clients/:id/change-password': 'clients.view',
  'GET /api/clients/:id/summary': 'clients.view',
  /** Issue 9 finding 1: confirm that a self-registration linked to this lead is the lead; credits its pending deposits. */
  'POST /api/clients/:id/verify-identity': 'finance.approve',
  /** D12: the caller's own notifications. */
  'GET /api/notifications': 'crm.enter',
  'PUT /api/notifications/:id/read': 'crm.enter',
  'PUT /api/notifications/read-all': 'crm.enter',
  'DELETE /api/notifications/:id': 'crm.enter',
  'GET /api/deposit-methods': 'public',
  'GET /api/deposit-methods/all': 'trading.manage',
  'PUT /api/deposit-methods/:id': 'deposit_methods.edit',
  // Issue 22 §6: messages.send's roles, and also the client's own manager (checked in client-messages/service.ts).
  'POST /api/client-messages': 'clients.view',
  'GET /api/client-messages/:clientId': 'clients.view',
  'POST /api/my-messages': 'client',
  'GET /api/inbox': 'clients.view',
  'PUT /api/inbox/:clientId/read': 'clients.view',
  'PUT /api/client-messages/:id/read': 'client',
  'GET /api/my-messages': 'client',
  'PUT /api/my-messages/:id/read': 'client',
  /** The public site (D6) and market information (D14): no session needed. */
  'GET /api/site-content': 'public',
  'GET /api/site/facts': 'public',
  'GET /api/economic-calendar': 'public',
  'GET /api/fundamentals': 'public',
  'GET /api/fundamentals/:symbol': 'public',
  /** §2.13 Affiliates (D17): list, stats with the last postback deliveries, edit (the signing secret once), delete. */
  'GET /api/affiliates': 'affiliates.manage',
  'GET /api/affiliates/:id/stats': 'affiliates.manage',
  'PUT /api/affiliates/:id': 'affiliates.manage',
  'POST /api/affiliates/:id/rotate-secret': 'affiliates.manage',
  'DELETE /api/affiliates/:id': 'affiliates.manage',
  /** §2.11 API integration tab: the server GETs the partner's URL with the key; nothing stored. */
  'POST /api/integration/test-connection': 'integration.manage',
  /** §2.11 Affiliates tab, D17: affiliate tokens (the full token is answered once, by the POST). */
  'GET /api/affiliate-tokens': 'integration.manage',
  'POST /api/affiliate-tokens': 'integration.manage',
  'PUT /api/affiliate-tokens/:id/whitelist': 'integration.manage',
  'DELETE /api/affiliate-tokens/:id': 'integration.manage',
  /** §7 external endpoints (D13): partners with an affiliate token, never a session. */
  'POST /api/external/clients': 'affiliate_token',
  'GET /api/external/clients': 'affiliate_token',
  'POST /api/external/lead-ads': 'affiliate_token',
  'POST /api/external/search-ads': 'affiliate_token',
  /** §2.11 'File upload' (issue 10): lead import from CSV/XLSX/XLS, and its rejected rows as CSV (kept 24 h). */
  'POST /api/upload-clients': 'integration.manage',
  'GET /api/upload-clients/:id/rejected.csv': 'integration.manage',
} as const satisfies Record<string, RouteAccess>;

export type ApiRouteKey = keyof typeof API_ROUTES;

/** A route whose rule is stricter when a query parameter is absent. */
export interface RouteCondition {
  /** The query parameter whose absence narrows the rule. */
  without: string;
  /** The permission needed, on top of the route's rule, when the parameter is absent. */
  requires: Permission;
}

/**
 * Routes that serve two screens. GET /api/deposits without client_id is the whole deposit history (§2.10, §6:
 * History is finance.view); with client_id it is one client card's deposits (clients.view and that client's scope).
 * The route enforces it (a refusal is 403 and audited like the guard's); the route × role test reads it.
 */
export const API_ROUTE_CONDITIONS = {
  'GET /api/deposits': { without: 'client_id', requires: 'finance.view' },
} as const satisfies Partial<Record<ApiRouteKey, RouteCondition>>;

/** Whether a role may call a route with these query parameters, its route rule and any condition considered. */
export function roleMayCallWith(role: Role, key: ApiRouteKey, query: Record<string, unknown> = {}): boolean {
  if (!roleMayCall(role, API_ROUTES[key])) return false;
  const condition = (API_ROUTE_CONDITIONS as Partial<Record<ApiRouteKey, RouteCondition>>)[key];
  if (!condition || query[condition.without] !== undefined) return true;
  return roleMayCall(role, condition.requires);
}

/** Whether a role passes a route's access rule (authentication itself is checked separately). */
export function roleMayCall(role: Role, access: RouteAccess): boolean {
  if (access === 'public' || access === 'authenticated') return true;
  // A session of any role is no affiliate token: these routes answer 401 to every signed-in user.
  if (access === 'affiliate_token') return false;
  if (access === 'client') return role === 'client';
  return can(role, access);
}
