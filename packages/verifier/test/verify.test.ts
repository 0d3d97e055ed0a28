import { describe, expect, it } from 'vitest';
import * as fromPackage from '@brokerage/verifier';
import { verifyFile, verifyProof, type Step, type StepId, type Verdict } from '../src/index.js';
import { document, EXPIRY, market, settledCase, T, wonCase, type ProofDoc } from './documents.js';
import { newSigner, RefLog, signHead } from './reference.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const clone = <V>(v: V): V => structuredClone(v);

function byId(verdict: Verdict): Record<StepId, Step> {
  return Object.fromEntries(verdict.steps.map((s) => [s.id, s])) as Record<StepId, Step>;
}

/** The ids of the steps that failed. */
function failed(verdict: Verdict): StepId[] {
  return verdict.steps.filter((s) => s.ok === false).map((s) => s.id);
}

const ALL: StepId[] = [
  'format',
  'signature',
  'inclusion',
  'ticks',
  'strike',
  'close',
  'result',
  'head_time',
  'consistency',
];

describe('proofs of every result verify', () => {
  it('won: each check passes and names its values (en)', async () => {
    const { doc } = wonCase();
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.trade_id).toBe(4242);
    expect(verdict.steps.map((s) => s.id)).toEqual(ALL);
    const steps = byId(verdict);
    expect(steps.consistency.ok).toBeNull();
    expect(steps.close.text).toBe(
      'The close price 1.08531 (12:00:59.6 UTC) is the last price at or before the expiry at 2026-01-01 12:01:00 UTC: the next price, 1.08529 at 12:01:00.4 UTC, is later.',
    );
    expect(steps.strike.text).toContain(
      'The strike price 1.08520 is the last price at or before the opening at 12:00:00.5 UTC',
    );
    expect(steps.result.text).toContain('up (call), close 1.08531 > strike 1.08520');
    expect(steps.result.text).toContain('⌊10.00 × 85%⌋ = 8.50, credited 18.50');
    expect(steps.signature.text).toContain(doc.key_id);
    expect(verdict.summary).toContain('Trade #4242: all checks passed');
  });

  it('won in Russian', async () => {
    const verdict = await verifyProof(wonCase().doc);
    expect(verdict.ok).toBe(true);
    expect(byId(verdict).close.text).toBe(
      'Цена закрытия 1.08531 (12:00:59.6 UTC) — последняя цена до экспирации 2026-01-01 12:01:00 UTC: следующая цена 1.08529 в 12:01:00.4 UTC позже.',
    );
    expect(byId(verdict).result.text).toContain('Результат «выигрыш» следует из опубликованного правила');
    expect(verdict.summary).toContain('Сделка №4242: все проверки пройдены');
  });

  it('lost, tie (1.0852 equals 1.08520 as decimals) and no_price by the gap rule', async () => {
    const lost = settledCase({ direction: 'put', status: 'lost', profit_cents: -1_000, credit_cents: 0 });
    const tie = settledCase({ close: '1.0852', status: 'tie', profit_cents: 0, credit_cents: 1_000 });
    const gap = settledCase({ closeAge: 15_000, status: 'no_price', profit_cents: 0, credit_cents: 1_000 });
    for (const c of [lost, tie, gap]) {
      const verdict = await verifyProof(c.doc, { lang: 'en' });
      expect(failed(verdict), c.doc.trade.status).toEqual([]);
      expect(verdict.ok).toBe(true);
    }
    const gapVerdict = await verifyProof(gap.doc, { lang: 'en' });
    expect(byId(gapVerdict).result.text).toContain('is 15 s older than the expiry, more than the 10 s allowed');
    // The gap rule's bound: a close exactly 10 s old still decides.
    const edge = settledCase({ closeAge: 10_000, status: 'won', profit_cents: 850, credit_cents: 1_850 });
    expect((await verifyProof(edge.doc)).ok).toBe(true);
  });

  it('void: the decision is not judged (ok null), the stake must come back', async () => {
    const voided = settledCase({ status: 'void', profit_cents: 0, credit_cents: 1_000, priced: false });
    const verdict = await verifyProof(voided.doc, { lang: 'en' });
    expect(verdict.ok).toBe(true);
    expect(byId(verdict).result.ok).toBeNull();
    expect(byId(verdict).result.text).toContain('voided by staff');
    expect(verdict.summary).toContain('the void is a staff decision the proof cannot judge');
    const kept = clone(voided.doc);
    kept.trade.credit_cents = 0;
    kept.trade.profit_cents = -1_000;
    expect(failed(await verifyProof(kept))).toEqual(['result']);
  });

  it('void before the expiry: no close ticks, the close is not checked', async () => {
    const m = market();
    const size = m.strikeNext.index + 1;
    const head = m.log.head(m.signer, size, T + 1_500);
    const doc = document(
      m.log,
      m.signer,
      head,
      {
        ...wonCase(m.signer).doc.trade,
        opened_log_size: m.openedLogSize,
        status: 'void',
        close_price: null,
        close_at: null,
        profit_cents: 0,
        credit_cents: 1_000,
        settled_at: iso(T + 5_000),
      },
      { strike: m.strike, strike_next: m.strikeNext, close: null, close_next: null },
    );
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual([]);
    expect(byId(verdict).close.ok).toBeNull();
    expect(byId(verdict).strike.ok).toBe(true);
  });

  it('no close at all (close null, close_next #1) is refused: the strike tick itself is a price before the expiry', async () => {
    // D27 check 3 allows close null only when close_next is the symbol's first tick; a real trade cannot have it, as
    // its strike tick is a price at or before the expiry. The document below needs a forged second tick #1.
    const log = new RefLog();
    const signer = newSigner();
    const strike = log.add('XAUUSD', T + 200, '2650.10');
    const openedLogSize = log.ticks.length;
    const strikeNext = log.add('XAUUSD', T + 900, '2650.20');
    const forged = log.addForged('XAUUSD', 1, EXPIRY + 400, '2650.30');
    const head = log.head(signer, log.ticks.length, EXPIRY + 2_000);
    const doc = document(
      log,
      signer,
      head,
      {
        ...wonCase().doc.trade,
        asset: 'XAUUSD',
        opened_log_size: openedLogSize,
        strike_price: '2650.10',
        strike_at: iso(strike.time_ms),
        close_price: null,
        close_at: null,
        status: 'no_price',
        profit_cents: 0,
        credit_cents: 1_000,
      },
      { strike, strike_next: strikeNext, close: null, close_next: forged },
    );
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['close']);
    expect(byId(verdict).ticks.ok).toBe(true);
    expect(byId(verdict).close.text).toContain('yet the strike tick #1 (12:00:00.2 UTC) is one');
  });
});

