import { DEFAULT_THEME } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { contrast, MIN_CONTRAST, mutedFor, over, shadesFor, SURFACES } from '../src/theme';

/**
 * Issue 15 defect 17: every colour the theme draws text or a filled control with reaches WCAG AA (4.5:1) on the
 * surfaces it sits on, in the light and the dark scheme (Mantine's defaults do not: blue-6 on white is 3.6:1).
 */
const colours = Object.entries(DEFAULT_THEME.colors).filter(([name]) => name !== 'dark');

describe('theme contrast', () => {
  it('the ratio is computed as WCAG defines it', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#228be6', '#ffffff')).toBeLessThan(MIN_CONTRAST);
    expect(contrast(DEFAULT_THEME.colors.gray[6], '#ffffff')).toBeLessThan(MIN_CONTRAST);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it.each(colours)(`%s text and filled controls are readable in the ${scheme} scheme`, (_name, palette) => {
      const s = shadesFor(palette, scheme);
      const body = SURFACES[scheme][0];
      for (const bg of [...SURFACES[scheme], s.light])
        expect(contrast(s.text, bg)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(contrast('#ffffff', s.filled)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(contrast('#ffffff', s.filledHover)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(s.light).toBe(over(palette[6], scheme === 'light' ? 0.1 : 0.15, body));
    });

    it(`dimmed text and placeholders are readable in the ${scheme} scheme`, () => {
      for (const bg of SURFACES[scheme]) expect(contrast(mutedFor(scheme), bg)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    });
  }
});
