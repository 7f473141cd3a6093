#!/usr/bin/env node
// The structure of src/ that docs/ARCHITECTURE.md describes, checked on every `npm test` (and by
// `node scripts/check-structure.mjs` alone). It fails, naming each place, on:
//   - an import cycle among src/ files (type-only imports and `import('…')` types included);
//   - `ioredis` imported outside src/state/, src/queue/ and src/clients/;
//   - a src/ file importing test code (test/, bench/, scripts/);
//   - a function in src/ longer than 80 lines (from its first line to its last, nested functions
//     included);
//   - a CLI runner outside src/cli/: a file exporting a function named `run…Command` or `run…Cli`,
//     or a module that src/cli.ts loads for a command (its lazy `import()`s), so that every
//     command's entry point is found in one folder;
//   - a value import (not `import type`) in src/state/ of anything but the foundations below it
//     (STATE_MAY_IMPORT): the stores keep the shapes they store, and features (history/, watch/,
//     digest/, ...) depend on state/, never the reverse; and src/history/ importing src/watch/ (the
//     watch writes the minute history that history/ reads: which clusters it watches is config/'s);
//   - a file in a layer importing a layer above it (LAYERS: today src/etcd/, the foundation of what
//     etcd is and writes, imports only itself and the foundations beside it), type imports included;
//   - a file that docs/ARCHITECTURE.md names and no folder holds (a renamed or deleted file);
//   - a unit test (test/unit/) that needs more than Node: one importing ioredis, the Redis helpers
//     (test/support/redis/) or the etcd and TLS labs (test/support/lab/). `npm run test:unit` runs with
//     Node alone (docs/development.md); such a test belongs in test/integration/;
//   - a branch on a job's kind outside the handler record (src/queue/job-handlers.ts): a `switch`
//     on, or a comparison of, a job's `.kind` or `.name` (`data`, `job`, `….data`) with a job kind
//     literal. The kinds are the keys of that module's JOB_KINDS record.
// It parses with @swc/core, which Jest already uses to compile the tests, so the check needs no
// dependency of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const MAX_FUNCTION_LINES = 80;
const REDIS_FOLDERS = ['src/state/', 'src/queue/', 'src/clients/'];
const TEST_FOLDERS = ['test/', 'bench/', 'scripts/'];
const CLI_ENTRY = 'src/cli.ts';
const CLI_FOLDER = 'src/cli/';
const CLI_RUNNER_NAME = /^run\w*(Command|Cli)$/;
/** What src/state/ may import as values: the foundations, and itself. */
const STATE_MAY_IMPORT = [
  'src/state/',
  'src/contracts/',
  'src/config/',
  'src/types/',
  'src/clients/',
  'src/errors.ts',
  'src/logger.ts',
  'src/timing.ts',
  'src/secret.ts',
  'src/untrusted-text.ts',
  'src/format.ts',
  'src/etcd/',
];
/**
 * The folder order, bottom up: a file under a key may import (values and types) only what its list
 * names. src/etcd/ holds etcd's own facts (the log signatures, histograms, member ids, quorum, the
 * bbolt snapshot reader), so every layer above may use them and they depend on none.
 */
const LAYERS = {
  'src/etcd/': ['src/etcd/', 'src/format.ts', 'src/errors.ts', 'src/secret.ts', 'src/untrusted-text.ts'],
};
/** The one module that may branch on a job's kind: the handler record. */
const HANDLER_RECORD = 'src/queue/job-handlers.ts';
/** Names a job's payload goes by (`data.kind`, `job.kind`, `job.data.kind`, `job.name`). */
const JOB_NAMES = /^(data|job|jobData|payload)$/;
/**
 * Known breaches, removed step by step as the code is restructured: `file:function` for a long
 * function. A listed one that no longer breaks the rule fails the check
 * too, so the list only shrinks.
 */
