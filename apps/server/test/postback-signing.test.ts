import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../src/modules/postbacks/jobs.js';
import { postbackBody, postbackHeaders, postbackSignature } from '../src/modules/postbacks/signing.js';
import { OutboundUrlError, isPublicAddress, parseOutboundUrl } from '../src/platform/http/outbound.js';

/** The pure parts of D17: the signature (against vectors computed independently with openssl), the body, the rules. */
describe('postback signature', () => {
  // printf '%s' '<timestamp>.<body>' | openssl dgst -sha256 -hmac '<secret>'
  it('is sha256= and the lowercase hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the secret’s UTF-8 bytes', () => {
    const body =
      '{"event":"PURCHASE","client_id":42,"status":"ftd","ftd":true,"amount":250.5,"occurred_at":"2026-01-01T00:00:00.000Z"}';
    expect(postbackSignature('whsec_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo', '1767225600', body)).toBe(
      'sha256=f7a88e4a8b0de685fad0d3f4333c5ec4f4180c6c013139dcc6327efe15ee11ac',
    );
    const unicode =
      '{"event":"LEAD","client_id":7,"status":"new","ftd":false,"occurred_at":"2026-01-01T00:00:00.000Z","name":"Жанна"}';
    expect(postbackSignature('секрет-ключ', '1767225600', unicode)).toBe(
      'sha256=768a61b29a4d01d2180399dca3545f32fe50939afacacede73223d415b94e3c0',
    );
  });

  it('headers carry the unix seconds of the moment and the signature over exactly that timestamp', () => {
    const body = '{"event":"STATUS"}';
    const id = '4f0c2a9e-8a51-4d7b-9c3e-2b1d5e6f7a80';
    const headers = postbackHeaders('s3cret', body, new Date('2026-01-01T00:00:00.999Z'), id);
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'X-Event-Id': id,
      'X-Timestamp': '1767225600',
      'X-Signature': postbackSignature('s3cret', '1767225600', body),
    });
  });

  it('the body lists the event id, then the fields in the documented order, amount only when there is one', () => {
    const id = '4f0c2a9e-8a51-4d7b-9c3e-2b1d5e6f7a80';
    const base = { client_id: 9, status: 'ftd', ftd: true, occurred_at: '2026-01-01T00:00:00.000Z' };
    expect(postbackBody(id, { ...base, event: 'STATUS' })).toBe(
      `{"event_id":"${id}","event":"STATUS","client_id":9,"status":"ftd","ftd":true,"occurred_at":"2026-01-01T00:00:00.000Z"}`,
    );
    expect(JSON.parse(postbackBody(id, { ...base, event: 'PURCHASE', amount: 10 }))).toEqual({
      event_id: id,
      event: 'PURCHASE',
      ...base,
      amount: 10,
    });
  });

  it('retries after 10 s, doubling, at most an hour', () => {
    expect([1, 2, 3, 4, 9, 10, 30].map(retryDelayMs)).toEqual([
      10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000, 3_600_000,
    ]);
  });
});

describe('webhook address rules', () => {
  it('only public unicast addresses pass', () => {
    for (const ok of ['93.184.215.14', '8.8.8.8', '2606:4700::1111']) expect(isPublicAddress(ok), ok).toBe(true);
    for (const refused of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      'not-an-ip',
    ])
      expect(isPublicAddress(refused), refused).toBe(false);
  });

  it('https only, unless private webhooks are allowed', () => {
    const strict = { allowPrivate: false };
    const code = (raw: string, rules = strict) => {
      try {
        parseOutboundUrl(raw, rules);
        return 'ok';
      } catch (err) {
        return (err as OutboundUrlError).code;
      }
    };
    expect(code('https://partner.example/hook')).toBe('ok');
    expect(code('http://partner.example/hook')).toBe('url_not_https');
    expect(code('ftp://partner.example/hook')).toBe('url_not_https');
    expect(code('partner.example/hook')).toBe('url_invalid');
    expect(code('')).toBe('url_invalid');
    expect(code('http://127.0.0.1:8080/hook', { allowPrivate: true })).toBe('ok');
    expect(code('file:///etc/passwd', { allowPrivate: true })).toBe('url_not_https');
  });
});
