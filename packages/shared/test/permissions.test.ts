import { describe, expect, it } from 'vitest';
import {
  API_ROUTES,
  PASSWORD_ALPHABET,
  PERMISSIONS,
  ROLES,
  STAFF_ROLES,
  can,
  generatePassword,
  homePathFor,
  menuFor,
  registerClientRequestSchema,
  registerStaffRequestSchema,
  roleMayCall,
  validationMessage,
  type Permission,
  type Role,
  type RouteAccess,
} from '../src/index.js';

/** back-office.md §6 (menu rows) plus D9 (audit), written out role by role so a change to the table shows up here. */
const EXPECTED_MENU: Record<Role, string[]> = {
  superadmin: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/applications',
    '/crm/history',
    '/crm/integration',
    '/crm/affiliates',
    '/crm/staff',
    '/crm/trading-management',
    '/crm/trading-accounts',
    '/crm/access',
    '/crm/audit',
    // Issue 22 §1: the outgoing mail (rendered bodies with their links) is the superadmin's.
    '/crm/outbox',
  ],
  admin: [
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/applications',
    '/crm/history',
    '/crm/integration',
    '/crm/affiliates',
    '/crm/staff',
    // Issue 27 item 12: for the client messages tab (messages.send); the deposit methods tab is not shown to admin.
    '/crm/trading-management',
  ],
  team_lead_sales: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/trading-management',
    '/crm/trading-accounts',
  ],
  sales_manager: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/trading-management',
    '/crm/trading-accounts',
  ],
  team_lead_retention: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/applications',
    '/crm/history',
    '/crm/trading-management',
    '/crm/trading-accounts',
  ],
  retention_manager: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/applications',
    '/crm/history',
    '/crm/trading-management',
    '/crm/trading-accounts',
  ],
  manager: [
    '/crm/dashboard',
    '/crm/clients',
    // Issue 22 §6: every staff member sees the conversations of their scope.
    '/crm/inbox',
    '/crm/calendar',
    '/crm/applications',
    '/crm/history',
  ],
  client: [],
};

describe('the side menu of §6', () => {
  it.each(ROLES)('%s sees exactly its menu entries, in menu order', (role) => {
    expect(menuFor(role).map((e) => e.path)).toEqual(EXPECTED_MENU[role]);
  });

  it('gives the dashboard to every role except admin', () => {
    const withDashboard = STAFF_ROLES.filter((r) => menuFor(r).some((e) => e.path === '/crm/dashboard'));
    expect(withDashboard).toEqual(STAFF_ROLES.filter((r) => r !== 'admin'));
  });

  it('hides applications and history from sales roles only', () => {
    for (const role of STAFF_ROLES) {
      const paths = menuFor(role).map((e) => e.path);
      const sales = role === 'team_lead_sales' || role === 'sales_manager';
      expect(paths.includes('/crm/applications'), role).toBe(!sales);
      expect(paths.includes('/crm/history'), role).toBe(!sales);
    }
  });

  it('gives access and audit to superadmin alone, staff to superadmin and admin', () => {
    const holders = (path: string) => ROLES.filter((r) => menuFor(r).some((e) => e.path === path));
    expect(holders('/crm/access')).toEqual(['superadmin']);
    expect(holders('/crm/audit')).toEqual(['superadmin']);
    expect(holders('/crm/staff')).toEqual(['superadmin', 'admin']);
    expect(holders('/crm/integration')).toEqual(['superadmin', 'admin']);
    expect(holders('/crm/affiliates')).toEqual(['superadmin', 'admin']);
    expect(holders('/crm/trading-accounts').sort()).toEqual(
      ['superadmin', 'team_lead_sales', 'team_lead_retention', 'sales_manager', 'retention_manager'].sort(),
    );
  });
});