const PENDING = new Set([
]);

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every node below `node` (swc's AST is plain JSON), with the chain of its ancestors. */
function* walk(node) {
  if (Array.isArray(node)) {
    for (const child of node) yield* walk(child);
  } else if (node && typeof node === 'object') {
    if (typeof node.type === 'string') yield node;
    for (const [key, child] of Object.entries(node)) if (key !== 'span') yield* walk(child);
  }
}

/** The names a module exports as functions (`export function f`, `export const f = …`). */
function exportedFunctionNames(node) {
  if (node.type !== 'ExportDeclaration') return [];
  const declaration = node.declaration;
  if (declaration.type === 'FunctionDeclaration') return [declaration.identifier.value];
  if (declaration.type !== 'VariableDeclaration') return [];
  return declaration.declarations
    .filter((d) => /^(ArrowFunctionExpression|FunctionExpression)$/.test(d.init?.type ?? ''))
    .map((d) => d.id.value);
}

/** Whether an import or re-export declaration brings in types only. */
function typeOnly(node) {
  if (node.typeOnly) return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.isTypeOnly);
}

/** `x.kind` / `x.name` (also `x?.kind`) where x is a job's payload, or undefined. */
function jobKindRead(node) {
  const member = node?.type === 'OptionalChainingExpression' ? node.base : node;
  if (member?.type !== 'MemberExpression' || member.property?.type !== 'Identifier') return undefined;
  if (member.property.value !== 'kind' && member.property.value !== 'name') return undefined;
  const object = member.object;
  const jobLike =
    (object.type === 'Identifier' && JOB_NAMES.test(object.value)) ||
    (object.type === 'MemberExpression' && object.property?.type === 'Identifier' && object.property.value === 'data');
  return jobLike ? member : undefined;
}

/**
 * The job kinds: the keys of JOB_KINDS in the handler record module (type-checked to be every
 * kind). Without that record, a problem, and the `kind: z.literal(…)` values of the job schemas.
 */
function jobKinds(problems) {
  const read = (path) => parseSync(readFileSync(join(ROOT, path), 'utf8'), { syntax: 'typescript' }).body;
  for (const node of walk(read(HANDLER_RECORD))) {
    if (node.type === 'VariableDeclarator' && node.id?.value === 'JOB_KINDS' && node.init?.type === 'ObjectExpression') {
      return new Set(node.init.properties.map((p) => p.key?.value).filter((k) => typeof k === 'string'));
    }
  }
  problems.push(`${HANDLER_RECORD}: no JOB_KINDS record (one entry per job kind)`);
  const kinds = new Set();
  for (const node of walk(read('src/queue/job-schemas.ts'))) {
    const literal = node.type === 'KeyValueProperty' && node.key?.value === 'kind' && node.value?.arguments?.[0]?.expression;
    if (literal?.type === 'StringLiteral') kinds.add(literal.value);
  }
  return kinds;
}

/** Branches on a job's kind in one parsed module: comparisons with, and switches over, kind literals. */
function kindBranches(body, kinds, lineOf) {
  const found = [];
  const isKind = (n) => n?.type === 'StringLiteral' && kinds.has(n.value);
  for (const node of walk(body)) {
    if (node.type === 'BinaryExpression' && /^[!=]==?$/.test(node.operator)) {
      const read = jobKindRead(node.left) ?? jobKindRead(node.right);
      const literal = isKind(node.left) ? node.left : isKind(node.right) ? node.right : undefined;
      if (read && literal) found.push({ line: lineOf(node.span.start), what: `compares a job's kind with '${literal.value}'` });
    } else if (node.type === 'SwitchStatement' && jobKindRead(node.discriminant)) {
      if (node.cases.some((c) => isKind(c.test))) found.push({ line: lineOf(node.span.start), what: "switches on a job's kind" });
    }
  }
  return found;
}

/**
 * A file parsed once: its import specifiers (those loaded lazily, by `import()`, apart too; those
 * that bring in values apart too), its exported function names, its functions' line spans and its
 * branches on a job's kind.
 */
