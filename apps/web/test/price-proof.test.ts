import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RefLog, newSigner, type RefHead } from '../../../packages/verifier/test/reference';

// The api files load i18n, which sets the page's language: a bare document is enough outside a browser.
vi.hoisted(() => {
  Object.assign(globalThis, { document: { documentElement: {} } });
});

const {
  consistencySizes,
  overallVerdict,
  parseJson,
  proofDocuments,
  proofHeadSize,
  savedHeadOf,
  stepState,
  verifierLanguage,
  verifyChosen,
} = await import('../src/modules/price-proof/api/verify');

/**
 * The '/verify' page's own work around the verifier (issue 30 §3): reading the chosen files, which consistency proofs
 * it asks the server for when the client gives a saved head, and the verdict on a whole file. The proofs are made by
 * the verifier's independent reference log (node:crypto), not by the code under test.
 */

const T0 = 1_767_225_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const signer = newSigner();

/** EURUSD ticking every second from T0, rising by 0.00010 each time. */
function makeLog(count: number): RefLog {
  const log = new RefLog();
  for (let i = 0; i < count; i++) log.add('EURUSD', T0 + i * 1000, (1.085 + i * 0.0001).toFixed(5));
  return log;
}

/** A won 10-dollar call opened just after tick `s` (known to the log then: s + 1 ticks), closed at tick `c`. */
function proofOf(log: RefLog, id: number, s: number, c: number, head: RefHead) {
  const tick = (i: number) => log.proofTick(log.ticks[i]!, head.tree_size);
  const strike = log.ticks[s]!;
  const close = log.ticks[c]!;
  return {
    format: 'brokerage-trade-proof',
    version: 1,
    trade: {
      id,
      asset: 'EURUSD',
      direction: 'call',
      amount_cents: 1000,
      payout_percentage: 85,
      opened_at: iso(strike.time_ms + 500),
      opened_log_size: s + 1,
      strike_price: strike.price,
      strike_at: iso(strike.time_ms),
      expires_at: iso(close.time_ms + 500),
      close_price: close.price,
      close_at: iso(close.time_ms),
      status: 'won',
      profit_cents: 850,
      credit_cents: 1850,
      settled_at: iso(head.time_ms + 500),
    },
    rule: { version: 1, gap_seconds: 10, text: { ru: 'правило', en: 'the rule' } },
    ticks: { strike: tick(s), strike_next: tick(s + 1), close: tick(c), close_next: tick(c + 1) },
    head,
    public_key: signer.publicKey,
    key_id: signer.keyId,
  };
}

const log = makeLog(16);
const saved = log.head(signer, 4, T0 + 3500);
const headA = log.head(signer, 8, T0 + 6500);
const headB = log.head(signer, 15, T0 + 13_500);
const bundle = {
  format: 'brokerage-trade-proofs',
  version: 1,
  from: iso(T0),
  to: iso(T0 + 86_400_000),
  proofs: [proofOf(log, 1, 1, 5, headA), proofOf(log, 2, 8, 12, headB)],
};

/** The server's consistency call, answered from the reference log; the sizes asked are recorded. */
function serveConsistency(refuse: number[] = []) {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const q = new URL(url, 'http://x').searchParams;
      const first = Number(q.get('first'));
      const second = Number(q.get('second'));
      asked.push(`${first}-${second}`);
      if (refuse.includes(second))
        return new Response(JSON.stringify({ detail: 'no such head', code: 'not_found' }), { status: 404 });
      const byHead = [saved, headA, headB];
      const a = byHead.find((h) => h.tree_size === first)!;
      const b = byHead.find((h) => h.tree_size === second)!;
      return new Response(JSON.stringify(log.consistency(a, b)), { status: 200 });
    }),
  );
  return asked;
}

const states = (run: Awaited<ReturnType<typeof verifyChosen>>) =>
  run.verdicts.map((v) => Object.fromEntries(v.steps.map((s) => [s.id, stepState(s.ok)])));

afterEach(() => vi.unstubAllGlobals());

