/** One Dockerfile instruction, continuation lines joined: `RUN npm ci` is { keyword: 'RUN', args: 'npm ci' }. */
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Splits a Dockerfile into build stages. Enough of the syntax for linting: comments, `\` continuations. */
export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue; // comments (and parser directives), also inside a continuation
    const continued = /\\\s*$/.test(line);
    pending += `${continued ? line.replace(/\\\s*$/, '') : line} `;
    if (!continued) {
      if (pending.trim() !== '') logical.push(pending.trim().replace(/\s+/g, ' '));
      pending = '';
    }
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(' ');
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') {
      const from = /^(?:--platform=\S+ )?(\S+)(?: AS (\S+))?$/i.exec(instruction.args);
      stages.push({ image: from?.[1] ?? '', name: from?.[2], instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** The args of an exec-form instruction (`["node", "x.js"]`), or undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function instructionsOf(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}