describe('a proof that does not hold names the failing check', () => {
  it('a key the user trusts that did not sign the head', async () => {
    const { doc } = wonCase();
    const other = newSigner();
    const verdict = await verifyProof(doc, { lang: 'en', publicKey: other.publicKey });
    expect(failed(verdict)).toEqual(['signature']);
    expect(verdict.ok).toBe(false);
    expect(byId(verdict).signature.text).toContain('not the key you trust');
    // The trusted key is the document's own: passes.
    expect((await verifyProof(doc, { publicKey: doc.public_key.toUpperCase() })).ok).toBe(true);
  });

  it('a head signed by another key than the one in the file (a forged head)', async () => {
    const c = wonCase();
    const forger = newSigner();
    const doc = clone(c.doc);
    doc.head = signHead(forger, c.head.tree_size, c.head.time_ms, Buffer.from(c.head.root, 'hex'));
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['signature']);
    expect(byId(verdict).signature.text).toContain("the head's signature does not verify");
    // A key_id that is not the key's fingerprint.
    const wrongId = clone(c.doc);
    wrongId.key_id = forger.keyId;
    expect(failed(await verifyProof(wrongId))).toEqual(['signature']);
  });

  it('a price changed in a leaf (the trade changed with it)', async () => {
    const doc = clone(wonCase().doc);
    doc.ticks.close!.price = '1.08541';
    doc.trade.close_price = '1.08541';
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['inclusion']);
    expect(byId(verdict).inclusion.text).toContain(
      'Not in the signed log: the close tick (EURUSD #6, 12:00:59.6 UTC, 1.08541',
    );
    // The time of a tick is in its leaf too.
    const moved = clone(wonCase().doc);
    moved.ticks.strike_next!.time_ms += 1;
    expect(failed(await verifyProof(moved))).toEqual(['inclusion']);
  });

  it('a strike that is not the last price at or before the opening', async () => {
    const m = market();
    const base = wonCase(m.signer);
    const head = m.log.head(m.signer, m.log.ticks.length, EXPIRY + 2_000);
    const earlier = m.log.ticks[1]!; // EURUSD #1 at T − 600; #2 at T + 200 was stored before the opening
    const doc = document(
      m.log,
      m.signer,
      head,
      { ...base.doc.trade, strike_price: earlier.price, strike_at: iso(earlier.time_ms) },
      { strike: earlier, strike_next: m.strike, close: m.close, close_next: m.closeNext },
    );
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['strike']);
    expect(byId(verdict).strike.text).toContain('the strike should have been that price');
    // A strike price that is not its tick's.
    const priced = clone(wonCase().doc);
    priced.trade.strike_price = '1.08510';
    expect(failed(await verifyProof(priced))).toContain('strike');
  });

  it('a close that is not the last price before the expiry', async () => {
    const m = market();
    const head = m.log.head(m.signer, m.log.ticks.length, EXPIRY + 2_000);
    const older = m.log.ticks[m.close.index - 1]!; // EURUSD 1 s before the real close
    expect(older.symbol).toBe('EURUSD');
    const doc = document(
      m.log,
      m.signer,
      head,
      {
        ...wonCase(m.signer).doc.trade,
        opened_log_size: m.openedLogSize,
        close_price: older.price,
        close_at: iso(older.time_ms),
      },
      { strike: m.strike, strike_next: m.strikeNext, close: older, close_next: m.close },
    );
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['close']);
    expect(byId(verdict).close.text).toContain('is not after the expiry');
  });

  it('a wrong amount, and a result the rule does not give', async () => {
    const doc = clone(wonCase().doc);
    doc.trade.profit_cents = 851;
    doc.trade.credit_cents = 1_851;
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['result']);
    expect(byId(verdict).result.text).toContain('they should be profit 8.50, credited 18.50');
    const lost = clone(wonCase().doc);
    Object.assign(lost.trade, { status: 'lost', profit_cents: -1_000, credit_cents: 0 });
    const lostVerdict = await verifyProof(lost, { lang: 'en' });
    expect(failed(lostVerdict)).toEqual(['result']);
    expect(byId(lostVerdict).result.text).toContain('The trade says “lost”, but the rule gives “won”');
    // A no_price that had a fresh close.
    const hidden = clone(wonCase().doc);
    Object.assign(hidden.trade, { status: 'no_price', profit_cents: 0, credit_cents: 1_000 });
    expect(failed(await verifyProof(hidden))).toEqual(['close', 'result']);
    // The rule's gap cannot be widened in the file.
    const wide = clone(settledCase({ closeAge: 15_000, status: 'won', profit_cents: 850, credit_cents: 1_850 }).doc);
    wide.rule.gap_seconds = 60;
    expect(failed(await verifyProof(wide))).toEqual(['result']);
  });

  it('a head published after the settlement', async () => {
    const doc = clone(wonCase().doc);
    doc.trade.settled_at = iso(doc.head.time_ms - 1);
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toEqual(['head_time']);
    expect(byId(verdict).head_time.text).toContain('after the settlement');
  });

  it('ticks of another symbol or not consecutive', async () => {
    const m = market();
    const head = m.log.head(m.signer, m.log.ticks.length, EXPIRY + 2_000);
    const gbp = m.log.ticks.find((t) => t.symbol === 'GBPUSD' && t.time_ms > EXPIRY)!;
    const doc = document(m.log, m.signer, head, wonCase(m.signer).doc.trade, {
      strike: m.strike,
      strike_next: m.strikeNext,
      close: m.close,
      close_next: gbp,
    });
    const verdict = await verifyProof(doc, { lang: 'en' });
    expect(failed(verdict)).toContain('ticks');
    expect(byId(verdict).ticks.text).toContain('is not EURUSD');
  });
});

