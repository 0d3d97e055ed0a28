import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import ipaddr from 'ipaddr.js';
import { HttpError } from './errors.js';

/**
 * Requests the server makes to addresses a staff member typed (decisions.md D17: affiliate webhooks, the API
 * integration tab's connection test). The rules: https only, and the host must not resolve to a private, loopback,
 * link-local or otherwise non-public address, checked when the URL is saved and again at each request;
 * ALLOW_PRIVATE_WEBHOOKS lifts both (tests, local setups). The request connects to the very addresses that were
 * checked (a pinned lookup), so a DNS answer that changes between the check and the connection (DNS rebinding)
 * cannot point it inside. Redirects are not followed.
 */

export interface OutboundRules {
  /** ALLOW_PRIVATE_WEBHOOKS: http and any address allowed. */
  allowPrivate: boolean;
}

/** Why a URL is refused; each is an error code of messages.ts (with {field}, {host}, {address}). */
export type OutboundRefusal = 'url_invalid' | 'url_not_https' | 'url_private_address' | 'url_unresolvable';

export class OutboundUrlError extends Error {
  constructor(
    readonly code: OutboundRefusal,
    readonly host = '',
    readonly address = '',
  ) {
    super(code);
  }
}

/** The 400 answer for a refused URL, naming the field (e.g. 'webhook_url'). */
export function refusedUrl(err: OutboundUrlError, field: string): HttpError {
  return new HttpError(400, err.code, { field, host: err.host, address: err.address });
}

/** A request that got no HTTP answer: timed out, refused, a TLS failure, or anything else on the way. */
export class OutboundNetworkError extends Error {
  constructor(
    readonly kind: 'timeout' | 'refused' | 'tls' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Only ordinary public unicast addresses pass: private (RFC 1918), loopback, link-local, unique-local, carrier-grade
 * NAT, multicast, unspecified, reserved and the IPv6 transition ranges that can embed any IPv4 are all refused.
 * An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

/** The URL if its form is acceptable (https, a host), else OutboundUrlError. Does not resolve the host. */
export function parseOutboundUrl(raw: string, rules: OutboundRules): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new OutboundUrlError('url_invalid');
  }
  const allowed = rules.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) throw new OutboundUrlError('url_not_https', url.hostname);
  if (!url.hostname) throw new OutboundUrlError('url_invalid');
  return url;
}

/** The host of a URL as dns.lookup takes it ('[::1]' → '::1'). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Every address of the host, all of them public (unless allowed), else OutboundUrlError. */
async function resolveChecked(host: string, rules: OutboundRules): Promise<dns.LookupAddress[]> {
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new OutboundUrlError('url_unresolvable', host);
  }
  if (addresses.length === 0) throw new OutboundUrlError('url_unresolvable', host);
  if (!rules.allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new OutboundUrlError('url_private_address', host, refused.address);
  }
  return addresses;
}

/** The save-time check (D17): the URL's form, and, unless allowed, that every address of its host is public. */
export async function checkOutboundUrl(raw: string, rules: OutboundRules): Promise<URL> {
  const url = parseOutboundUrl(raw, rules);
  if (!rules.allowPrivate) await resolveChecked(hostOf(url), rules);
  return url;
}

/** A lookup that answers only the addresses already checked, so the connection goes where the check looked. */
function pinnedLookup(addresses: dns.LookupAddress[]): net.LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options.family === 'number' && options.family !== 0 ? options.family : null;
    const usable = family === null ? addresses : addresses.filter((a) => a.family === family);
    const answer = callback as unknown as (
      err: Error | null,
      address: string | dns.LookupAddress[],
      family?: number,
    ) => void;
    if (usable.length === 0) {
      answer(Object.assign(new Error('no address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) answer(null, usable);
    else answer(null, usable[0]!.address, usable[0]!.family);
  };
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_OSSL)/;

function classify(err: unknown): OutboundNetworkError {
  if (err instanceof OutboundNetworkError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? '';
  const text = code || (e?.message ?? 'error');
  if (code === 'ECONNREFUSED') return new OutboundNetworkError('refused', text);
  if (TLS_CODES.test(code)) return new OutboundNetworkError('tls', text);
  return new OutboundNetworkError('failed', text);
}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  rules: OutboundRules;
}

/**
 * One request under the rules. Answers the HTTP status of any answer (2xx or not); throws OutboundUrlError when the
 * URL is refused and OutboundNetworkError when no answer came within `timeoutMs`. At most 64 KB of the answer's body
 * is read, then dropped: only the status matters.
 */
export async function outboundRequest(req: OutboundRequest): Promise<{ status: number }> {
  const url = parseOutboundUrl(req.url, req.rules);
  const lookup = req.rules.allowPrivate ? undefined : pinnedLookup(await resolveChecked(hostOf(url), req.rules));
  const headers: Record<string, string> = { 'User-Agent': 'brokerage-server', ...req.headers };
  if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      { method: req.method, headers, agent: false, ...(lookup ? { lookup } : {}) },
      (response) => {
        resolve({ status: response.statusCode ?? 0 });
        let seen = 0;
        response.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 64 * 1024) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', () => clearTimeout(timer));
      },
    );
    const timer = setTimeout(
      () => request.destroy(new OutboundNetworkError('timeout', `no answer within ${req.timeoutMs} ms`)),
      req.timeoutMs,
    );
    timer.unref();
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(classify(err));
    });
    request.end(req.body);
  });
}
