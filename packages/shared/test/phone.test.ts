import { describe, expect, it } from 'vitest';
import { displayPhone, normalisePhone } from '../src/phone.js';

/** Issue 27 item 8: every phone shown in one international format, from its E.164 form; what was typed is kept. */
describe('displayPhone', () => {
  it.each([
    ['+7 701 765 43 21', '+7 701 765 4321'],
    ['8 916 555 12 34', '+7 916 555 12 34'],
    ['87017654321', '+7 701 765 4321'],
    ['+380 50 111 2233', '+380 50 111 2233'],
    ['+49 (30) 1234-5678', '+49 30 12345678'],
  ])('%s is shown as %s', (typed, shown) => {
    expect(displayPhone(typed, normalisePhone(typed, 'KZ'))).toBe(shown);
  });

  it('two spellings of one number read the same', () => {
    const a = '+7 701 765 43 21';
    const b = '8 (701) 765-43-21';
    expect(displayPhone(a, normalisePhone(a))).toBe(displayPhone(b, normalisePhone(b)));
  });

  it('a phone that never parsed is shown as typed', () => {
    expect(displayPhone('ask at the desk', normalisePhone('ask at the desk'))).toBe('ask at the desk');
    expect(displayPhone('', null)).toBe('');
  });
});
