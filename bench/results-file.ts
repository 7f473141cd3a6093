/**
 * How docs/BENCHMARKS.md changes with a run: the results it held move to its "Previous run" part
 * (never overwritten), so each figure has the run before beside it. A full run replaces the current
 * part whole; a run of some sections (`npm run bench -- cli watch-check --write`) replaces only
 * those sections, and only their old versions move to "Previous run", where each replaces its own
 * older copy. Sections are matched by their heading up to the first `(` (what is in brackets holds
 * figures of the run, such as the cluster count of a watch check).
 */
export const PREVIOUS = '# Previous run';
const PREVIOUS_INTRO = 'The run before this one, as it was written, for comparison.';
const GOALS = '## Goals of the performance issue';
const SHORTFALLS = '## Shortfalls against the goals';

interface Parts {
  /** Everything before the first `## ` section. */
  head: string;
  sections: string[];
}

/** The key a section is matched by: its heading's words before any `(`, without the `#`s. */
export function sectionKey(section: string): string {
  const heading = section.split('\n')[0] ?? '';
  return heading
    .replace(/^#+\s*/, '')
    .split('(')[0]
    ?.trim()
    .toLowerCase() as string;
}

function splitSections(text: string, level: '##' | '###'): Parts {
  const pieces = text.split(new RegExp(`^(?=${level} )`, 'm'));
  const head = pieces[0]?.startsWith(`${level} `) ? '' : (pieces.shift() ?? '');
  return { head, sections: pieces.map((p) => `${p.trimEnd()}\n`) };
}

const demote = (section: string) => section.replace(/^(#{2,}) /gm, '#$1 ');

/** A section moved to "Previous run" by a partial run says which run it came from. */
function dated(section: string, date: string | undefined): string {
  if (!date) return section;
  const [heading, ...rest] = section.split('\n');
  return [heading, '', `(From the run of ${date}.)`, ...rest].join('\n');
}

/**
 * Old sections replaced by key with new ones; a new section with no old one goes before the first
 * section whose key starts with one of `before` (else last).
 */
function replaceByKey(old: string[], fresh: string[], before: string[] = []): string[] {
  const out = [...old];
  for (const section of fresh) {
    const at = out.findIndex((s) => sectionKey(s) === sectionKey(section));
    if (at !== -1) out[at] = section;
    else {
      const stop = out.findIndex((s) => before.some((b) => sectionKey(s).startsWith(b)));
      out.splice(stop === -1 ? out.length : stop, 0, section);
    }
  }
  return out;
}

/**
 * The goals table of a partial run: this run's rows, and the rows it did not measure kept from the
 * table before, marked as from an earlier run.
 */
function mergeGoals(old: string | undefined, fresh: string | undefined): string | undefined {
  if (!fresh || !old) return fresh ?? old;
  const rows = (s: string) => s.split('\n').filter((l) => l.startsWith('| ') && !/^\| (---|figure) /.test(l));
  const figure = (l: string) => l.split(' | ')[0];
  const freshRows = rows(fresh);
  const kept = rows(old)
    .filter((l) => !freshRows.some((f) => figure(f) === figure(l)))
    .map((l) =>
      l.includes('(earlier run)') ? l : l.replace(/ \| (met|not met) \| /, ' | $1 (earlier run) | '),
    );
  const lines = fresh.split('\n');
  const last = lines.map((l) => l.startsWith('| ')).lastIndexOf(true);
  lines.splice(last + 1, 0, ...kept);
  return lines.join('\n');
}

/**
 * The new file. `run`: this run's text (its head, then its `## ` sections); `partial`: whether it
 * ran only some sections; `note`: for a partial run, the line saying which and when.
 */
export function nextResultsFile(oldFile: string, run: string, partial: boolean, note = ''): string {
  const [oldCurrent = '', oldPrevious = ''] = oldFile.split(`\n${PREVIOUS}`);
  const previousParts = splitSections(oldPrevious, '###');
  if (!partial || !oldFile) {
    const body = oldCurrent.replace(/^# Benchmarks\n/, '').trim();
    const previous = body ? `\n${PREVIOUS}\n\n${PREVIOUS_INTRO}\n\n${demote(body)}\n` : '';
    return `${run.trimEnd()}\n${previous}`;
  }
  const old = splitSections(oldCurrent, '##');
  const fresh = splitSections(run, '##');
  const freshGoals = fresh.sections.find((s) => s.startsWith(GOALS));
  const oldGoals = old.sections.find((s) => s.startsWith(GOALS));
  const freshShortfalls = fresh.sections.find((s) => s.startsWith(SHORTFALLS));
  const results = fresh.sections.filter((s) => s !== freshGoals && s !== freshShortfalls);
  const replaced = old.sections.filter((s) => results.some((r) => sectionKey(r) === sectionKey(s)));
  const goals = mergeGoals(oldGoals, freshGoals);
  let sections = replaceByKey(old.sections, results, ['goals of the performance issue', 'shortfalls']);
  if (goals) sections = replaceByKey(sections, [goals], ['shortfalls']);
  // The causes are text of bench/run.ts, not figures of a run: the newest say what the code knows
  // now (a partial run that kept the old ones left them contradicting its own figures).
  if (freshShortfalls) sections = replaceByKey(sections, [freshShortfalls]);
  const head = note ? `${old.head.trimEnd()}\n${note}\n\n` : old.head;
  const date = /^- Date: ([^;\s]+)/m.exec(old.head)?.[1];
  const previous = replaceByKey(
    previousParts.sections,
    replaced.map((s) => demote(dated(s, date))),
  );
  const previousHead = previousParts.head.trim() || PREVIOUS_INTRO;
  return `${head}${sections.join('\n')}\n${PREVIOUS}\n\n${previousHead}\n\n${previous.join('\n')}`;
}