describe('where a user lands', () => {
  it.each([
    ['client', '/trading'],
    ['admin', '/crm/clients'],
    ['superadmin', '/crm/dashboard'],
    ['team_lead_sales', '/crm/dashboard'],
    ['team_lead_retention', '/crm/dashboard'],
    ['sales_manager', '/crm/dashboard'],
    ['retention_manager', '/crm/dashboard'],
    ['manager', '/crm/dashboard'],
  ] as [Role, string][])('%s → %s', (role, path) => {
    expect(homePathFor(role)).toBe(path);
  });

  it('always lands a staff member on a page of their own menu', () => {
    for (const role of STAFF_ROLES) expect(menuFor(role).map((e) => e.path)).toContain(homePathFor(role));
  });
});

describe('can()', () => {
  const permissions = Object.keys(PERMISSIONS) as Permission[];

  it('never grants anything to a client, or to nobody', () => {
    for (const p of permissions) {
      expect(can('client', p), p).toBe(false);
      expect(can(null, p), p).toBe(false);
      expect(can(undefined, p), p).toBe(false);
    }
  });

  it('grants the table rows of §6 that are not menu entries', () => {
    expect(STAFF_ROLES.filter((r) => can(r, 'staff.change_password'))).toEqual(['superadmin']);
    expect(STAFF_ROLES.filter((r) => can(r, 'clients.export'))).toEqual(['superadmin', 'admin']);
    expect(STAFF_ROLES.filter((r) => can(r, 'clients.change_manager'))).toEqual([
      'superadmin',
      'admin',
      'team_lead_sales',
      'team_lead_retention',
    ]);
    expect(STAFF_ROLES.filter((r) => can(r, 'clients.bulk_assign'))).toEqual([
      'superadmin',
      'team_lead_sales',
      'team_lead_retention',
    ]);
    expect(STAFF_ROLES.filter((r) => can(r, 'messages.send'))).toEqual(['superadmin', 'admin', 'team_lead_retention']);
    expect(STAFF_ROLES.filter((r) => can(r, 'deposit_methods.edit'))).toEqual(['superadmin']);
    expect(STAFF_ROLES.filter((r) => can(r, 'crm.enter'))).toEqual([...STAFF_ROLES]);
  });
});

describe('the route registry', () => {
  it("gives every route 'public', 'authenticated', 'client', 'affiliate_token' or a permission of the table", () => {
    const allowed = new Set<string>([
      'public',
      'authenticated',
      'client',
      'affiliate_token',
      ...Object.keys(PERMISSIONS),
    ]);
    for (const [route, access] of Object.entries(API_ROUTES)) {
      expect(allowed.has(access), `${route}: ${access}`).toBe(true);
      expect(route).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/api\//);
    }
  });

  it('lets a client call only public, authenticated and client routes', () => {
    for (const [route, access] of Object.entries(API_ROUTES) as [string, RouteAccess][]) {
      const expected = access === 'public' || access === 'authenticated' || access === 'client';
      expect(roleMayCall('client', access), route).toBe(expected);
    }
  });

  it('lets no session of any role call an affiliate-token route', () => {
    for (const role of [...STAFF_ROLES, 'client' as const]) expect(roleMayCall(role, 'affiliate_token')).toBe(false);
  });

  it('refuses client-only routes to staff', () => {
    for (const role of STAFF_ROLES) expect(roleMayCall(role, 'client')).toBe(false);
  });
});

