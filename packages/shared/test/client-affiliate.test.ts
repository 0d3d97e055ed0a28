import { describe, expect, it } from 'vitest';
import { clientAffiliate } from '../src/index.js';

describe('the affiliate a client is shown under (back-office.md §3, issue 27 item 12)', () => {
  it('is the affiliate of affiliate_id first: a token-posted lead whose campaign has no suffix', () => {
    expect(clientAffiliate({ affiliate_name: 'Partner One', campaign: 'Spring promo' })).toBe('Partner One');
    expect(clientAffiliate({ affiliate_name: 'Partner One', campaign: 'Spring - Other' })).toBe('Partner One');
  });
  it("then the campaign's last ' - ' segment, else none", () => {
    expect(clientAffiliate({ affiliate_name: null, campaign: 'Google - Spring - AffA' })).toBe('AffA');
    expect(clientAffiliate({ affiliate_name: null, campaign: 'Spring promo' })).toBeNull();
    expect(clientAffiliate({ affiliate_name: null, campaign: 'Spring - ' })).toBeNull();
  });
});
