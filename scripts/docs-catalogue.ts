// Writes the catalogue table of src/etcd/catalogue.ts into docs/detection.md, between its markers
// (appended as a section the first time). test/unit/etcd/catalogue.test.ts fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { catalogueMarkdown, DOCS_BEGIN, DOCS_END } from '../src/etcd/catalogue.js';

const path = new URL('../docs/detection.md', import.meta.url);
const doc = readFileSync(path, 'utf8');
const from = doc.indexOf(DOCS_BEGIN);
const to = doc.indexOf(DOCS_END);
const next =
  from >= 0 && to > from
    ? doc.slice(0, from) + catalogueMarkdown() + doc.slice(to + DOCS_END.length)
    : `${doc.trimEnd()}\n\n## What etcd writes: the catalogue\n\nEvery message etcd 2.3 to 3.6 writes at warn, error, fatal and panic level in the packages that matter, and the info lines that carry meaning, read from etcd's source at the release tags v2.3.8, v3.3.27 (for 3.0–3.3), v3.4.45, v3.5.33 and v3.6.14 and raft's own lines (\`src/etcd/catalogue.ts\`). \`zap\` is the whole \`msg\` of a zap entry; \`text\` is the constant part of the capnslog (or raft) format, found as plain text in the line. An error-level line the catalogue holds to be \`benign\` or \`context\` is not counted by \`unexplained-errors\`; one it holds to be evidence for a cause no rule named is quoted there with its meaning.\n\n${catalogueMarkdown()}\n`;
writeFileSync(path, next);