function parse(file, kinds) {
  // A leading `0;` pins offset 0 of the file: swc's spans are byte offsets from a base of its own.
  const text = readFileSync(file, 'utf8');
  const bytes = Buffer.from(`0;\n${text}`);
  const module = parseSync(`0;\n${text}`, { syntax: 'typescript', comments: false });
  const base = module.body[0].span.start;
  const lineOf = (offset) => bytes.subarray(0, offset - base).toString('utf8').split('\n').length - 1;
  const specifiers = [];
  const valueSpecifiers = [];
  const lazySpecifiers = [];
  const functions = [];
  const exported = module.body.flatMap(exportedFunctionNames);
  for (const node of walk(module.body)) {
    if (/^(ImportDeclaration|ExportAllDeclaration|ExportNamedDeclaration)$/.test(node.type) && node.source) {
      specifiers.push(node.source.value);
      if (!typeOnly(node)) valueSpecifiers.push(node.source.value);
    } else if (node.type === 'CallExpression' && node.callee?.type === 'Import') {
      const arg = node.arguments[0]?.expression;
      if (arg?.type === 'StringLiteral') {
        specifiers.push(arg.value);
        valueSpecifiers.push(arg.value);
        lazySpecifiers.push(arg.value);
      }
    } else if (node.type === 'TsImportType') {
      specifiers.push(node.argument.value);
    }
    if (/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression|ClassMethod|Constructor)$/.test(node.type)) {
      const span = node.span ?? node.function?.span;
      const first = lineOf(span.start);
      const lines = lineOf(span.end) - first + 1;
      const name = node.identifier?.value ?? node.key?.value ?? 'an anonymous function';
      functions.push({ name, line: first, lines });
    }
  }
  const branches = kindBranches(module.body, kinds, lineOf);
  return { specifiers, valueSpecifiers, lazySpecifiers, exported, functions, kindBranches: branches };
}

/** The src/ file a relative specifier names (`./x.js` is written for `./x.ts`), or undefined. */
function resolveLocal(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  return resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
}

/** Tarjan's strongly connected components of size > 1 (or a file importing itself). */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** A CLI runner outside src/cli/: by its exported name, or because src/cli.ts loads it for a command. */
function cliRunnerProblems(file, name, lazySpecifiers, exported) {
  const problems = [];
  if (name !== CLI_ENTRY && !name.startsWith(CLI_FOLDER)) {
    for (const fn of exported.filter((n) => CLI_RUNNER_NAME.test(n))) {
      problems.push(`${name}: exports ${fn}, a CLI runner; CLI runners live in ${CLI_FOLDER}`);
    }
  }
  if (name !== CLI_ENTRY) return problems;
  for (const specifier of lazySpecifiers) {
    const target = resolveLocal(file, specifier);
    const targetName = target && relative(ROOT, target);
    if (targetName && !targetName.startsWith(CLI_FOLDER)) {
      problems.push(`${name}: runs a command from ${targetName}; CLI runners live in ${CLI_FOLDER}`);
    }
  }
  return problems;
}

/** A value import in src/state/ of anything above the foundations. */
function stateImportProblems(file, name, valueSpecifiers) {
  const problems = [];
  for (const specifier of valueSpecifiers) {
    const target = resolveLocal(file, specifier);
    const targetName = target && relative(ROOT, target);
    if (targetName && !STATE_MAY_IMPORT.some((allowed) => targetName.startsWith(allowed))) {
      problems.push(
        `${name}: imports ${specifier} as a value; state/ may import only ${STATE_MAY_IMPORT.join(', ')} (use \`import type\`, or move the shape down)`,
      );
    }
  }
  return problems;
}

const ARCHITECTURE = join(ROOT, 'docs/ARCHITECTURE.md');
const TABLE_HEADER = '| folder | what lives there | may import |';

/** `src/a/b.ts` -> `a`, `src/a.ts` -> `a.ts`: the unit the folder table speaks of. */
function topOf(name) {
  const rest = name.replace(/^src\//, '');
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/** A backticked name of the table (`chat/adapter.ts`, `roles/`, `doctor.ts`) as a top unit. */
function topOfCell(word) {
  const clean = word.replace(/^\//, '');
  if (!/^[\w.-]+(\/[\w./-]*)?$/.test(clean) || !/[/.]/.test(clean)) return undefined;
  return topOf(`src/${clean}`);
}

/**
 * docs/ARCHITECTURE.md's folder table, as the rule (issue 41: the table matches the import graph): a
 * row's folders may import each other and what its last column names (`anything in src/` for the
 * composition root), and every folder may import the rows marked `(foundation)`.
 */
function folderTable() {
  const lines = readFileSync(ARCHITECTURE, 'utf8').split('\n');
  const start = lines.indexOf(TABLE_HEADER);
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1);
    const names = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => topOfCell(m[1])).filter(Boolean);
    const folders = names(cells[0]);
    rows.push({
      folders,
      may: [...folders, ...names(cells[2])],
      anything: /anything in `src\/`/.test(cells[2]),
      foundation: /\(foundation\)/.test(cells[2]),
    });
  }
  return { rows, foundations: rows.filter((r) => r.foundation).flatMap((r) => r.folders) };
}