describe('/verify: reading the chosen files', () => {
  it('reads JSON (with or without a byte order mark) and refuses anything else', () => {
    expect(parseJson('\uFEFF{"a":1}')).toEqual({ ok: true, json: { a: 1 } });
    expect(parseJson('{"a":')).toEqual({ ok: false });
    expect(parseJson('')).toEqual({ ok: false });
  });

  it('takes a saved head as the page saves it, or under `head`, and nothing that is not a head', () => {
    expect(savedHeadOf(saved)).toEqual(saved);
    expect(savedHeadOf({ head: headA, other: 1 })).toEqual(headA);
    expect(savedHeadOf({ ...saved, root: 'zz' })).toBeNull();
    expect(savedHeadOf(bundle)).toBeNull();
  });

  it("finds a file's proofs and the size of each proof's head", () => {
    expect(proofDocuments(bundle)).toHaveLength(2);
    expect(proofDocuments(bundle.proofs[0])).toEqual([bundle.proofs[0]]);
    expect(proofDocuments(bundle).map(proofHeadSize)).toEqual([8, 15]);
    expect(proofHeadSize({ head: { tree_size: '8' } })).toBeNull();
  });

  it('asks for the older tree first, whichever head the client saved', () => {
    expect(consistencySizes(4, 8)).toEqual({ first: 4, second: 8 });
    expect(consistencySizes(20, 8)).toEqual({ first: 8, second: 20 });
  });

  it('speaks to the verifier in ru for ru and kk, en for en', () => {
    expect(['ru', 'kk', 'en'].map(verifierLanguage)).toEqual(['ru', 'ru', 'en']);
  });

  it('passes a file only when it holds proofs and every one passed', () => {
    const v = (ok: boolean) => ({ ok, trade_id: 1, steps: [], summary: '' });
    expect(overallVerdict([])).toBe('empty');
    expect(overallVerdict([v(true), v(true)])).toBe('passed');
    expect(overallVerdict([v(true), v(false)])).toBe('failed');
    expect([true, false, null].map(stepState)).toEqual(['passed', 'failed', 'skipped']);
  });
});

describe('/verify: the verification run', () => {
  it('without a saved head asks the server nothing and leaves the consistency check grey', async () => {
    const asked = serveConsistency();
    const run = await verifyChosen(bundle, null, 'en', new QueryClient());
    expect(asked).toEqual([]);
    expect(run.verdicts.map((v) => v.ok)).toEqual([true, true]);
    expect(states(run).map((s) => s.consistency)).toEqual(['skipped', 'skipped']);
    expect(states(run)[0]).toMatchObject({ signature: 'passed', inclusion: 'passed', result: 'passed' });
  });

  it("with a saved head asks one consistency proof per proof head, and each trade's log-only-grew check passes", async () => {
    const asked = serveConsistency();
    const run = await verifyChosen(bundle, saved, 'ru', new QueryClient());
    expect(asked.sort()).toEqual(['4-15', '4-8']);
    expect(run.consistencyRefusals).toEqual([]);
    expect(states(run).map((s) => s.consistency)).toEqual(['passed', 'passed']);
    expect(run.verdicts.every((v) => v.ok)).toBe(true);
    // The verifier's texts come in the language asked.
    expect(run.verdicts[0]!.summary).toMatch(/[а-я]/);
  });

  it('a head the server will not join to the saved one is reported, and that trade fails its consistency check', async () => {
    serveConsistency([15]);
    const run = await verifyChosen(bundle, saved, 'en', new QueryClient());
    expect(run.consistencyRefusals).toEqual([{ size: 15, detail: 'no such head' }]);
    expect(states(run).map((s) => s.consistency)).toEqual(['passed', 'failed']);
    expect(overallVerdict(run.verdicts)).toBe('failed');
  });

  it('a price changed in the file fails the inclusion check', async () => {
    serveConsistency();
    const tampered = structuredClone(bundle);
    tampered.proofs[1]!.ticks.close.price = '1.08621';
    const run = await verifyChosen(tampered, null, 'en', new QueryClient());
    expect(states(run).map((s) => s.inclusion)).toEqual(['passed', 'failed']);
    expect(overallVerdict(run.verdicts)).toBe('failed');
  });
});
