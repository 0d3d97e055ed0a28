import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledCase, T, wonCase } from './documents.js';
import { RefLog } from './reference.js';

/**
 * The package as a stranger gets it: `npm pack` (which builds dist/ by the prepack script), installed into an empty
 * folder with nothing else, run through its bin. Nothing of the monorepo is on the path of that folder.
 */

const packageDir = new URL('..', import.meta.url).pathname;
let work: string;
let bin: string;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'verifier-pack-'));
  const packs = join(work, 'packs');
  const app = join(work, 'app');
  mkdirSync(packs);
  mkdirSync(app);
  execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: packageDir, stdio: 'pipe' });
  const tarball = readdirSync(packs).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(app, 'package.json'), '{ "name": "empty", "private": true }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(packs, tarball)], {
    cwd: app,
    stdio: 'pipe',
  });
  work = app;
  bin = join(app, 'node_modules/.bin/brokerage-verify');
}, 180_000);

afterAll(() => {
  if (work) rmSync(join(work, '..'), { recursive: true, force: true });
});

describe('brokerage-verify from npm pack in an empty folder', { timeout: 60_000 }, () => {
  it('has no dependencies: the folder holds only the package', () => {
    expect(readdirSync(join(work, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@brokerage']);
  });

  it('a good proof: every line ✓ (consistency –), exit 0', () => {
    writeFileSync(join(work, 'proof.json'), JSON.stringify(wonCase().doc));
    const r = run(['proof.json', '--lang', 'en']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('✓ The close price 1.08531 (12:00:59.6 UTC) is the last price at or before the expiry');
    expect(r.out).toContain('– No saved head given');
    expect(r.out).toContain('✓ Trade #4242: all checks passed.');
    expect(r.out).not.toContain('✗');
  });

  it('a tampered proof: the failing line ✗, exit 1; Russian by default', () => {
    const doc = wonCase().doc;
    doc.ticks.close!.price = '1.08541';
    doc.trade.close_price = '1.08541';
    writeFileSync(join(work, 'tampered.json'), JSON.stringify(doc));
    const r = run(['tampered.json']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('✗ Нет в подписанном журнале: тик цены закрытия');
    expect(r.out).toContain('✗ Сделка №4242: доказательство НЕ сходится');
  });

  it('--head with a consistency file checks that the log only grew; a rewritten one fails', () => {
    const c = settledCase({ direction: 'put', status: 'lost', profit_cents: -1_000, credit_cents: 0 });
    const saved = c.log.head(c.signer, 4, T + 1_000);
    writeFileSync(join(work, 'lost.json'), JSON.stringify(c.doc));
    writeFileSync(join(work, 'head.json'), JSON.stringify(saved));
    writeFileSync(join(work, 'consistency.json'), JSON.stringify(c.log.consistency(saved, c.head)));
    const ok = run(['lost.json', '--head', 'head.json', '--consistency', 'consistency.json', '--lang', 'en']);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('✓ The log only grew');
    // The head the user saw before had tick 1 at another price: the history was rewritten since.
    const before = new RefLog();
    for (const t of c.log.ticks.slice(0, 4)) before.add(t.symbol, t.time_ms, t.index === 1 ? '1.08400' : t.price);
    writeFileSync(join(work, 'head-before.json'), JSON.stringify(before.head(c.signer, 4, T + 1_000)));
    const bad = run(['lost.json', '--head', 'head-before.json', '--consistency', 'consistency.json', '--lang', 'en']);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('✗ The log was rewritten, or the proof is wrong');
  });

  it('usage and file errors exit 2 with a message, a malformed file is a ✗ format line', () => {
    const missing = run(['nope.json', '--lang', 'en']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('Cannot read nope.json: no such file.');
    expect(run([]).code).toBe(2);
    expect(run(['proof.json', '--lang', 'de']).code).toBe(2);
    expect(run(['proof.json', '--key', 'xyz']).code).toBe(2);
    const needsProof = run(['proof.json', '--head', 'head.json', '--lang', 'en']);
    expect(needsProof.code).toBe(2);
    expect(needsProof.err).toContain('--head needs --consistency');
    writeFileSync(join(work, 'broken.json'), '{"format": "brokerage-trade-proof", "version": 1, "trade": 5}');
    const broken = run(['broken.json', '--lang', 'en']);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('✗ The file cannot be checked: the field trade should be an object');
    expect(broken.err).toBe('');
  });
});