/** A file that docs/ARCHITECTURE.md names (`answer/answer-once.ts`, `check-jobs.ts`) and no folder holds. */
function namedFileProblems() {
  const paths = [...userTexts().keys()].map((f) => `/${relative(ROOT, f)}`);
  const named = new Set(
    [...readFileSync(ARCHITECTURE, 'utf8').matchAll(/`([\w./-]+\.(?:ts|mjs|cjs))`/g)].map((m) => m[1]),
  );
  return [...named]
    .filter((name) => !paths.some((p) => p.endsWith(`/${name.replace(/^\//, '')}`)))
    .map((name) => `docs/ARCHITECTURE.md: names ${name}, which no file is`);
}

/** Every import between two top units of src/ that the folder table does not allow. */
function tableProblems(graph) {
  const { rows, foundations } = folderTable();
  if (rows.length === 0) return [`docs/ARCHITECTURE.md: no folder table (${TABLE_HEADER})`];
  const problems = [];
  const seen = new Set();
  for (const [file, targets] of graph) {
    const from = topOf(relative(ROOT, file));
    const own = rows.filter((r) => r.folders.includes(from));
    if (own.length === 0) {
      if (!seen.has(from)) problems.push(`docs/ARCHITECTURE.md: src/${from} has no row in the folder table`);
      seen.add(from);
      continue;
    }
    if (own.some((r) => r.anything)) continue;
    for (const target of targets) {
      const to = topOf(relative(ROOT, target));
      if (to === from || foundations.includes(to) || own.some((r) => r.may.includes(to))) continue;
      const edge = `${from} -> ${to}`;
      if (!seen.has(edge)) problems.push(`${relative(ROOT, file)}: imports src/${to}, which its row of docs/ARCHITECTURE.md's folder table does not name`);
      seen.add(edge);
    }
  }
  return problems;
}

/** Folders whose files may use what src/ exports. */
const USER_FOLDERS = ['src', 'test', 'bench', 'scripts', 'bin'];
const EXPORT_DECLARATION = /^export (?:async )?(?:function\*?|const|let|class|type|interface|enum) (\w+)/gm;

function allFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : allFiles(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

let texts;
/** Every file of USER_FOLDERS and its text, read once for the checks below. */
function userTexts() {
  texts ??= new Map(
    USER_FOLDERS.flatMap((folder) => allFiles(join(ROOT, folder))).map((f) => [f, readFileSync(f, 'utf8')]),
  );
  return texts;
}

/**
 * An export that nothing names, not even its own file, is a dead end for the next reader (issue 41):
 * remove it. Words are compared as text, so a name used only in a comment elsewhere still counts.
 */
function unusedExports() {
  const filesOfWord = new Map();
  for (const text of userTexts().values()) {
    for (const word of new Set(text.match(/\w+/g) ?? [])) filesOfWord.set(word, (filesOfWord.get(word) ?? 0) + 1);
  }
  const problems = [];
  for (const [file, text] of userTexts()) {
    if (!file.startsWith(SRC)) continue;
    for (const match of text.matchAll(EXPORT_DECLARATION)) {
      const elsewhere = (filesOfWord.get(match[1]) ?? 0) > 1;
      if (!elsewhere && text.match(new RegExp(`\\b${match[1]}\\b`, 'g'))?.length === 1) {
        problems.push(`${relative(ROOT, file)}: exports ${match[1]}, which nothing uses`);
      }
    }
  }
  return problems;
}

const UNIT_TESTS = join(ROOT, 'test/unit');
const NEEDS_MORE_THAN_NODE = /from '(ioredis|(?:\.\.\/)+support\/(?:redis|lab)\/[^']*)'/g;

