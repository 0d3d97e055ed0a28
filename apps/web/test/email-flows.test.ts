import { passwordField } from '@brokerage/shared';
import { describe, expect, it, vi } from 'vitest';
import enPlatform from '../src/i18n/locales/en/platform.json';
import kkPlatform from '../src/i18n/locales/kk/platform.json';
import ruPlatform from '../src/i18n/locales/ru/platform.json';

// lib/api loads i18n, which sets the page's language: a bare document is enough outside a browser.
vi.hoisted(() => {
  Object.assign(globalThis, { document: { documentElement: {} } });
});

const { ApiError } = await import('../src/lib/api');
const { default: i18n } = await import('../src/i18n');
const { EMAIL_FLOW_CODES, emailFlowErrorText, isDeadLink } = await import('../src/modules/auth/email-errors');
const { passwordPairErrors } = await import('../src/modules/auth/password-pair');
const { contactsLine } = await import('../src/modules/auth/contacts');
const { linkToken } = await import('../src/modules/auth/api/email');

/** Every leaf path of a nested object of strings ('a.b.c'). */
function leaves(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) => leaves(inner, prefix ? `${prefix}.${key}` : key));
}

describe('issue 22: the e-mail flows of the web', () => {
  it('has every client text of the flows in ru, en and kk, none empty', () => {
    const ru = leaves(ruPlatform.emailFlows).sort();
    expect(leaves(enPlatform.emailFlows).sort()).toEqual(ru);
    expect(leaves(kkPlatform.emailFlows).sort()).toEqual(ru);
    for (const code of EMAIL_FLOW_CODES) expect(ru).toContain(`errors.${code}`);
  });

  it('shows a refusal by its code in the interface language, else the server detail, else the fallback', async () => {
    const expired = new ApiError(400, 'Срок действия ссылки истёк', 'link_expired');
    await i18n.changeLanguage('kk');
    expect(emailFlowErrorText(expired, 'x')).toBe(kkPlatform.emailFlows.errors.link_expired);
    await i18n.changeLanguage('en');
    expect(emailFlowErrorText(expired, 'x')).toBe(enPlatform.emailFlows.errors.link_expired);
    expect(emailFlowErrorText(new ApiError(409, 'Confirm first', 'email_unverified'), 'x')).toBe(
      enPlatform.emailFlows.errors.email_unverified,
    );
    // A code the flows do not know: the server's own text.
    expect(emailFlowErrorText(new ApiError(429, 'Too many requests', 'rate_limited'), 'x')).toBe('Too many requests');
    // No answer at all (the network): the screen's fallback.
    expect(emailFlowErrorText(new TypeError('Failed to fetch'), 'fallback')).toBe('fallback');
    await i18n.changeLanguage('ru');
  });

  it('tells a dead link (unknown, used, expired) from other refusals', () => {
    for (const code of ['link_invalid', 'link_used', 'link_expired'])
      expect(isDeadLink(new ApiError(400, '', code))).toBe(true);
    expect(isDeadLink(new ApiError(429, '', 'password_reset_limited'))).toBe(false);
    expect(isDeadLink(new ApiError(500, ''))).toBe(false);
  });

  it('checks a new password typed twice: the shared rule first, then the repetition', () => {
    const options = { translate: (message: string) => `T(${message})`, mismatch: 'mismatch' };
    expect(passwordPairErrors({ password: '', confirm: '' }, passwordField, options)).toEqual({
      password: 'T(required)',
    });
    expect(passwordPairErrors({ password: 'abc', confirm: 'abc' }, passwordField, options)).toEqual({
      password: 'T(min_length:6)',
    });
    expect(passwordPairErrors({ password: 'secret-1', confirm: 'secret-2' }, passwordField, options)).toEqual({
      confirm: 'mismatch',
    });
    expect(passwordPairErrors({ password: 'secret-1', confirm: 'secret-1' }, passwordField, options)).toEqual({});
  });

  it("joins the site content's contacts for the reset hint, empty when none are filled", () => {
    expect(contactsLine(undefined)).toBe('');
    expect(contactsLine({ contacts: { email: '  ', phone: '' } })).toBe('');
    expect(contactsLine({ contacts: { email: 'help@broker.kz', phone: ' +7 727 000 00 00 ' } })).toBe(
      'help@broker.kz, +7 727 000 00 00',
    );
    expect(contactsLine({ contacts: { phone: '+7 727 000 00 00' } })).toBe('+7 727 000 00 00');
  });

  it("reads the token of an e-mail link, '' when there is none", () => {
    expect(linkToken('?token=abc-DEF_123')).toBe('abc-DEF_123');
    expect(linkToken('?utm=x&token=%20t0k%20')).toBe('t0k');
    expect(linkToken('')).toBe('');
    expect(linkToken('?token=')).toBe('');
  });
});
