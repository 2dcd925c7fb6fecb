/**
 * The HtmlInspector port: one streaming pass of htmlparser2 (MIT, the parser mailparser's html-to-text uses) over a
 * mail's HTML, feeding the html section's feature checker (html-features.ts), the accessibility audit
 * (lambdas/core/checks/accessibility.ts) and the list of image sources the links section asks. No tree is built, so memory does not grow with nesting, and the pass is
 * bounded three ways, each making the sections partial with the reason: characters read, elements seen, and the
 * caller's deadline. The work is cut into slices of a few milliseconds with a turn of the event loop between them:
 * the local stack serves every request from one event loop, and a check of a hostile mail must not hold it.
 */
import { Parser } from 'htmlparser2';
import { AccessibilityAudit } from '../core/checks/accessibility';
import type { HtmlVisitor } from '../core/checks/visitor';
import type { HtmlInspection, HtmlInspector } from '../core/ports';
import { FeatureChecker } from './html-features';

/** Characters of HTML read (Gmail clips at 102 KB; ten times that is no mail a client shows whole). */
export const MAX_HTML_CHARS = 1024 * 1024;
/** Elements read: a long newsletter has a few thousand. */
export const MAX_HTML_ELEMENTS = 5_000;
/** Image sources kept for the links section (it asks at most MAX_CHECKED_LINKS URLs). */
export const MAX_IMAGE_SOURCES = 200;
/** Characters parsed at a time. */
const CHUNK_CHARS = 16 * 1024;
/** Work done between two turns of the event loop. */
const SLICE_MS = 8;

export interface ScanLimits {
  maxChars?: number;
  maxElements?: number;
}

type Event = { open: string; attributes: Record<string, string> } | { text: string } | { close: string };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function htmlInspector(limits: ScanLimits = {}): HtmlInspector {
  return { inspect: (html, deadline) => inspectHtml(html, deadline, limits) };
}

export async function inspectHtml(html: string, deadline: number, limits: ScanLimits = {}): Promise<HtmlInspection> {
  const maxChars = limits.maxChars ?? MAX_HTML_CHARS;
  const maxElements = limits.maxElements ?? MAX_HTML_ELEMENTS;
  const features = new FeatureChecker();
  const audit = new AccessibilityAudit();
  const images = new Set<string>();
  const imageSources: HtmlVisitor = {
    open: (name, attributes) => {
      if (name === 'img' && /^https?:\/\//i.test(attributes.src ?? '') && images.size < MAX_IMAGE_SOURCES) images.add(attributes.src.trim());
    },
    text: () => undefined,
    close: () => undefined,
  };
  const visitors: HtmlVisitor[] = [features, audit, imageSources];
  let cutShort: string | null = html.length > maxChars ? `the HTML has ${html.length} characters: the first ${maxChars} were checked` : null;

  const events: Event[] = [];
  let elements = 0;
  let full = false;
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        if (full) return;
        if (++elements > maxElements) {
          full = true;
          cutShort = `the HTML has more than ${maxElements} elements: the first ${maxElements} were checked`;
          return;
        }
        events.push({ open: name, attributes });
      },
      ontext: (text) => {
        if (!full) events.push({ text });
      },
      onclosetag: (name) => {
        if (!full) events.push({ close: name });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  let sliceStart = performance.now();
  /** False once the deadline passed (the reason set). */
  const breathe = async (): Promise<boolean> => {
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    if (Date.now() < deadline) return true;
    cutShort = 'the time budget of the HTML checks was spent before the whole HTML was checked';
    return false;
  };
  const drain = async (): Promise<boolean> => {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      for (const v of visitors) {
        if ('open' in e) v.open(e.open, e.attributes);
        else if ('text' in e) v.text(e.text);
        else v.close(e.close);
      }
      while (features.step()) if (!(await breathe())) return false;
      if (!(await breathe())) return false;
    }
    events.length = 0;
    return true;
  };

  const end = Math.min(html.length, maxChars);
  let running = true;
  for (let at = 0; at < end && !full && running; at += CHUNK_CHARS) {
    parser.write(html.slice(at, Math.min(end, at + CHUNK_CHARS)));
    running = await drain();
  }
  if (running && !full) {
    parser.end();
    await drain();
  }
  const featuresCut = cutShort ?? features.cutShort;
  return { features: features.report(), featuresCutShort: featuresCut, accessibility: audit.findings(), images: [...images], cutShort };
}
