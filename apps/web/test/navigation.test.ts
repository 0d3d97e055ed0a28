import { STAFF_ROLES, homePathFor, menuFor } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import { deniedAs, mayOpen } from '../src/areas/crm/route-permissions';
import { readDetail } from '../src/lib/error-detail';
import { pageTitleKey } from '../src/modules/layout/page-title';

describe('mobile header title (§2.2)', () => {
  it.each([
    ['/', 'menu.dashboard'],
    ['/crm/dashboard', 'menu.dashboard'],
    ['/crm/staff', 'menu.staff'],
    ['/crm/staff/', 'menu.staff'],
    ['/crm/audit', 'menu.audit'],
    ['/crm/clients', 'menu.clients'],
    ['/crm/clients/42', 'layout.clientCard'],
    ['/crm/trading-accounts/abc', 'menu.tradingAccounts'],
    ['/crm/nowhere', 'layout.crm'],
    ['/something', 'layout.crm'],
  ])('%s → %s', (path, key) => expect(pageTitleKey(path)).toBe(key));
});

describe('/crm section guard (§6, D10)', () => {
  it('sends sales roles away from applications and history', () => {
    for (const role of ['sales_manager', 'team_lead_sales'] as const) {
      expect(mayOpen(role, '/crm/applications')).toBe(false);
      expect(mayOpen(role, '/crm/history')).toBe(false);
      expect(homePathFor(role)).toBe('/crm/dashboard');
    }
    expect(mayOpen('retention_manager', '/crm/applications')).toBe(true);
  });

  it('lets each role open exactly its menu sections', () => {
    for (const role of STAFF_ROLES) {
      const allowed = new Set(menuFor(role).map((entry) => entry.path));
      for (const path of [
        '/crm/dashboard',
        '/crm/access',
        '/crm/audit',
        '/crm/integration',
        '/crm/trading-accounts',
        '/crm/trading-management',
      ]) {
        expect(mayOpen(role, path), `${role} ${path}`).toBe(allowed.has(path));
      }
    }
  });

  it('redirects only where §2.1 says so; every other refusal is the access-denied page (issue 15, defect 12)', () => {
    expect(deniedAs('sales_manager', '/crm/applications')).toBe('redirect');
    expect(deniedAs('team_lead_sales', '/crm/history')).toBe('redirect');
    expect(deniedAs('sales_manager', '/crm/audit')).toBe('denied');
    expect(deniedAs('sales_manager', '/crm/access')).toBe('denied');
    expect(deniedAs('retention_manager', '/crm/audit')).toBe('denied');
    expect(deniedAs('admin', '/crm/dashboard')).toBe('denied');
  });

  it('lets the staff page answer for itself (§2.12 access-denied screen)', () => {
    expect(mayOpen('sales_manager', '/crm/staff')).toBe(true);
  });

  it('opens trading management to whoever holds one of its tabs (issue 27 item 12)', () => {
    // admin sends client messages (messages.send) without trading.manage: it was 'Доступ запрещён'.
    expect(mayOpen('admin', '/crm/trading-management')).toBe(true);
    expect(mayOpen('sales_manager', '/crm/trading-management')).toBe(true);
    expect(mayOpen('manager', '/crm/trading-management')).toBe(false);
  });

  it('keeps admin (no dashboard) away from the dashboard', () => {
    expect(mayOpen('admin', '/crm/dashboard')).toBe(false);
    expect(homePathFor('admin')).toBe('/crm/clients');
  });

  it('guards sub-pages by their section and leaves unknown paths to the not-found page', () => {
    expect(mayOpen('sales_manager', '/crm/history/5')).toBe(false);
    expect(mayOpen('sales_manager', '/crm/affiliates')).toBe(false);
    expect(mayOpen('admin', '/crm/affiliates')).toBe(true);
    expect(mayOpen('sales_manager', '/crm/unknown')).toBe(true);
  });
});

describe('server error detail (§8)', () => {
  it('reads a string as is', () => expect(readDetail('Email already registered')).toBe('Email already registered'));
  it('joins an array with ". " using msg or message', () =>
    expect(readDetail([{ msg: 'a' }, { message: 'b' }, 'c'])).toBe('a. b. c'));
  it('shows anything else as JSON', () => expect(readDetail({ x: 1 })).toBe('{"x":1}'));
  it('is empty when missing', () => expect(readDetail(undefined)).toBe(''));
});