describe('a file of proofs', () => {
  it('one bad proof fails, the others pass', async () => {
    const good = wonCase();
    const bad = clone(good.doc);
    bad.ticks.strike!.price = '1.08521';
    bad.trade.id = 4243;
    const lost = settledCase({ direction: 'put', status: 'lost', profit_cents: -1_000, credit_cents: 0 });
    const bundle = {
      format: 'brokerage-trade-proofs',
      version: 1,
      from: '2026-01-01',
      to: '2026-01-31',
      proofs: [good.doc, bad, lost.doc],
    };
    const verdicts = await verifyFile(JSON.stringify(bundle), { lang: 'en' });
    expect(verdicts.map((v) => v.ok)).toEqual([true, false, true]);
    expect(verdicts[1]!.trade_id).toBe(4243);
    expect(failed(verdicts[1]!)).toEqual(['inclusion', 'strike']);
    expect(await verifyFile({ ...bundle, proofs: [] })).toEqual([]);
  });
});

describe('consistency with a head the user saved', () => {
  it('an earlier head of the same log: the log only grew', async () => {
    const c = wonCase();
    const saved = c.log.head(c.signer, 5, T + 1_000);
    const answer = c.log.consistency(saved, c.head);
    const verdict = await verifyProof(c.doc, { lang: 'en', savedHead: saved, consistency: answer });
    expect(failed(verdict)).toEqual([]);
    expect(byId(verdict).consistency.ok).toBe(true);
    expect(byId(verdict).consistency.text).toContain('The log only grew');
    // A head saved later than the proof's: the proof's tree must be a prefix of it.
    c.log.add('EURUSD', EXPIRY + 5_000, '1.08533');
    c.log.add('GBPUSD', EXPIRY + 5_100, '1.27050');
    const later = c.log.head(c.signer, c.log.ticks.length, EXPIRY + 6_000);
    const laterAnswer = c.log.consistency(c.head, later);
    expect((await verifyProof(c.doc, { savedHead: later, consistency: laterAnswer })).ok).toBe(true);
    // The same head: nothing to prove.
    expect(byId(await verifyProof(c.doc, { savedHead: c.head })).consistency.ok).toBe(true);
  });

  it('a rewritten history fails', async () => {
    const c = wonCase();
    // What the user saw earlier: the same log but with tick 1 at another price, signed by the same key.
    const before = new RefLog();
    for (const t of c.log.ticks.slice(0, 5)) before.add(t.symbol, t.time_ms, t.index === 1 ? '1.08400' : t.price);
    const saved = before.head(c.signer, 5, T + 1_000);
    const answer = c.log.consistency(c.log.head(c.signer, 5, T + 1_000), c.head);
    const verdict = await verifyProof(c.doc, { lang: 'en', savedHead: saved, consistency: answer });
    expect(failed(verdict)).toEqual(['consistency']);
    expect(byId(verdict).consistency.text).toContain('The log was rewritten, or the proof is wrong');
    // Same size, another root.
    const same = before.head(c.signer, 5, T + 1_000);
    const sameSize = await verifyProof(c.doc, { savedHead: { ...same, tree_size: 5 }, consistency: answer });
    expect(failed(sameSize)).toEqual(['consistency']);
  });

  it('a saved head without a proof, or signed by another key, fails', async () => {
    const c = wonCase();
    const saved = c.log.head(c.signer, 5, T + 1_000);
    expect(byId(await verifyProof(c.doc, { lang: 'en', savedHead: saved })).consistency.text).toContain(
      'No consistency proof between the heads of 5 and',
    );
    const foreign = c.log.head(newSigner(), 5, T + 1_000);
    const verdict = await verifyProof(c.doc, {
      lang: 'en',
      savedHead: foreign,
      consistency: c.log.consistency(foreign, c.head),
    });
    expect(failed(verdict)).toEqual(['consistency']);
  });
});