/** test/unit/ runs with Node alone: no Redis, no etcd, no openssl (issue 41). */
function unitTestProblems() {
  return [...userTexts()].flatMap(([file, text]) =>
    (file.startsWith(`${UNIT_TESTS}/`) ? [...text.matchAll(NEEDS_MORE_THAN_NODE)] : []).map(
      (m) => `${relative(ROOT, file)}: imports ${m[1]}; test/unit/ runs with Node alone, so it belongs in test/integration/`,
    ),
  );
}

export function checkStructure() {
  const problems = [];
  const graph = new Map();
  const stats = { files: 0, longest: { lines: 0 }, redisImporters: [] };
  const used = new Set();
  const pending = (entry) => PENDING.has(entry) && used.add(entry);
  const kinds = jobKinds(problems);
  for (const file of sourceFiles(SRC)) {
    const name = relative(ROOT, file);
    const { specifiers, valueSpecifiers, lazySpecifiers, exported, functions, kindBranches: branches } = parse(
      file,
      kinds,
    );
    stats.files++;
    problems.push(...cliRunnerProblems(file, name, lazySpecifiers, exported));
    if (name.startsWith('src/state/')) problems.push(...stateImportProblems(file, name, valueSpecifiers));
    if (name !== HANDLER_RECORD) {
      for (const branch of branches) {
        problems.push(`${name}:${branch.line}: ${branch.what}; job kinds are told apart only in ${HANDLER_RECORD}`);
      }
    }
    const edges = new Set();
    for (const specifier of specifiers) {
      if (specifier === 'ioredis') {
        stats.redisImporters.push(name);
        if (!REDIS_FOLDERS.some((folder) => name.startsWith(folder)) && !pending(name)) {
          problems.push(`${name}: imports ioredis; Redis is reached through ${REDIS_FOLDERS.join(', ')}`);
        }
      }
      const target = resolveLocal(file, specifier);
      if (!target) continue;
      const targetName = relative(ROOT, target);
      if (TEST_FOLDERS.some((folder) => targetName.startsWith(folder))) {
        problems.push(`${name}: imports test code (${specifier})`);
      }
      const layer = Object.keys(LAYERS).find((folder) => name.startsWith(folder));
      if (layer && target.startsWith(SRC) && !LAYERS[layer].some((allowed) => targetName.startsWith(allowed))) {
        problems.push(`${name}: imports ${specifier}; ${layer} imports only ${LAYERS[layer].join(', ')}`);
      }
      if (name.startsWith('src/history/') && targetName.startsWith('src/watch/')) {
        problems.push(`${name}: imports ${specifier}; history/ reads what the watch writes through state/ and config/, never watch/`);
      }
      if (target.startsWith(SRC)) edges.add(target);
    }
    graph.set(file, edges);
    for (const fn of functions) {
      if (fn.lines > stats.longest.lines) stats.longest = { ...fn, file: name };
      if (fn.lines > MAX_FUNCTION_LINES && !pending(`${name}:${fn.name}`)) {
        problems.push(`${name}:${fn.line}: ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
      }
    }
  }
  for (const entry of PENDING) {
    if (!used.has(entry)) problems.push(`${entry}: listed as pending in scripts/check-structure.mjs, but passes now`);
  }
  problems.push(...unusedExports());
  problems.push(...unitTestProblems());
  problems.push(...tableProblems(graph));
  problems.push(...namedFileProblems());
  const found = cycles(graph);
  for (const component of found) {
    problems.push(`import cycle: ${component.map((f) => relative(ROOT, f)).join(' <-> ')}`);
  }
  return { problems, stats: { ...stats, cycles: found.length } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { problems, stats } = checkStructure();
  const { longest } = stats;
  console.error(
    `structure: ${stats.files} files in src/, ${stats.cycles} import cycles, ` +
      `ioredis in ${stats.redisImporters.length} files, longest function ${longest.lines} lines ` +
      `(${longest.name}, ${longest.file}:${longest.line})`,
  );
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
