import type { Lang, TestConnection, TestConnectionResponse } from '@brokerage/shared';
import type { Actor } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { Db } from '../../platform/db/index.js';
import { redactUrl } from '../../platform/http/logging.js';
import { errorMessage } from '../../platform/http/messages.js';
import {
  OutboundNetworkError,
  OutboundUrlError,
  outboundRequest,
  refusedUrl,
  type OutboundRules,
} from '../../platform/http/outbound.js';

const TIMEOUT_MS = 5000;

/**
 * POST /api/integration/test-connection (back-office.md §2.11 'API integration'): the server GETs the partner's URL
 * with `Authorization: Bearer <api_key>` under the webhook address rules (D17), 5 s at most, and reports the status
 * and the time. Nothing is stored; the key is neither logged nor audited (the audit row has the URL without its query).
 */
export async function testConnection(
  deps: { db: Db; rules: OutboundRules },
  actor: Actor,
  input: TestConnection,
  lang: Lang,
): Promise<TestConnectionResponse> {
  const started = performance.now();
  let status: number | null = null;
  let detail: string;
  try {
    status = (
      await outboundRequest({
        url: input.api_url,
        method: 'GET',
        headers: { Authorization: `Bearer ${input.api_key}`, Accept: 'application/json' },
        timeoutMs: TIMEOUT_MS,
        rules: deps.rules,
      })
    ).status;
    detail = errorMessage(status >= 200 && status < 300 ? 'outbound_ok' : 'outbound_http_error', lang, { status });
  } catch (err) {
    if (err instanceof OutboundUrlError) throw refusedUrl(err, 'api_url');
    if (!(err instanceof OutboundNetworkError)) throw err;
    const code = {
      timeout: 'outbound_timeout',
      refused: 'outbound_refused',
      tls: 'outbound_tls',
      failed: 'outbound_failed',
    } as const;
    detail = errorMessage(code[err.kind], lang, { seconds: TIMEOUT_MS / 1000, error: err.message });
  }
  const result: TestConnectionResponse = {
    ok: status !== null && status >= 200 && status < 300,
    status,
    time_ms: Math.round(performance.now() - started),
    detail,
  };
  await writeAudit(deps.db, actor, {
    action: 'integration.test_connection',
    entityType: 'integration',
    after: { api_url: redactUrl(input.api_url).split('?')[0], ok: result.ok, status },
  });
  return result;
}
