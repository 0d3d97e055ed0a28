import {
  createTheme,
  DEFAULT_THEME,
  localStorageColorSchemeManager,
  type CSSVariablesResolver,
  type MantineColorsTuple,
} from '@mantine/core';
import { STORAGE_KEYS } from './lib/storage-keys';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  cursorType: 'pointer',
});

/** The colour scheme lives in localStorage 'theme' (no inline script: the server's CSP forbids it). */
export const colorSchemeManager = localStorageColorSchemeManager({ key: STORAGE_KEYS.theme });

// ---------------------------------------------------------------------------------------------------------------------
// Contrast (issue 15 defect 17, WCAG 2.1 AA 1.4.3): Mantine's default shades put coloured text and filled buttons
// under 4.5:1 (blue-6 on white is 3.6:1, dimmed gray-6 3.3:1, white on teal-8 3.9:1). The resolver below picks, for
// every palette colour and both schemes, the first shade that reaches 4.5:1 against every surface it is drawn on
// (the body, the striped and hovered rows, its own light background), darkening or lightening past the palette when no
// shade does (yellow). The pairs are checked by apps/web/test/theme-contrast.test.ts and by axe-core in the e2e suite.
// ---------------------------------------------------------------------------------------------------------------------

/** WCAG AA for normal-size text. */
export const MIN_CONTRAST = 4.5;

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b]
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** `top` at `alpha` over an opaque `bottom`, as the browser composites it. */
export function over(top: string, alpha: number, bottom: string): string {
  const a = parseHex(top);
  const b = parseHex(bottom);
  return toHex([0, 1, 2].map((i) => a[i]! * alpha + b[i]! * (1 - alpha)) as Rgb);
}

function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two opaque colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

function mix(hex: string, towards: string, amount: number): string {
  return over(towards, amount, hex);
}

/** The first colour of `candidates` (then `last` mixed further towards `towards`) readable on every background. */
function readable(candidates: string[], backgrounds: string[], towards: string): string {
  const ok = (c: string) => backgrounds.every((bg) => contrast(c, bg) >= MIN_CONTRAST);
  const found = candidates.find(ok);
  if (found) return found;
  let c = candidates[candidates.length - 1]!;
  for (let step = 0; step < 20 && !ok(c); step += 1) c = mix(c, towards, 0.1);
  return c;
}

const gray = DEFAULT_THEME.colors.gray;
const dark = DEFAULT_THEME.colors.dark;

/** The surfaces coloured text sits on: the body, a striped row, a hovered row (light); body and paper (dark). */
export const SURFACES = {
  light: ['#ffffff', gray[0], gray[1]],
  dark: [dark[7], dark[6], dark[5]],
} as const;

export interface SchemeShades {
  /** Text in the colour (`c="red"`, anchors), the light variant's text and the outline variant. */
  text: string;
  /** The filled variant's background: white text on it reaches 4.5:1. */
  filled: string;
  filledHover: string;
  /** The light variant's background (opaque here, as composited over the body). */
  light: string;
}

/** The shades a palette colour is drawn with in a scheme. */
export function shadesFor(colors: MantineColorsTuple, scheme: 'light' | 'dark'): SchemeShades {
  const shades = [...colors];
  if (scheme === 'light') {
    const light = over(colors[6], 0.1, '#ffffff');
    const lightOnRow = over(colors[6], 0.1, gray[0]);
    const text = readable(shades.slice(6), [...SURFACES.light, light, lightOnRow], '#000000');
    const filled = readable(shades.slice(6), ['#ffffff'], '#000000');
    return { text, filled, filledHover: mix(filled, '#000000', 0.12), light };
  }
  const light = over(colors[6], 0.15, dark[7]);
  const lightOnPaper = over(colors[6], 0.15, dark[6]);
  const text = readable(shades.slice(0, 5).reverse(), [...SURFACES.dark, light, lightOnPaper], '#ffffff');
  const filled = readable(shades.slice(7), ['#ffffff'], '#000000');
  return { text, filled, filledHover: mix(filled, '#000000', 0.12), light };
}

/** Dimmed text and placeholders, readable on every surface of the scheme. */
export function mutedFor(scheme: 'light' | 'dark'): string {
  return scheme === 'light'
    ? readable([gray[6], gray[7]], [...SURFACES.light], '#000000')
    : readable([dark[2], dark[1], dark[0]], [...SURFACES.dark], '#ffffff');
}

function schemeVariables(scheme: 'light' | 'dark'): Record<string, string> {
  const vars: Record<string, string> = {
    '--mantine-color-dimmed': mutedFor(scheme),
    '--mantine-color-placeholder': mutedFor(scheme),
    '--mantine-color-anchor': `var(--mantine-color-${theme.primaryColor ?? 'blue'}-text)`,
  };
  for (const [name, colors] of Object.entries(DEFAULT_THEME.colors)) {
    if (name === 'dark') continue;
    const s = shadesFor(colors, scheme);
    vars[`--mantine-color-${name}-text`] = s.text;
    vars[`--mantine-color-${name}-light-color`] = s.text;
    vars[`--mantine-color-${name}-outline`] = s.text;
    vars[`--mantine-color-${name}-filled`] = s.filled;
    vars[`--mantine-color-${name}-filled-hover`] = s.filledHover;
  }
  return vars;
}

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: schemeVariables('light'),
  dark: schemeVariables('dark'),
});
