/**
 * Label and field selectors as the apiserver reads them (k8s.io/apimachinery labels.Parse and
 * fields.ParseSelector): `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; field
 * selectors are `path=value` / `path!=value` on dotted paths such as `involvedObject.kind`.
 */

export function matchesLabelSelector(labels: Record<string, string>, selector: string): boolean {
  return splitTerms(selector).every((term) => matchesLabelTerm(labels, term));
}

function matchesLabelTerm(labels: Record<string, string>, term: string): boolean {
  const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set?.[1] && set[3] !== undefined) {
    const values = set[3].split(',').map((v) => v.trim());
    const value = labels[set[1]];
    return set[2] === 'in'
      ? value !== undefined && values.includes(value)
      : value === undefined || !values.includes(value);
  }
  const cmp = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (cmp?.[1]) {
    const value = labels[cmp[1]];
    return cmp[2] === '!=' ? value !== cmp[3] : value === cmp[3];
  }
  if (term.startsWith('!')) return !(term.slice(1) in labels);
  return term in labels;
}

export function matchesFieldSelector(object: unknown, selector: string): boolean {
  return splitTerms(selector).every((term) => {
    const cmp = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!cmp?.[1]) return false;
    const actual = String(
      cmp[1]
        .split('.')
        .reduce<unknown>(
          (o, key) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined),
          object,
        ) ?? '',
    );
    return cmp[2] === '!=' ? actual !== cmp[3] : actual === cmp[3];
  });
}

/** Splits on commas outside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) terms.push(current.trim());
  return terms.filter(Boolean);
}