describe('generatePassword', () => {
  it('uses the 70-character alphabet of §5', () => {
    expect(PASSWORD_ALPHABET).toHaveLength(70);
    expect(new Set(PASSWORD_ALPHABET).size).toBe(70);
    expect(PASSWORD_ALPHABET).toMatch(/^[A-Za-z0-9!@#$%^&*]+$/);
  });

  it('gives 12 characters, each drawn from the alphabet by the random source', () => {
    const picks: number[] = [];
    const password = generatePassword((n) => {
      expect(n).toBe(70);
      const i = (picks.length * 7) % n;
      picks.push(i);
      return i;
    });
    expect(password).toHaveLength(12);
    expect(password).toBe(picks.map((i) => PASSWORD_ALPHABET[i]).join(''));
  });

  it('reaches the first and the last character of the alphabet', () => {
    expect(generatePassword(() => 0)).toBe('A'.repeat(12));
    expect(generatePassword((n) => n - 1)).toBe('*'.repeat(12));
    expect(generatePassword(() => 0, 16)).toHaveLength(16);
  });
});

function messages(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  expect(result.success).toBe(false);
  return Object.fromEntries(result.error!.issues.map((i) => [i.path.join('.'), i.message]));
}

describe('registerStaffRequestSchema', () => {
  const valid = { name: 'Ann Lee', email: 'Ann@Example.com', password: 'secret1', role: 'sales_manager' };

  it('accepts a valid member, trimmed, with the e-mail lower-cased', () => {
    const parsed = registerStaffRequestSchema.parse({ ...valid, name: '  Ann Lee  ' });
    expect(parsed).toEqual({ name: 'Ann Lee', email: 'ann@example.com', password: 'secret1', role: 'sales_manager' });
  });

  it("says 'required' for each missing or blank field", () => {
    // Issue 22 §4: the password may be left out (the member is invited to set one).
    expect(messages(registerStaffRequestSchema.safeParse({ role: 'admin' }))).toEqual({
      name: 'required',
      email: 'required',
    });
    expect(registerStaffRequestSchema.safeParse({ ...valid, password: '' }).success).toBe(true);
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, name: '   ', email: ' ' }))).toEqual({
      name: 'required',
      email: 'required',
    });
  });

  it('names bad e-mail, short password, unknown role, wrong type', () => {
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, email: 'not-an-email' }))).toEqual({
      email: 'invalid_email',
    });
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, password: '12345' }))).toEqual({
      password: 'min_length:6',
    });
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, role: 'client' }))).toEqual({
      role: 'invalid_role',
    });
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, role: 'manager' }))).toEqual({
      role: 'invalid_role',
    });
    expect(messages(registerStaffRequestSchema.safeParse({ ...valid, name: 42 }))).toEqual({ name: 'invalid_type' });
  });

  it('refuses unknown fields', () => {
    const result = registerStaffRequestSchema.safeParse({ ...valid, is_admin: true });
    expect(result.success).toBe(false);
  });
});

describe('registerClientRequestSchema', () => {
  const valid = { name: 'Ivan', email: 'ivan@example.com', password: 'secret1' };

  it('accepts a client without a phone, and with a phone of 10+ digits', () => {
    expect(registerClientRequestSchema.safeParse(valid).success).toBe(true);
    expect(registerClientRequestSchema.parse({ ...valid, phone: ' +7 (701) 123-45-67 ' }).phone).toBe(
      '+7 (701) 123-45-67',
    );
    expect(registerClientRequestSchema.safeParse({ ...valid, phone: '' }).success).toBe(true);
  });

  it('gives a code per field at fault', () => {
    expect(messages(registerClientRequestSchema.safeParse({}))).toEqual({
      name: 'required',
      email: 'required',
      password: 'required',
    });
    expect(messages(registerClientRequestSchema.safeParse({ ...valid, email: 'ivan@' }))).toEqual({
      email: 'invalid_email',
    });
    expect(messages(registerClientRequestSchema.safeParse({ ...valid, password: 'abc' }))).toEqual({
      password: 'min_length:6',
    });
    expect(messages(registerClientRequestSchema.safeParse({ ...valid, phone: '+7 701 12' }))).toEqual({
      phone: 'invalid_phone',
    });
    expect(messages(registerClientRequestSchema.safeParse({ ...valid, name: 'x'.repeat(121) }))).toEqual({
      name: 'max_length:120',
    });
  });

  it('turns the codes into sentences in ru and en', () => {
    expect(validationMessage('min_length:6', 'ru')).toBe('Минимум 6 символов');
    expect(validationMessage('min_length:6', 'en')).toBe('Minimum 6 characters');
    expect(validationMessage('required', 'en')).toBe('Required field');
    expect(validationMessage('invalid_phone', 'ru')).toBe('Введите корректный номер телефона');
    expect(validationMessage('some free text', 'en')).toBe('some free text');
  });
});
