import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { STALE_KEYS, staleKeysOfStream } from '../src/lib/live-stale-keys';

/**
 * Issue 29 §4: query keys come from one factory object per module (`withdrawalKeys.list(…)`), and the live socket's
 * invalidation map names keys through the same factories. An event that invalidates a key no query uses refreshes
 * nothing (the staff withdrawals list never refreshed live while the map said ['withdrawals'] and the list's key was
 * ['withdraw-requests', …]).
 */

type Key = readonly unknown[];

// The api files load i18n, which sets the page's language: a bare document is enough outside a browser.
vi.hoisted(() => {
  Object.assign(globalThis, { document: { documentElement: {} } });
});

// Every module file that exports key factories: the modules' keys.ts and their api files.
const keyModules = import.meta.glob<Record<string, unknown>>(
  ['../src/modules/**/keys.ts', '../src/modules/**/api/*.ts', '../src/modules/*/api.ts', '../src/modules/*/*-api.ts'],
  { eager: true },
);

/** An argument any factory accepts: every field of it is another such argument, spread it gives nothing. */
const anything: unknown = new Proxy(() => undefined, {
  get: (_target, prop) => {
    if (prop === Symbol.iterator) return () => [][Symbol.iterator]();
    if (prop === Symbol.toPrimitive) return () => 1;
    return anything;
  },
});

/** A sample key of every factory entry: arrays as they are, functions called with placeholder arguments. */
function factoryKeys(): Key[] {
  const keys: Key[] = [];
  for (const exports of Object.values(keyModules)) {
    for (const [name, value] of Object.entries(exports)) {
      if (!name.endsWith('Keys') || typeof value !== 'object' || value === null) continue;
      for (const entry of Object.values(value)) {
        if (Array.isArray(entry)) keys.push(entry);
        else if (typeof entry === 'function') {
          const made: unknown = entry(...Array.from({ length: entry.length }, () => anything));
          if (Array.isArray(made)) keys.push(made);
        }
      }
    }
  }
  return keys;
}

const isPrefix = (prefix: Key, key: Key) => prefix.length <= key.length && prefix.every((part, i) => part === key[i]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('query keys and the live invalidation map', () => {
  const queryKeys = factoryKeys();

  it('finds the key factories of the modules', () => {
    const roots = new Set(queryKeys.map((k) => k[0]));
    for (const root of ['withdraw-requests', 'trading', 'trading-admin', 'notifications', 'client-messages', 'clients'])
      expect(roots).toContain(root);
  });

  it('invalidates, for every socket event and stream refetch, only prefixes of keys some query uses', () => {
    const invalidated = [
      ...Object.values(STALE_KEYS).flat(),
      ...['account:7', 'messages', 'notifications'].flatMap((s) => staleKeysOfStream(s)),
    ];
    const unused = invalidated.filter((prefix) => !queryKeys.some((key) => isPrefix(prefix, key)));
    expect(unused).toEqual([]);
  });

  it('refreshes the staff withdrawal requests on a balance change', () => {
    const listKey = queryKeys.find((k) => k[0] === 'withdraw-requests' && k[1] === 'list')!;
    expect(STALE_KEYS['balance.changed']!.some((prefix) => isPrefix(prefix, listKey))).toBe(true);
  });

  it('builds every query key and invalidation from a factory, never from a literal array', () => {
    const literal = /(queryKey|invalidateQueries\(\{ queryKey)\s*:\s*\[/;
    const offenders = sourceFiles(join(import.meta.dirname, '../src')).filter((file) =>
      literal.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
