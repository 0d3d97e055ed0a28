import { describe, expect, it } from 'vitest';
import { resources } from '../src/i18n/resources';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? [path] : keysOf(value, path);
  });
}

const all = resources as unknown as Record<string, Record<string, Tree>>;

describe('translation namespaces', () => {
  it.each(['clientBase', 'notify', 'site', 'platform', 'affiliates', 'affiliateTokens', 'leadImport'])(
    '%s has the same keys in ru and en',
    (ns) => {
      expect(keysOf(all.en![ns]!).sort()).toEqual(keysOf(all.ru![ns]!).sort());
    },
  );

  it.each(['site', 'platform'])('%s (client side) has the same keys in kk as in ru', (ns) => {
    expect(keysOf(all.kk![ns]!).sort()).toEqual(keysOf(all.ru![ns]!).sort());
  });

  it('no namespace string is empty', () => {
    for (const [lang, namespaces] of Object.entries(all))
      for (const [ns, tree] of Object.entries(namespaces)) {
        const flat = (t: Tree): string[] => Object.values(t).flatMap((v) => (typeof v === 'string' ? [v] : flat(v)));
        expect(
          flat(tree).filter((v) => v.trim() === ''),
          `${lang}:${ns}`,
        ).toEqual([]);
      }
  });
});
