/**
 * Text contrast as WCAG 2.x computes it (relative luminance, 1.4.3), for colors a mail states inline: hex, rgb()
 * and rgba() without transparency, and the sixteen basic CSS color names. Anything else (other names, hsl(),
 * transparency, a stylesheet's colors) is not computed: that needs rendering, which this check does not do.
 */

/** WCAG 2.x AA for normal-size text (1.4.3); large text needs 3:1, which this check cannot tell without rendering. */
export const MIN_CONTRAST = 4.5;

type Rgb = readonly [number, number, number];

const BASIC: Record<string, Rgb> = {
  black: [0, 0, 0], silver: [192, 192, 192], gray: [128, 128, 128], grey: [128, 128, 128], white: [255, 255, 255],
  maroon: [128, 0, 0], red: [255, 0, 0], purple: [128, 0, 128], fuchsia: [255, 0, 255], green: [0, 128, 0],
  lime: [0, 255, 0], olive: [128, 128, 0], yellow: [255, 255, 0], navy: [0, 0, 128], blue: [0, 0, 255],
  teal: [0, 128, 128], aqua: [0, 255, 255],
};

/** The color a CSS value or a bgcolor attribute names, when it is one this check reads. */
export function parseColor(value: string): Rgb | null {
  const v = value.trim().toLowerCase();
  if (v in BASIC) return BASIC[v];
  const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/.exec(v);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as unknown as Rgb;
  }
  const rgb = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*(1|1\.0*|100%)\s*)?\)$/.exec(v);
  if (rgb) {
    const parts = [rgb[1], rgb[2], rgb[3]].map(Number);
    return parts.every((p) => p <= 255) ? (parts as unknown as Rgb) : null;
  }
  return null;
}

/** The first token of a `background` shorthand that is a color this check reads. */
export const backgroundColor = (value: string): Rgb | null => value.split(/\s+(?![^(]*\))/).map(parseColor).find(Boolean) ?? null;

const luminance = ([r, g, b]: Rgb): number => {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};

/** The contrast ratio of two colors, 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const hexOf = (c: Rgb): string => `#${c.map((n) => n.toString(16).padStart(2, '0')).join('')}`;
export type { Rgb };