describe('malformed documents give a failed format step, never a crash', () => {
  const cases: [string, (d: ProofDoc) => unknown, string][] = [
    ['null', () => null, 'the file holds null, not a proof document'],
    ['an array', () => [], 'the file holds [], not a proof document'],
    ['another format', (d) => ({ ...d, format: 'something' }), 'its "format" is "something"'],
    ['version 2', (d) => ({ ...d, version: 2 }), 'format version 2 is unknown'],
    ['rule version 2', (d) => ({ ...d, rule: { ...d.rule, version: 2 } }), 'settlement rule version 2 is unknown'],
    [
      'a missing amount',
      (d) => ({ ...d, trade: { ...d.trade, amount_cents: undefined } }),
      'trade.amount_cents is missing',
    ],
    [
      'a price as a number',
      (d) => ({ ...d, ticks: { ...d.ticks, close: { ...d.ticks.close!, price: 1.08531 } } }),
      'ticks.close.price should be a decimal number as a string, such as "1.08520", but it is 1.08531',
    ],
    [
      'a bad path',
      (d) => ({ ...d, ticks: { ...d.ticks, strike: { ...d.ticks.strike!, path: ['zz'] } } }),
      'ticks.strike.path should be a list of hashes',
    ],
    [
      'a bad date',
      (d) => ({ ...d, trade: { ...d.trade, expires_at: 'tomorrow' } }),
      'trade.expires_at should be an ISO 8601 date',
    ],
    ['no head', (d) => ({ ...d, head: undefined }), 'the field head is missing'],
    ['a short key', (d) => ({ ...d, public_key: 'abcd' }), 'public_key should be a public key: 64 hex digits'],
    ['an unknown status', (d) => ({ ...d, trade: { ...d.trade, status: 'voided' } }), 'trade.status should be one of'],
  ];
  for (const [name, bend, text] of cases) {
    it(name, async () => {
      const verdict = await verifyProof(bend(clone(wonCase().doc)), { lang: 'en' });
      expect(verdict.ok).toBe(false);
      expect(verdict.steps.map((s) => [s.id, s.ok])).toEqual([['format', false]]);
      expect(verdict.steps[0]!.text).toContain(text);
    });
  }

  it('text that is not JSON, and a bundle without proofs (ru)', async () => {
    const [notJson] = await verifyFile('{"format": ');
    expect(notJson!.steps[0]!.text).toContain('файл не является JSON');
    const [noProofs] = await verifyFile({ format: 'brokerage-trade-proofs', version: 1 });
    expect(noProofs!.steps[0]!.text).toContain('нет поля proofs');
  });
});

describe('the package entry', () => {
  it('resolves to the source in the monorepo (no build needed)', () => {
    expect(fromPackage.verifyProof).toBe(verifyProof);
  });
});
