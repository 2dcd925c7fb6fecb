/**
 * What the HTML checks see of a mail's HTML: its elements and text in document order, as a streaming parser emits
 * them (lambdas/checks/html-scan.ts runs htmlparser2). A rule that needs only these events is pure and holds no tree,
 * so its memory is bounded by what it counts, not by the HTML.
 */
export interface HtmlVisitor {
  /** An element opens; attribute names are lower case, values decoded. */
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  /** Text (entities decoded; a <style> element's CSS is its text). */
  text(text: string): void;
  /** An element closes, explicitly or implied (void elements close at once). */
  close(name: string): void;
}

/** A style attribute's declarations, property names lower case: enough to read colors, not a CSS parser. */
export function styleDeclarations(style: string): Map<string, string> {
  const declarations = new Map<string, string>();
  for (const part of style.split(';')) {
    const at = part.indexOf(':');
    if (at > 0) declarations.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/!important/i, '').trim());
  }
  return declarations;
}
